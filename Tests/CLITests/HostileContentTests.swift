import Foundation
import Testing
import TestSupport

/// Hostile files inside otherwise valid IPAs, through the command line: a hostile Info.plist
/// refuses the archive (exit 65), a hostile icon or asset catalog is a finding, never a crash.
@Suite struct HostileContentTests {
    private static func files(_ folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.path(folder)))?
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted() ?? []
    }

    @Test(arguments: files("plist/hostile"))
    func aHostileInfoPlistRefusesTheArchive(_ name: String) throws {
        var builder = IPABuilder()
        builder.rawInfoPlist = try Fixtures.bytes("plist/hostile/" + name)
        let scratch = try ScratchDirectory("hostile-plist")
        let input = try scratch.write("App.ipa", builder.bytes())
        let expectedCode = String(name.prefix { $0 != "-" && $0 != "." })
        for command in ["inspect", "check"] {
            let result = try Command.ipawrap([command, input])
            #expect(result.status == 65, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("error[BUNDLE_INFO_PLIST_INVALID]"), "\(name): \(result.stderr)")
            #expect(result.stderr.contains(expectedCode), "\(name) should name \(expectedCode): \(result.stderr)")
        }
        let wrapped = try Command.ipawrap(["wrap", input, "-o", scratch.path("out.ipa")])
        #expect(wrapped.status == 65)
        #expect(scratch.listing() == ["App.ipa"])
    }

    @Test(arguments: files("png/hostile"))
    func aHostileIconIsAFinding(_ name: String) throws {
        var builder = IPABuilder()
        builder.info["CFBundleIconFiles"] = ["Icon"]
        builder.addFile("Icon.png", try Fixtures.bytes("png/hostile/" + name))
        builder.addFile("Icon-60@2x.png", IPABuilder.iconPNG(size: 120))
        let scratch = try ScratchDirectory("hostile-png")
        let input = try scratch.write("App.ipa", builder.bytes())
        let result = try Command.ipawrap(["inspect", input, "--json"])
        #expect(result.status == 0, "\(name): \(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let icon = try #require(report["icon"] as? [String: Any])
        let findings = (report["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
        // Either the header is fine (the damage is later in the file) and the icon is chosen, or it
        // is skipped with a finding and the fallback file wins.
        if icon["path"] as? String == "Payload/Sample.app/Icon-60@2x.png" {
            #expect(findings.contains("ICON_UNREADABLE"), "\(name)")
        }
        let extracted = try Command.ipawrap(["icon", input, "-o", scratch.path("icon.png")])
        #expect([0, 65].contains(extracted.status), "\(name): \(extracted.status) \(extracted.stderr)")
        if extracted.status != 0 {
            #expect(extracted.stderr.contains("error[PNG_"), "\(name): \(extracted.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("icon.png")))
        }
    }

    @Test(arguments: files("assets/hostile"))
    func aHostileAssetCatalogIsAFindingInReportsAndAnErrorInListings(_ name: String) throws {
        var builder = IPABuilder()
        builder.info["CFBundleIconName"] = "AppIcon"
        builder.addFile("Assets.car", try Fixtures.bytes("assets/hostile/" + name))
        let scratch = try ScratchDirectory("hostile-car")
        let input = try scratch.write("App.ipa", builder.bytes())
        let inspected = try Command.ipawrap(["inspect", input, "--json"])
        #expect(inspected.status == 0, "\(name): \(inspected.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any])
        let findings = (report["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
        // A damaged rendition is skipped for the next one (and the trace says why); only when
        // nothing usable is left is there no icon.
        if let icon = report["icon"] as? [String: Any] {
            #expect(icon["source"] as? String == "assetCatalog", "\(name)")
        } else {
            #expect(findings.contains("ICON_NOT_FOUND"), "\(name)")
        }
        let listed = try Command.ipawrap(["assets", "list", input])
        #expect([0, 65].contains(listed.status), "\(name): \(listed.status)")
        if listed.status == 65 { #expect(listed.stderr.contains("error[CAR_"), "\(name): \(listed.stderr)") }
    }

    /// Xcode's catalog of PDF image sets, their bitmaps packed in LZFSE atlases.
    @Test func listsAnXcodeCatalog() throws {
        try Self.expectListed(try XcodeShapedApp.bytes("Assets.car"), renditions: 11)
    }

    /// The same on a real one, isign's `Test.app` (Xcode 7.2, `../shared`).
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func listsTheRealIsignCatalog() throws {
        try Self.expectListed(try IsignFixture.bytes("Test.app/Assets.car"), renditions: 11)
    }

    static func expectListed(_ catalog: [UInt8], renditions count: Int) throws {
        var builder = IPABuilder()
        builder.addFile("Assets.car", catalog)
        let scratch = try ScratchDirectory("car")
        let input = try scratch.write("App.ipa", builder.bytes())
        let result = try Command.ipawrap(["assets", "list", input, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let renditions = try #require(listing["renditions"] as? [[String: Any]])
        #expect(renditions.count == count)
        #expect(renditions.contains { $0["compression"] as? String == "lzfse" })
        #expect(try Command.ipawrap(["assets", "list", try scratch.write("None.ipa", IPABuilder().bytes())]).status == 1)
    }
}
