import Foundation
import PropertyList
import Testing
import TestSupport

/// Issue 18: the shapes of IPAs real toolchains produce that ipawrap got wrong, each generated
/// the way that toolchain lays it out and run through the command line.
@Suite struct RealAppTests {
    private static func report(_ arguments: [String]) throws -> (status: Int32, report: [String: Any], stderr: String) {
        let result = try Command.ipawrap(arguments)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
        return (result.status, report, result.stderr)
    }

    private static func findings(_ report: [String: Any], _ code: String) -> [[String: Any]] {
        (report["findings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == code }
    }

    /// An Xcode-exported app with an icon, a framework and a share extension.
    private static func xcodeApp() -> IPABuilder {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.addFramework("Kit", bundleIdentifier: "com.example.kit")
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        return builder
    }

    // MARK: 1. Launch images listed as icons

    /// A standard (not CgBI) PNG of any shape, as Cordova copies its splash screens.
    private static func png(width: Int, height: Int) -> [UInt8] {
        CgBIEncoder(.standard).encode(rgba: [UInt8](repeating: 0x80, count: width * height * 4), width: width, height: height)
    }

    /// The pixel size in a PNG's IHDR.
    private static func size(ofPNG bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24 else { return nil }
        let be = { (offset: Int) in bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    /// Cordova 3.x: `CFBundleIconFiles` lists the launch images beside the icons.
    private static func cordova3App() -> IPABuilder {
        var builder = IPABuilder(appName: "HelloCordova", bundleIdentifier: "io.cordova.hellocordova")
        builder.info["CFBundleIconFiles"] = [
            "icon.png", "icon@2x.png", "icon-72.png", "icon-72@2x.png", "icon-76.png", "icon-76@2x.png",
            "Default-568h@2x~iphone.png", "Default-Landscape@2x~ipad.png", "Default-Landscape~ipad.png",
            "Default-Portrait@2x~ipad.png", "Default~iphone.png", "Default@2x~iphone.png", "Default-Landscape@2x.png",
        ]
        for (name, size) in [("icon", 57), ("icon@2x", 114), ("icon-72", 72), ("icon-72@2x", 144), ("icon-76", 76), ("icon-76@2x", 152)] {
            builder.addFile(name + ".png", IPABuilder.iconPNG(size: size, seed: UInt8(size & 0xFF), cgbi: false))
        }
        for (name, width, height) in [
            ("Default-568h@2x~iphone", 640, 1136), ("Default-Landscape@2x~ipad", 2048, 1536), ("Default-Landscape~ipad", 1024, 768),
            ("Default-Portrait@2x~ipad", 1536, 2048), ("Default~iphone", 320, 480), ("Default@2x~iphone", 640, 960),
            ("Default-Landscape@2x", 2048, 1536),
        ] {
            builder.addFile(name + ".png", png(width: width, height: height))
        }
        return builder
    }

    @Test func launchImagesAreNotChosenAsTheIcon() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("HelloCordova.ipa", Self.cordova3App().bytes())
        let output = scratch.path("icon.png")
        let result = try Command.ipawrap(["icon", input, "-o", output, "--trace"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("skipped Default-Landscape@2x.png (2048x1536): not square"), "\(result.stdout)")
        #expect(result.stdout.contains("chose icon-76@2x.png (152x152"), "\(result.stdout)")
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(Self.size(ofPNG: written).map { [$0.0, $0.1] } == [152, 152])

        let inspect = try Self.report(["inspect", input, "--json"])
        let icon = try #require(inspect.report["icon"] as? [String: Any])
        #expect(icon["path"] as? String == "Payload/HelloCordova.app/icon-76@2x.png")
        #expect(icon["width"] as? Int == 152 && icon["height"] as? Int == 152)
    }

    @Test func aLocationOfLaunchImagesOnlyGivesNoIcon() throws {
        var builder = IPABuilder()
        builder.info["CFBundleIconFiles"] = ["Default-Landscape@2x.png"]
        builder.addFile("Default-Landscape@2x.png", Self.png(width: 2048, height: 1536))
        builder.addFile("Icon.png", IPABuilder.iconPNG(size: 57, cgbi: false))
        let scratch = try ScratchDirectory("cli-real-apps")
        let inspect = try Self.report(["inspect", try scratch.write("Sample.ipa", builder.bytes()), "--json"])
        let icon = try #require(inspect.report["icon"] as? [String: Any])
        #expect(icon["source"] as? String == "fallback")
        #expect(icon["path"] as? String == "Payload/Sample.app/Icon.png")
    }

    // MARK: 2. iPad entries in their own location

    /// A universal Xcode 9-era app: iPhone icons under `CFBundleIcons`, iPad ones under
    /// `CFBundleIcons~ipad` (which repeats the iPhone name, as Xcode writes it).
    private static func universalApp(deviceFamilies: [PropertyListValue] = [1, 2]) -> IPABuilder {
        var builder = IPABuilder()
        builder.info["UIDeviceFamily"] = .array(deviceFamilies)
        builder.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60"], "CFBundleIconName": "AppIcon"]]
        builder.info["CFBundleIcons~ipad"] = [
            "CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60", "AppIcon76x76"], "CFBundleIconName": "AppIcon"],
        ]
        builder.addFile("AppIcon60x60@2x.png", IPABuilder.iconPNG(size: 120, seed: 1))
        builder.addFile("AppIcon76x76~ipad.png", IPABuilder.iconPNG(size: 76, seed: 2))
        builder.addFile("AppIcon76x76@2x~ipad.png", IPABuilder.iconPNG(size: 152, seed: 3))
        return builder
    }

    @Test func theIPhoneLocationComesBeforeTheIPadOne() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("Sample.ipa", Self.universalApp().bytes())
        let inspect = try Self.report(["inspect", input, "--json"])
        let icon = try #require(inspect.report["icon"] as? [String: Any])
        #expect(icon["path"] as? String == "Payload/Sample.app/AppIcon60x60@2x.png")
        #expect(icon["source"] as? String == "CFBundleIcons")
        let trace = icon["trace"] as? [String] ?? []
        #expect(trace.last?.hasPrefix("CFBundleIcons > CFBundlePrimaryIcon: chose AppIcon60x60@2x.png") == true, "\(trace)")
        #expect(!trace.contains { $0.contains("AppIcon76x76") }, "\(trace)")
    }

    @Test func anIPadOnlyAppLooksAtItsIPadIconsFirst() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("Sample.ipa", Self.universalApp(deviceFamilies: [2]).bytes())
        let result = try Command.ipawrap(["icon", input, "-o", scratch.path("icon.png"), "--trace"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("CFBundleIcons~ipad > CFBundlePrimaryIcon: chose AppIcon76x76@2x~ipad.png (152x152"), "\(result.stdout)")
        let inspect = try Self.report(["inspect", input, "--json"])
        #expect((inspect.report["icon"] as? [String: Any])?["source"] as? String == "CFBundleIcons~ipad")
    }

    @Test func aLargerCatalogRenditionOfTheNamedIconSetBeatsTheLoosePNGs() throws {
        var builder = Self.universalApp(deviceFamilies: [2])
        var catalog = AssetCatalogBuilder()
        catalog.addFacet("AppIcon")
        catalog.addBitmap(
            facet: "AppIcon", name: "AppIcon1024x1024.png", idiom: 0, scale: 1, width: 1024, height: 1024,
            premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 1024, height: 1024), compression: .lzvn, opaque: true)
        builder.addFile("Assets.car", catalog.build().bytes)
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("Sample.ipa", builder.bytes())
        let inspect = try Self.report(["inspect", input, "--json"])
        let icon = try #require(inspect.report["icon"] as? [String: Any])
        #expect(icon["source"] as? String == "assetCatalog")
        #expect(icon["width"] as? Int == 1024)
        #expect(icon["path"] as? String == "Payload/Sample.app/Assets.car#AppIcon1024x1024.png")
        #expect((icon["trace"] as? [String])?.last?.contains("chose the asset-catalog icon over the PNGs") == true)
    }

    @Test func theTraceSaysAnEmptyListIsPresentAndNamesEachFileOnce() throws {
        var builder = IPABuilder()
        builder.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": []]]
        builder.info["CFBundleIconFiles"] = ["Icon-60", "Icon-60.png"]
        builder.addFile("Icon-60.png", IPABuilder.iconPNG(size: 60, cgbi: false))
        let scratch = try ScratchDirectory("cli-real-apps")
        let result = try Command.ipawrap(["icon", try scratch.write("Sample.ipa", builder.bytes()), "-o", scratch.path("icon.png"), "--trace"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("CFBundleIcons > CFBundlePrimaryIcon: present but lists no file"), "\(result.stdout)")
        #expect(result.stdout.contains("CFBundleIconFiles: chose Icon-60.png (60x60, PNG) among Icon-60.png 60x60\n"), "\(result.stdout)")
    }

    // MARK: 3. A missing main executable

    @Test func aMissingMainExecutableFailsCheckAndWrap() throws {
        var builder = Self.xcodeApp()
        builder.executable = nil
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("Sample.ipa", builder.bytes())
        let check = try Self.report(["check", input, "--json"])
        #expect(check.status == 1, "\(check.stderr)")
        let missing = Self.findings(check.report, "EXECUTABLE_MISSING")
        #expect(missing.count == 1)
        #expect(missing.first?["severity"] as? String == "error")
        #expect(missing.first?["path"] as? String == "Payload/Sample.app/Sample")
        #expect((missing.first?["message"] as? String)?.contains("names 'Sample'") == true)

        let output = scratch.path("wrapped.mdx")
        let wrap = try Command.ipawrap(["wrap", input, "-o", output])
        #expect(wrap.status == 1, "\(wrap.stderr)")
        #expect(wrap.stderr.contains("EXECUTABLE_MISSING"), "\(wrap.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aNestedBundlesMissingBinaryIsReportedOnThatBundle() throws {
        var builder = Self.xcodeApp()
        // The app loads Kit (a framework nothing loads may lack its binary: FRAMEWORK_CODE_MERGED).
        builder.executable = IPABuilder.executable { $0.dylibs.append(.init("@rpath/Kit.framework/Kit")) }
        builder.nested[0].executable = nil
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("Sample.ipa", builder.bytes())
        let check = try Self.report(["check", input, "--json"])
        #expect(check.status == 1)
        #expect(Self.findings(check.report, "EXECUTABLE_MISSING").compactMap { $0["path"] as? String }
            == ["Payload/Sample.app/Frameworks/Kit.framework/Kit"])
    }

    @Test func anInfoPlistThatNamesNoExecutableIsMissingToo() throws {
        var builder = Self.xcodeApp()
        builder.info["CFBundleExecutable"] = nil
        let scratch = try ScratchDirectory("cli-real-apps")
        let check = try Self.report(["check", try scratch.write("Sample.ipa", builder.bytes()), "--json"])
        #expect(check.status == 1)
        #expect(Self.findings(check.report, "EXECUTABLE_MISSING").compactMap { $0["path"] as? String }
            == ["Payload/Sample.app/Info.plist"])
    }

    @Test func completeAppsHaveNoBundleFindings() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let check = try Self.report(["check", try scratch.write("Sample.ipa", Self.xcodeApp().bytes()), "--json"])
        let codes = (check.report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(!codes.contains { $0.hasPrefix("EXECUTABLE_") || $0 == "BUNDLE_ID_INVALID" }, "\(codes)")
    }

    // MARK: 19.11. Bundle IDs and executable names

    @Test(arguments: [
        ("missing", nil), ("empty", .string("")), ("not a string", .integer(42)), ("blank", .string("  ")),
    ] as [(String, PropertyListValue?)])
    func anUnusableBundleIdentifierIsAnError(_ what: String, _ value: PropertyListValue?) throws {
        var builder = Self.xcodeApp()
        builder.info["CFBundleIdentifier"] = value
        builder.nested[1].info?["CFBundleIdentifier"] = value
        let scratch = try ScratchDirectory("cli-real-apps")
        let check = try Self.report(["check", try scratch.write("Sample.ipa", builder.bytes()), "--json"])
        #expect(check.status == 1, "\(what)")
        #expect(Self.findings(check.report, "BUNDLE_ID_INVALID").compactMap { $0["path"] as? String }.sorted() == [
            "Payload/Sample.app/Info.plist", "Payload/Sample.app/PlugIns/Share.appex/Info.plist",
        ], "\(what)")
    }

    @Test(arguments: [
        "", "/usr/bin/Sample", "../Other.app/Sample", "x/../Sample", "PlugIns/Share.appex/Share", "Frameworks/Kit.framework/Kit",
    ])
    func anUnusableExecutableNameIsAnError(_ name: String) throws {
        var builder = Self.xcodeApp()
        builder.info["CFBundleExecutable"] = .string(name)
        builder.nested[1].info?["CFBundleExecutable"] = .string(name)
        // The builder stores executables under their CFBundleExecutable name: keep the zip itself safe.
        builder.executable = nil
        builder.nested[1].executable = nil
        let scratch = try ScratchDirectory("cli-real-apps")
        let check = try Self.report(["check", try scratch.write("Sample.ipa", builder.bytes()), "--json"])
        #expect(check.status == 1, "'\(name)'")
        #expect(Self.findings(check.report, "EXECUTABLE_INVALID").count == 2, "'\(name)'")
        #expect(Self.findings(check.report, "EXECUTABLE_MISSING").isEmpty, "'\(name)'")
        // Without a usable executable, the report has none.
        #expect((check.report["app"] as? [String: Any])?["executable"] is NSNull, "'\(name)'")
    }

    // MARK: 4. Added entries follow their siblings' UTF-8 flag

    /// How Python's `zipfile` reads an archive: each entry's decoded name (UTF-8 when flagged,
    /// else CP437, as 7-Zip and Windows do too) and its flag bits.
    private static func zipfileNames(_ path: String) throws -> [(name: String, flags: Int)] {
        let script = """
            import json, sys, zipfile
            print(json.dumps([[i.filename, i.flag_bits] for i in zipfile.ZipFile(sys.argv[1]).infolist()]))
            """
        let result = try Command.run("python3", ["-c", script, path])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[Any]])
        return rows.compactMap { row in
            guard let name = row.first as? String, let flags = row.last as? Int else { return nil }
            return (name, flags)
        }
    }

    /// The folders under `Payload/` that an extractor decoding names as `zipfile` does creates.
    private static func payloadFolders(_ path: String) throws -> Set<String> {
        Set(try zipfileNames(path).compactMap { entry in
            let parts = entry.name.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count > 2 && parts[0] == "Payload" ? String(parts[1]) : nil
        })
    }

    /// macOS Archive Utility (a Finder zip) stores the UTF-8 bytes of `建筑项目平台.app` without
    /// the UTF-8 flag: what wrap and repack add beside them must not carry it either.
    @Test func addedEntriesFollowTheFlagOfAFinderZip() throws {
        var builder = IPABuilder(appName: "建筑项目平台")
        builder.addPrimaryIcon()
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("Finder.ipa", builder.bytes())
        #expect(try Self.payloadFolders(input).count == 1)
        let wrapped = scratch.path("wrapped.ipa"), repacked = scratch.path("repacked.ipa")
        let wrap = try Command.ipawrap(["wrap", input, "-o", wrapped])
        #expect(wrap.status == 0, "\(wrap.stderr)")
        let note = try scratch.write("note.txt", Array("注".utf8))
        let repack = try Command.ipawrap(["repack", input, "-o", repacked, "--add", "Payload/建筑项目平台.app/说明/note.txt=" + note])
        #expect(repack.status == 0, "\(repack.stderr)")
        for (output, added) in [(wrapped, "MDXPolicy.bundle"), (repacked, "说明/note.txt")] {
            let entries = try Self.zipfileNames(output)
            #expect(entries.filter { $0.flags & 0x0800 != 0 }.map(\.name) == [], "flagged entries in \(output)")
            #expect(try Self.payloadFolders(output).count == 1, "one app folder in \(output)")
            #expect(try ZipOracle.unzipTest(output).status == 0)
            // The bytes are the app folder's UTF-8 bytes, as the entries beside them store them.
            let names = try ZipOracle.entries(output).map(\.nameString)
            #expect(names.contains { $0.hasPrefix("Payload/建筑项目平台.app/") && $0.contains(added) })
        }
    }

    /// In an archive whose names are ASCII, a non-ASCII addition is flagged UTF-8 as the zip
    /// specification says, so every extractor reads it the same way.
    @Test func aNonASCIIAdditionBesideASCIINamesIsFlaggedUTF8() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("Sample.ipa", Self.xcodeApp().bytes())
        let note = try scratch.write("note.txt", Array("注".utf8))
        let output = scratch.path("out.ipa")
        let result = try Command.ipawrap(["repack", input, "-o", output, "--add", "Payload/Sample.app/说明/note.txt=" + note])
        #expect(result.status == 0, "\(result.stderr)")
        let flagged = try Self.zipfileNames(output).filter { $0.flags & 0x0800 != 0 }.map(\.name)
        #expect(flagged == ["Payload/Sample.app/说明/", "Payload/Sample.app/说明/note.txt"])
    }

    // MARK: 5. Platforms

    /// A tvOS app as Xcode builds it: `LC_BUILD_VERSION` platform 3, `DTPlatformName` appletvos,
    /// `UIDeviceFamily` [3], and `CFBundlePrimaryIcon` a string naming the image stack in
    /// `Assets.car` (here with its flattened image).
    private static func tvOSApp() -> IPABuilder {
        var builder = IPABuilder(appName: "TopShelf", bundleIdentifier: "com.example.sample")
        builder.info["DTPlatformName"] = "appletvos"
        builder.info["DTSDKName"] = "appletvos17.0"
        builder.info["CFBundleSupportedPlatforms"] = ["AppleTVOS"]
        builder.info["UIDeviceFamily"] = [3]
        builder.info["MinimumOSVersion"] = "16.0"
        builder.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": "App Icon"]
        builder.executable = IPABuilder.executable { $0.version = .buildVersion(platform: 3, minOS: "16.0", sdk: "17.0", tools: []) }
        var catalog = AssetCatalogBuilder()
        catalog.addFacet("App Icon")
        catalog.addBitmap(
            facet: "App Icon", name: "App Icon.png", idiom: 3, scale: 2, width: 800, height: 480,
            premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 800, height: 480), compression: .lzvn, opaque: true)
        builder.addFile("Assets.car", catalog.build().bytes)
        return builder
    }

    @Test func aTvOSAppIsReportedAsTvOSAndIsNotWrapped() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("TopShelf.ipa", Self.tvOSApp().bytes())
        let inspect = try Self.report(["inspect", input, "--json"])
        let app = try #require(inspect.report["app"] as? [String: Any])
        #expect(app["platform"] as? String == "tvOS")
        let icon = try #require(inspect.report["icon"] as? [String: Any], "\(inspect.report)")
        #expect(icon["path"] as? String == "Payload/TopShelf.app/Assets.car#App Icon.png")
        #expect(icon["width"] as? Int == 800)
        #expect(Self.findings(inspect.report, "ICON_REFERENCE_MISSING").isEmpty)

        let text = try Command.ipawrap(["inspect", input])
        #expect(text.stdout.contains("tvOS 16.0+"), "\(text.stdout)")
        #expect(!text.stdout.contains("iOS 16.0+"), "\(text.stdout)")

        let check = try Self.report(["check", input, "--json"])
        #expect(check.status == 1)
        #expect(Self.findings(check.report, "PLATFORM_UNSUPPORTED").count == 1)
        let output = scratch.path("TopShelf.mdx")
        let wrap = try Command.ipawrap(["wrap", input, "-o", output])
        #expect(wrap.status == 1)
        #expect(wrap.stderr.contains("PLATFORM_UNSUPPORTED"), "\(wrap.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A tvOS image stack compiled without its flattened image: the stack's layer-stack rendition and
    /// its layers, either as renditions of the stack's facet told apart by their `layer` attribute or
    /// as facets of their own named `App Icon/<layer>`. The largest layer is listed last, so neither
    /// catalog order nor the first layer can pass for it.
    @Test(arguments: [false, true])
    func aTvOSImageStackWithoutAFlattenedImageGivesItsLargestLayer(layersAsFacets: Bool) throws {
        var builder = Self.tvOSApp()
        var catalog = AssetCatalogBuilder()
        catalog.keyFormat.append(11)  // layer
        catalog.addFacet("App Icon")
        catalog.addRawData(
            facet: "App Icon", name: "App Icon", bytes: [0, 0, 0, 0], idiom: 3, scale: 2, width: 800, height: 480, layout: 1002)
        for (index, (layer, width, height)) in [("Front", 400, 240), ("Middle", 640, 384), ("Back", 800, 480)].enumerated() {
            let facet = layersAsFacets ? "App Icon/\(layer)" : "App Icon"
            if layersAsFacets { catalog.addFacet(facet) }
            catalog.addBitmap(
                facet: facet, name: "\(layer).png", idiom: 3, scale: 2, width: width, height: height,
                premultipliedPixels: AssetCatalogBuilder.iconPixels(width: width, height: height, seed: UInt8(index)),
                compression: .lzvn, opaque: layer == "Back", attributes: layersAsFacets ? [:] : [11: UInt16(index + 1)])
        }
        builder.addFile("Assets.car", catalog.build().bytes)
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("TopShelf.ipa", builder.bytes())
        let inspect = try Self.report(["inspect", input, "--json"])
        let icon = try #require(inspect.report["icon"] as? [String: Any], "\(inspect.report)")
        #expect(icon["path"] as? String == "Payload/TopShelf.app/Assets.car#Back.png")
        #expect(icon["width"] as? Int == 800 && icon["height"] as? Int == 480)
        #expect(Self.findings(inspect.report, "ICON_REFERENCE_MISSING").isEmpty)
        #expect(Self.findings(inspect.report, "ICON_UNREADABLE").isEmpty)

        let output = scratch.path("icon.png")
        let written = try Command.ipawrap(["icon", input, "-o", output])
        #expect(written.status == 0, "\(written.stderr)")
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(Self.size(ofPNG: png).map { $0 == (800, 480) } == true)
    }

    @Test(arguments: [
        ([1, 2], nil, "iOS"), ([2], nil, "iPadOS-only"), ([1, 2], 6, "Mac Catalyst"), ([7], 11, "visionOS"), ([4], 4, "watchOS"),
    ] as [([PropertyListValue], UInt32?, String)])
    func thePlatformComesFromTheBuildVersionAndInfoPlist(_ families: [PropertyListValue], _ platform: UInt32?, _ expected: String) throws {
        var builder = Self.xcodeApp()
        builder.info["UIDeviceFamily"] = .array(families)
        if let platform {
            builder.executable = IPABuilder.executable { $0.version = .buildVersion(platform: platform, minOS: "15.0", sdk: "17.0", tools: []) }
        }
        let scratch = try ScratchDirectory("cli-real-apps")
        let report = try Self.report(["check", try scratch.write("Sample.ipa", builder.bytes()), "--json"]).report
        #expect((report["app"] as? [String: Any])?["platform"] as? String == expected)
        #expect(Self.findings(report, "PLATFORM_UNSUPPORTED").count == (["iOS", "iPadOS-only"].contains(expected) ? 0 : 1))
    }

    // MARK: 6. JSON that stays the same between runs

    @Test func checkJSONWithoutAtDiffersOnlyInJudgedAt() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("Sample.ipa", Self.xcodeApp().bytes())
        var runs: [[String: Any]] = []
        for run in 0..<2 {
            if run == 1 { Thread.sleep(forTimeInterval: 1.1) }
            var report = try Self.report(["check", input, "--json"]).report
            let judgedAt = try #require(report.removeValue(forKey: "judgedAt") as? String)
            #expect(judgedAt.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression) != nil, "\(judgedAt)")
            runs.append(report)
        }
        let bytes = try runs.map { try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
        #expect(bytes[0] == bytes[1])
        let messages = (runs[0]["findings"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        #expect(!messages.contains { $0.contains("judged at") }, "\(messages)")

        let at = try Self.report(["check", input, "--json", "--at", "2030-01-01T00:00:00Z"]).report
        #expect(at["judgedAt"] as? String == "2030-01-01T00:00:00Z")
    }

    // MARK: 7. Messages that mislead

    @Test func anSDKStoredAsZeroIsUnknown() throws {
        var builder = Self.xcodeApp()
        builder.executable = IPABuilder.executable { $0.version = .versionMin(command: 0x25, minOS: "4.3", sdk: "0.0") }
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("Sample.ipa", builder.bytes())
        let report = try Self.report(["inspect", input, "--json"]).report
        let executable = try #require((report["app"] as? [String: Any])?["executable"] as? [String: Any])
        #expect(executable["minOS"] as? String == "4.3")
        #expect(executable["sdk"] is NSNull)
        let text = try Command.ipawrap(["inspect", input])
        #expect(text.stdout.contains("min iOS 4.3, SDK unknown"), "\(text.stdout)")
        #expect(!text.stdout.contains("SDK 0.0"))
    }

    @Test(arguments: [
        (["developer-expired.cer"], "the developer certificate in", "has expired"),
        (["developer-expired.cer", "developer-expired.cer"], "both developer certificates in", "have expired"),
        (["developer-expired.cer", "developer.cer"], "1 of the 2 developer certificates in", "has expired"),
    ])
    func expiredCertificatesAreCountedInGoodEnglish(_ names: [String], _ subject: String, _ verb: String) throws {
        var builder = ProfileBuilder()
        builder.developerCertificates = names.map(ProfileBuilder.certificate)
        let scratch = try ScratchDirectory("cli-real-apps")
        let path = try scratch.write("Sample.mobileprovision", builder.signed())
        let report = try Self.report(["profile", "show", path, "--json", "--at", "2026-06-01"]).report
        let messages = (report["findings"] as? [[String: Any]] ?? [])
            .filter { $0["code"] as? String == "PROFILE_CERTIFICATE_EXPIRED" }.compactMap { $0["message"] as? String }
        #expect(messages.count == 1, "\(report)")
        #expect(messages.first?.contains(subject) == true && messages.first?.contains(verb + ":") == true, "\(messages)")
        #expect(messages.first?.contains("every developer certificates") == false)
    }

    // MARK: 8. What users expect

    @Test func profileShowCheckIsAGate() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let path = try scratch.write("Sample.mobileprovision", ProfileBuilder().signed())
        let fresh = try Command.ipawrap(["profile", "show", path, "--check", "--at", "2026-06-01"])
        #expect(fresh.status == 0, "\(fresh.stdout)\(fresh.stderr)")
        let late = try Command.ipawrap(["profile", "show", path, "--check", "--at", "2040-01-01"])
        #expect(late.status == 1, "\(late.stdout)")
        #expect(late.stdout.contains("PROFILE_EXPIRED"), "\(late.stdout)")
        // Without --check the findings are listed and the exit status stays 0.
        #expect(try Command.ipawrap(["profile", "show", path, "--at", "2040-01-01"]).status == 0)
    }

    @Test func assetsListReadsABareAssetsCar() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let car = try scratch.write("Assets.car", AssetCatalogBuilder.appIconCatalog(named: "AppIcon"))
        let result = try Command.ipawrap(["assets", "list", car, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(listing["path"] as? String == car)
        let names = (listing["renditions"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names.contains("AppIcon1024x1024.png") && names.count == 6, "\(names)")
        // A file that is neither a catalog nor a zip is still refused as an archive.
        let other = try scratch.write("notes.txt", Array("hello".utf8))
        #expect(try Command.ipawrap(["assets", "list", other]).status == 65)
    }

    @Test func assetsExtractWritesAnyRenditionAsAPNG() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let car = AssetCatalogBuilder.appIconCatalog(named: "AppIcon")
        var builder = IPABuilder()
        builder.addFile("Assets.car", car)
        let ipa = try scratch.write("Sample.ipa", builder.bytes())
        let bare = try scratch.write("Assets.car", car)
        for (input, name, size) in [(bare, "AppIcon76x76@2x~ipad.png", 152), (ipa, "AppIcon60x60@3x.png", 180), (ipa, "AppIcon", 1024)] {
            let output = scratch.path("out-\(size).png")
            let result = try Command.ipawrap(["assets", "extract", input, name, "-o", output])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
            #expect(Self.size(ofPNG: png).map { [$0.0, $0.1] } == [size, size], "\(name)")
            #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        }
        let missing = try Command.ipawrap(["assets", "extract", bare, "Nope", "-o", scratch.path("nope.png")])
        #expect(missing.status == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("nope.png")))
    }

    @Test func theAppOneFolderTooDeepIsNamed() throws {
        // `zip -r Foo.zip Foo` of the folder that holds Payload/.
        var zip = ZipBuilder()
        zip.directory("Foo/")
        zip.directory("Foo/Payload/")
        zip.directory("Foo/Payload/Foo.app/")
        zip.file("Foo/Payload/Foo.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        let scratch = try ScratchDirectory("cli-real-apps")
        let result = try Command.ipawrap(["inspect", try scratch.write("Foo.ipa", zip.bytes())])
        #expect(result.status == 65)
        #expect(result.stderr.contains("ARCHIVE_NO_APP"), "\(result.stderr)")
        #expect(result.stderr.contains("one folder too deep, at Foo/Payload/Foo.app/"), "\(result.stderr)")
        #expect(result.stderr.contains("cd Foo && zip -qry ../Foo.ipa Payload"), "\(result.stderr)")

        var archive = ZipBuilder()
        archive.file("Foo.xcarchive/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        archive.file("Foo.xcarchive/Products/Applications/Foo.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        let zipped = try Command.ipawrap(["check", try scratch.write("Foo.xcarchive.zip", archive.bytes())])
        #expect(zipped.status == 65)
        #expect(zipped.stderr.contains("xcodebuild -exportArchive"), "\(zipped.stderr)")
    }

    @Test func aFolderGivenAsTheIPAIsAUsageError() throws {
        let scratch = try ScratchDirectory("cli-real-apps")
        let folder = scratch.path("apps")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for command in [["inspect", folder], ["check", folder], ["wrap", folder, "-o", scratch.path("out.ipa")]] {
            let result = try Command.ipawrap(command)
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("INPUT_IS_FOLDER") && result.stderr.contains("ipawrap batch"), "\(result.stderr)")
        }
    }

    // MARK: 19.10. Names that differ only in case

    /// A zip made on Linux of a folder that held both spellings, as a case-sensitive file
    /// system allows: on macOS one overwrites the other.
    @Test func caseOnlyTwinsAreRefused() throws {
        var builder = Self.xcodeApp()
        builder.addFile("info.plist", Array("<plist version=\"1.0\"><dict/></plist>".utf8))
        let scratch = try ScratchDirectory("cli-real-apps")
        let input = try scratch.write("Sample.ipa", builder.bytes())
        for command in ["inspect", "check"] {
            let result = try Command.ipawrap([command, input])
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("ARCHIVE_CASE_COLLISION"), "\(result.stderr)")
            #expect(result.stderr.contains("'Payload/Sample.app/Info.plist' and 'Payload/Sample.app/info.plist'"), "\(result.stderr)")
        }
    }
}
