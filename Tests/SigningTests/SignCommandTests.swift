import CodeSignature
import FormatSupport
import Foundation
import MachO
import PropertyList
import Testing
import TestSupport
import Zip

/// `ipawrap sign` through the command line, its output read back with the signature model and
/// checked against independent oracles (`openssl cms -verify`, `unzip`).
@Suite struct SignCommandTests {
    static let signingTime = "1767225600"  // 2026-01-01T00:00:00Z

    /// An executable as ld64 links it: room after the load commands for `LC_CODE_SIGNATURE`.
    static func executable(fileType: UInt32 = 2) -> [UInt8] {
        IPABuilder.executable(fileType: fileType) { $0.headerPadding = 1024 }
    }

    /// An app with a framework, a loose dylib, an app extension and a symlink.
    static func app() -> IPABuilder {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.executable = executable()
        builder.addFramework("Kit", bundleIdentifier: "com.example.kit")
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        builder.nested[0].executable = executable(fileType: 6)
        builder.nested[1].executable = executable(fileType: 8)
        builder.nested[0].files["Resources/kit.json"] = .init(data: Array("{\"kit\": 1}".utf8))
        builder.nested[1].files["en.lproj/Share.strings"] = .init(data: Array("\"share\" = \"Share\";".utf8))
        builder.addFile("Frameworks/libswiftCore.dylib", executable(fileType: 6), mode: 0o100755)
        builder.addFile("en.lproj/Localizable.strings", Array("\"a\" = \"b\";".utf8))
        builder.addSymlink("Default@2x.png", to: "AppIcon60x60@2x.png")
        return builder
    }

    /// The profile files and the arguments that name them.
    static func profileArguments(_ scratch: ScratchDirectory) throws -> [String] {
        let app = try scratch.write("app.mobileprovision", ProfileBuilder.signingFixture(.app))
        let share = try scratch.write("share.mobileprovision", ProfileBuilder.signingFixture(.share))
        return ["--profile", app, "--profile", "com.example.sample.share=" + share]
    }

    static func identityArguments(_ p12: SigningFixtures.PKCS12 = .openssl, _ scratch: ScratchDirectory) throws -> [String] {
        let password = try scratch.write("password.txt", Array((SigningFixtures.password + "\n").utf8))
        return ["--identity", p12.path, "--password-file", password]
    }

    static func sign(_ input: String, _ output: String, _ scratch: ScratchDirectory, extra: [String] = []) throws -> Command.Result {
        try Command.ipawrap(
            ["sign", input, "-o", output, "--signing-time", signingTime]
                + (try identityArguments(.openssl, scratch)) + (try profileArguments(scratch)) + extra)
    }

    /// `ipawrap verify` (the verifier of issue 16, independent of the signer) accepts `path`
    /// with no error finding, and so does sigcheck (`../shared/oracles`, sharing no code with
    /// ipawrap), with the test CA as the CMS chain's anchor.
    /// `sigcheckExcept` names the prefixes of sigcheck's lines a test explains.
    static func expectVerifies(
        _ path: String, sigcheckExcept: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let errors = try verifyErrors(path)
        #expect(errors.isEmpty, "verify: \(errors)", sourceLocation: sourceLocation)
        try SigcheckOracle.expectAccepted(path, except: sigcheckExcept, sourceLocation: sourceLocation)
    }

    /// `ipawrap verify --json`'s error findings as "CODE path: message" (or why it failed to run).
    static func verifyErrors(_ path: String) throws -> [String] {
        let result = try Command.ipawrap(["verify", path, "--json"])
        let report = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
        guard let report else { return ["verify printed no report (status \(result.status)): \(result.stderr)"] }
        let errors = (report["findings"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }.map {
            "\($0["code"] as? String ?? "?") \($0["path"] as? String ?? ""): \($0["message"] as? String ?? "")"
        }
        // verify exits 1 exactly when there is an error finding.
        if (result.status == 0) == !errors.isEmpty { return errors + ["verify exited \(result.status): \(result.stderr)"] }
        return errors
    }

    @Test func signsEveryBundleAndTheOutputReadsBack() throws {
        let scratch = try ScratchDirectory("sign")
        let input = try scratch.write("Sample.ipa", Self.app().bytes())
        let output = scratch.path("Sample.signed.ipa")
        let result = try Self.sign(input, output, scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try ZipOracle.unzipTest(output).status == 0)

        let archive = try ZipArchive(path: output)
        let signed = try SignedOutput(archive: archive)
        // Every Mach-O in the app is signed by the test identity, with the bundle IDs.
        #expect(signed.identifiers["Payload/Sample.app/Sample"] == "com.example.sample")
        #expect(signed.identifiers["Payload/Sample.app/Frameworks/Kit.framework/Kit"] == "com.example.kit")
        #expect(signed.identifiers["Payload/Sample.app/PlugIns/Share.appex/Share"] == "com.example.sample.share")
        #expect(signed.identifiers["Payload/Sample.app/Frameworks/libswiftCore.dylib"] == "libswiftCore")
        for (path, report) in signed.problems { Issue.record("\(path): \(report)") }
        #expect(signed.cmsChecked == 4)
        try Self.expectVerifies(output)

        // Each bundle's seal matches its contents: rebuilt independently of the signer from the
        // output's entries and compared by the model.
        let profile = try archive.read(
            #require(archive.entry(named: "Payload/Sample.app/embedded.mobileprovision")), maximumSize: 1 << 20)
        #expect(profile == (try ProfileBuilder.signingFixture(.app)))
        let entitlements = try #require(signed.entitlements["Payload/Sample.app/Sample"])
        #expect(entitlements["application-identifier"]?.string == "ABCDE12345.com.example.sample")
        #expect(signed.entitlements["Payload/Sample.app/Frameworks/Kit.framework/Kit"] == nil)
        // The input is untouched.
        #expect(try Fixtures.bytesAt(input) == Self.app().bytes())
    }

    /// A large re-signed dylib is written by reusing its entry's deflate stream where the bytes
    /// did not change (`DeflateSplice`): the output reads back, with Python's zipfile and Info-ZIP
    /// (inflaters other than ipawrap's), as exactly the signed bytes, and every signature holds.
    @Test func aLargeResignedDylibReusesItsDeflateStreamAndReadsBack() throws {
        let scratch = try ScratchDirectory("sign-splice")
        var builder = Self.app()
        var state: UInt32 = 12345
        let words = ["mov x0, x1\n", "bl _objc_msgSend\n", "ldr x8, [x19]\n", "ret\n", "add sp, sp, #0x40\n"]
        var code: [UInt8] = []
        while code.count < 600_000 {
            state = state &* 1_103_515_245 &+ 12345
            code += Array(words[Int(state >> 16) % words.count].utf8)
        }
        builder.addFile(
            "Frameworks/libswiftFoundation.dylib",
            IPABuilder.executable(fileType: 6) {
                $0.headerPadding = 1024
                $0.code = code
            }, mode: 0o100755)
        let input = try scratch.write("Sample.ipa", builder.bytes())
        let output = scratch.path("Sample.signed.ipa")
        let result = try Self.sign(input, output, scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try ZipOracle.unzipTest(output).status == 0)
        let name = "Payload/Sample.app/Frameworks/libswiftFoundation.dylib"
        let archive = try ZipArchive(path: output)
        let entry = try #require(archive.entry(named: name))
        #expect(entry.method == 8)
        let signed = try archive.read(entry, maximumSize: 1 << 22)
        #expect(signed.count > 600_000)
        // zipfile inflates the entry with zlib and checks its CRC; the bytes match ipawrap's.
        #expect(try ZipOracle.read(name, of: output) == signed)
        try Self.expectVerifies(output)
        // Reproducible.
        let again = scratch.path("again.ipa")
        #expect(try Self.sign(input, again, scratch).status == 0)
        #expect(try Fixtures.bytesAt(again) == Fixtures.bytesAt(output))
    }

    /// Loose code is signed on both cores, but a failure is reported as a single core would: the
    /// first damaged file in the bundle's order, every time.
    @Test func damagedLooseCodeIsReportedInOrderWhateverTheScheduling() throws {
        let scratch = try ScratchDirectory("sign-loose-order")
        var builder = Self.app()
        let damaged = Array(IPABuilder.executable(fileType: 6).prefix(64))
        for name in ["libA", "libB", "libC"] {
            builder.addFile("Frameworks/\(name).dylib", damaged, mode: 0o100755)
        }
        let input = try scratch.write("Sample.ipa", builder.bytes())
        var messages = Set<String>()
        for run in 0..<4 {
            let output = scratch.path("out-\(run).ipa")
            let result = try Self.sign(input, output, scratch)
            #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
            messages.insert(result.stderr)
        }
        #expect(messages.count == 1, "\(messages)")
        #expect(messages.first?.contains("Frameworks/libA.dylib") == true, "\(messages)")
    }

    /// An embedded Info.plist over the 1 MiB bound is refused by `sign` as `verify` refuses it
    /// (`MACHO_SECTION`), naming the file, not signed with special slot 1 left empty.
    @Test func anOversizedEmbeddedInfoPlistIsRefusedAsVerifyRefusesIt() throws {
        let scratch = try ScratchDirectory("sign-big-plist")
        var builder = Self.app()
        let plist = Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>Pad</key><string>".utf8)
            + Array(repeating: UInt8(ascii: "x"), count: 1 << 20) + Array("</string></dict></plist>".utf8)
        builder.addFile(
            "Frameworks/libBig.dylib",
            IPABuilder.executable(fileType: 6) {
                $0.headerPadding = 1024
                $0.infoPlist = plist
            }, mode: 0o100755)
        let input = try scratch.write("Sample.ipa", builder.bytes())
        let output = scratch.path("out.ipa")
        let result = try Self.sign(input, output, scratch)
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("error[MACHO_SECTION]"), "\(result.stderr)")
        #expect(result.stderr.contains("Frameworks/libBig.dylib"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func theSameInputAndSigningTimeGiveTheSameBytes() throws {
        let scratch = try ScratchDirectory("sign-reproducible")
        let input = try scratch.write("Sample.ipa", Self.app().bytes())
        let first = scratch.path("first.ipa")
        let second = scratch.path("second.ipa")
        #expect(try Self.sign(input, first, scratch).status == 0)
        #expect(try Self.sign(input, second, scratch).status == 0)
        #expect(try Fixtures.bytesAt(first) == Fixtures.bytesAt(second))
        try SigcheckOracle.expectAccepted(first)
        // Unchanged entries are copied raw: same names, compressed bytes and CRCs.
        let before = Dictionary(uniqueKeysWithValues: try ZipOracle.entries(input).map { ($0.nameString, $0) })
        let changed = Set(try ZipOracle.entries(first).filter { before[$0.nameString] != $0 }.map(\.nameString))
        #expect(changed == [
            "Payload/Sample.app/Sample", "Payload/Sample.app/_CodeSignature/CodeResources",
            "Payload/Sample.app/embedded.mobileprovision",
            "Payload/Sample.app/Frameworks/Kit.framework/Kit", "Payload/Sample.app/Frameworks/Kit.framework/_CodeSignature/CodeResources",
            "Payload/Sample.app/Frameworks/libswiftCore.dylib",
            "Payload/Sample.app/PlugIns/Share.appex/Share", "Payload/Sample.app/PlugIns/Share.appex/_CodeSignature/CodeResources",
            "Payload/Sample.app/PlugIns/Share.appex/embedded.mobileprovision",
        ])
    }

    /// A binary whose entry deflate did not shrink (stored deflate blocks here; random or
    /// encrypted code in practice) is stored once signed, not deflated again for nothing; the
    /// other signed binaries stay deflated.
    @Test func aBinaryDeflateDidNotShrinkIsStoredOnceSigned() throws {
        let scratch = try ScratchDirectory("sign-stored")
        let built = try scratch.write("built.ipa", Self.app().bytes())
        let input = scratch.path("Sample.ipa")
        let executable = "Payload/Sample.app/Sample"
        let rewrite = try Command.run("python3", ["-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as zin, zipfile.ZipFile(sys.argv[2], "w") as zout:
                for info in zin.infolist():
                    zout.writestr(info, zin.read(info), compresslevel=0 if info.filename == sys.argv[3] else 6)
            """, built, input, executable])
        #expect(rewrite.status == 0, "\(rewrite.stderr)")
        let before = try #require(try ZipOracle.entries(input).first { $0.nameString == executable })
        #expect(before.method == 8 && before.compressedSize > before.fileSize)

        let output = scratch.path("signed.ipa")
        let result = try Self.sign(input, output, scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let after = Dictionary(uniqueKeysWithValues: try ZipOracle.entries(output).map { ($0.nameString, $0) })
        #expect(after[executable]?.method == 0)
        #expect(after["Payload/Sample.app/Frameworks/Kit.framework/Kit"]?.method == 8)
        #expect(try ZipOracle.unzipTest(output).status == 0)
        try Self.expectVerifies(output)
    }

    /// The README's sample app signs, and every signature in it reads back.
    @Test func theSampleAppSigns() throws {
        let scratch = try ScratchDirectory("sign-sample")
        let sample = Fixtures.packageRoot.appendingPathComponent("Samples/Sample.ipa").path
        let output = scratch.path("Sample.signed.ipa")
        let result = try Self.sign(sample, output, scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let signed = try SignedOutput(archive: ZipArchive(path: output))
        for (path, problem) in signed.problems { Issue.record("\(path): \(problem)") }
        #expect(signed.identifiers == [
            "Payload/Sample.app/Sample": "com.example.sample",
            "Payload/Sample.app/Frameworks/Kit.framework/Kit": "com.example.kit",
            "Payload/Sample.app/PlugIns/Share.appex/Share": "com.example.sample.share",
        ])
        #expect(signed.cmsChecked == 3)
        try Self.expectVerifies(output)
    }

    /// A Finder zip (UTF-8 names without the UTF-8 flag) of an app never signed: the
    /// `_CodeSignature/CodeResources` signing adds follows the app folder's entries, unflagged, so
    /// Python's `zipfile` (like 7-Zip and Windows) extracts one app folder, not two (issue 18.4).
    @Test func signingsNewFilesFollowTheFlagOfAFinderZip() throws {
        let scratch = try ScratchDirectory("sign-finder")
        var builder = Self.app()
        builder.appName = "建筑项目平台"
        builder.info["CFBundleExecutable"] = .string(builder.appName)
        builder.signed = false
        let input = try scratch.write("Finder.ipa", builder.bytes())
        let output = scratch.path("Finder.signed.ipa")
        let result = try Self.sign(input, output, scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let entries = try ZipOracle.entries(output)
        let app = "Payload/建筑项目平台.app/"
        #expect(entries.contains { $0.nameString == app + "_CodeSignature/CodeResources" })
        #expect(entries.filter { $0.flags & 0x0800 != 0 }.map(\.nameString) == [])
        #expect(entries.allSatisfy { $0.nameString == "Payload/" || $0.nameString.hasPrefix(app) })
        try SigcheckOracle.expectAccepted(output)
    }

    /// An app as Xcode builds it (fat armv7 + arm64, SHA-1 and SHA-256 CodeDirectories, no icon:
    /// a wrapping rule, a warning for sign), re-signed with the test identity. Its old seal lists two Swift dylibs and a profile that are not
    /// there (`XcodeShapedApp`). A re-signer seals what the bundle holds, as Apple's codesign does,
    /// so the new seal lists only files present and verify finds nothing missing.
    @Test func anXcodeBuildReSealsWhatItHolds() throws {
        let scratch = try ScratchDirectory("sign-xcode")
        try Self.expectReSealsWhatItHolds(
            try XcodeShapedApp.ipa(in: scratch), app: "Payload/\(XcodeShapedApp.appName).app/",
            executable: XcodeShapedApp.appName, identifier: XcodeShapedApp.bundleIdentifier,
            dylib: XcodeShapedApp.dylibPath, dylibIdentifier: XcodeShapedApp.dylibIdentifier,
            profile: try scratch.write("app.mobileprovision", ProfileBuilder.signingFixture(.app)), scratch: scratch)
    }

    /// The same on a real Xcode 7.2 build, isign's `Test.app` (iOS 9.2, in `../shared`), whose
    /// old seal lists eight Swift dylibs and a profile that upstream trimmed.
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func theIsignFixtureReSealsWhatItHolds() throws {
        let scratch = try ScratchDirectory("sign-isign")
        try Self.expectReSealsWhatItHolds(
            try IsignFixture.ipa(in: scratch), app: "Payload/Test.app/", executable: "isignTestApp",
            identifier: "com.saucelabs.isignTestApp", dylib: "Frameworks/libswiftContacts.dylib",
            dylibIdentifier: "com.apple.dt.runtime.swiftContacts",  // from its embedded Info.plist, as Xcode 7.2 signed it
            profile: try scratch.write("isign.mobileprovision", ProfileBuilder.signingFixture(.isign)), scratch: scratch)
    }

    static func expectReSealsWhatItHolds(
        _ input: String, app: String, executable: String, identifier: String, dylib: String, dylibIdentifier: String,
        profile: String, scratch: ScratchDirectory
    ) throws {
        let output = scratch.path("signed.ipa")
        let result = try Command.ipawrap(
            ["sign", input, "-o", output, "--signing-time", Self.signingTime]
                + (try Self.identityArguments(.openssl, scratch)) + ["--profile", profile])
        try #require(result.status == 0, "\(result.stdout)\(result.stderr)")
        let archive = try ZipArchive(path: output)
        let signed = try SignedOutput(archive: archive)
        for (path, problem) in signed.problems { Issue.record("\(path): \(problem)") }
        #expect(signed.identifiers[app + executable] == identifier)
        #expect(signed.identifiers[app + dylib] == dylibIdentifier)
        let seal = try CodeResources(
            bytes: archive.read(#require(archive.entry(named: app + "_CodeSignature/CodeResources")), maximumSize: 1 << 20))
        let sealed = (seal.files2 ?? []).map(\.path)
        #expect(sealed.contains(dylib) && sealed.contains("embedded.mobileprovision"))
        for path in sealed { #expect(archive.entry(named: app + path) != nil, "sealed but absent: \(path)") }
        // SHA-1 + SHA-256 CodeDirectories, both listed in CDHashes2 as Xcode 12 and later list them.
        try Self.expectVerifies(output)
        try SigcheckOracle.expectAccepted(output)
    }

    /// A Keychain Access export carries the leaf alone: the issuers in Templates/certificates
    /// complete the chain when they issued the leaf (by name and signature). Stand-ins for Apple's
    /// WWDR and root (the test CA) in a copy of Templates are taken, so `openssl cms -verify`
    /// with only the test root builds the chain; Apple's real ones, which did not issue the test
    /// leaf, are not, and the signatures carry no chain.
    @Test func aKeychainExportGetsItsChainFromTemplates() throws {
        let scratch = try ScratchDirectory("sign-keychain")
        let input = try scratch.write("Sample.ipa", Self.app().bytes())
        let shipped = Fixtures.packageRoot.appendingPathComponent("Templates").path
        let templates = scratch.path("Templates")
        let files = FileManager.default
        try files.copyItem(atPath: shipped, toPath: templates)
        #expect(try files.contentsOfDirectory(atPath: templates + "/certificates").sorted() == ["AppleRootCA.cer", "AppleWWDRCAG3.cer"])
        try files.removeItem(atPath: templates + "/certificates/AppleRootCA.cer")
        try files.removeItem(atPath: templates + "/certificates/AppleWWDRCAG3.cer")
        try files.copyItem(atPath: SigningFixtures.path("root.cer"), toPath: templates + "/certificates/AppleRootCA.cer")
        try files.copyItem(atPath: SigningFixtures.path("wwdr.cer"), toPath: templates + "/certificates/AppleWWDRCAG3.cer")
        let arguments = (try Self.identityArguments(.keychain, scratch)) + (try Self.profileArguments(scratch))
            + ["--signing-time", Self.signingTime]

        let chained = scratch.path("chained.ipa")
        let first = try Command.ipawrap(["sign", input, "-o", chained] + arguments, environment: ["IPAWRAP_TEMPLATES": templates])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let signed = try SignedOutput(archive: ZipArchive(path: chained))
        #expect(signed.cmsChecked == 4)
        for (path, problem) in signed.problems { Issue.record("\(path): \(problem)") }
        try SigcheckOracle.expectAccepted(chained)

        let unchained = scratch.path("unchained.ipa")
        let second = try Command.ipawrap(["sign", input, "-o", unchained] + arguments, environment: ["IPAWRAP_TEMPLATES": shipped])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        let alone = try SignedOutput(archive: ZipArchive(path: unchained))
        #expect(alone.cmsChecked == 4)
        #expect(alone.problems.count == 4, "openssl cannot reach the test root without the intermediate: \(alone.problems)")
        // Nor can sigcheck's `openssl cms -verify`; everything else must hold.
        try SigcheckOracle.expectAccepted(unchained, except: ["CMS "])

        // --templates is the one source when given, ahead of IPAWRAP_TEMPLATES, for sign and wrap --sign.
        let named = scratch.path("named.ipa")
        let third = try Command.ipawrap(
            ["sign", input, "-o", named, "--templates", templates] + arguments, environment: ["IPAWRAP_TEMPLATES": shipped])
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        #expect(try Fixtures.bytesAt(named) == (try Fixtures.bytesAt(chained)))
        let wrapped = scratch.path("wrapped.ipa")
        let fourth = try Command.ipawrap(
            ["wrap", input, "-o", wrapped, "--sign", "--templates", templates] + arguments, environment: ["IPAWRAP_TEMPLATES": shipped])
        #expect(fourth.status == 0, "\(fourth.stdout)\(fourth.stderr)")
        let wrappedSigned = try SignedOutput(archive: ZipArchive(path: wrapped))
        #expect(wrappedSigned.cmsChecked == 4)
        for (path, problem) in wrappedSigned.problems { Issue.record("wrap --sign: \(path): \(problem)") }
        try SigcheckOracle.expectAccepted(wrapped)
    }

    /// Signing an app that is already signed (by ipawrap, with another key type and time)
    /// replaces every signature in the space the old one had.
    @Test func reSigningASignedApp() throws {
        let scratch = try ScratchDirectory("sign-again")
        let input = try scratch.write("Sample.ipa", Self.app().bytes())
        let first = scratch.path("first.ipa")
        #expect(try Self.sign(input, first, scratch).status == 0)
        try SigcheckOracle.expectAccepted(first)
        let again = scratch.path("again.ipa")
        let result = try Command.ipawrap(
            ["sign", first, "-o", again, "--signing-time", "1767312000"]
                + (try Self.identityArguments(.ec, scratch)) + (try Self.profileArguments(scratch)))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let signed = try SignedOutput(archive: ZipArchive(path: again))
        for (path, problem) in signed.problems { Issue.record("\(path): \(problem)") }
        #expect(signed.cmsChecked == 4)
        try Self.expectVerifies(again)
        // The old LC_CODE_SIGNATURE space was reused: the binaries kept their size.
        let before = try ZipArchive(path: first)
        let after = try ZipArchive(path: again)
        for path in try SignedOutput.machOPaths(before) {
            #expect(before.entry(named: path)?.uncompressedSize == after.entry(named: path)?.uncompressedSize, "\(path)")
        }
    }

    /// A fat armv7 + arm64 executable (armv7 for iOS 10: a SHA-1 CodeDirectory first, then
    /// SHA-256) and a watch app with its own profile.
    @Test func fatBinaryAndWatchApp() throws {
        let scratch = try ScratchDirectory("sign-fat")
        var builder = Self.app()
        var armv7 = MachOBuilder()
        armv7.cpuType = 12
        armv7.cpuSubtype = 9
        armv7.is64Bit = false
        armv7.version = .versionMin(command: 0x25, minOS: "10.0", sdk: "17.2")
        armv7.headerPadding = 1024
        var arm64 = MachOBuilder()
        arm64.version = .iOS("15.0", sdk: "17.2")
        arm64.headerPadding = 1024
        builder.executable = MachOBuilder.fat([.init(armv7), .init(arm64)])
        var watchInfo = IPABuilder.infoPlist(name: "Watch", bundleIdentifier: "com.example.sample.watchkitapp")
        watchInfo["WKCompanionAppBundleIdentifier"] = "com.example.sample"
        watchInfo["WKWatchKitApp"] = true
        builder.nested.append(IPABuilder.Nested(path: "Watch/Watch.app", info: watchInfo, executable: Self.executable()))
        let input = try scratch.write("Sample.ipa", builder.bytes())
        let watch = try scratch.write("watch.mobileprovision", ProfileBuilder.signingFixture(.watch))
        let output = scratch.path("out.ipa")
        let result = try Self.sign(input, output, scratch, extra: ["--profile", "com.example.sample.watchkitapp=" + watch])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let archive = try ZipArchive(path: output)
        let signed = try SignedOutput(archive: archive)
        for (path, problem) in signed.problems { Issue.record("\(path): \(problem)") }
        #expect(signed.cmsChecked == 6)  // two slices of the app, Kit, the dylib, Share, Watch
        #expect(signed.identifiers["Payload/Sample.app/Watch/Watch.app/Watch"] == "com.example.sample.watchkitapp")
        // The armv7 slice carries SHA-1 and SHA-256 CodeDirectories; CDHashes2 lists the SHA-256 one only.
        try Self.expectVerifies(output)
        let bytes = try archive.read(#require(archive.entry(named: "Payload/Sample.app/Sample")), maximumSize: 1 << 24)
        let file = try MachOFile(bytes: bytes)
        #expect(file.architectureNames == ["armv7", "arm64"])
        for slice in file.slices {
            let range = try #require(slice.codeSignatureRange)
            let start = Int(slice.offset) + Int(range.offset)
            let signature = try EmbeddedSignature(bytes: Array(bytes[start..<(start + Int(range.size))]))
            let types = signature.codeDirectories.map(\.hashType)
            #expect(types == (slice.architecture.name == "armv7" ? [.sha1, .sha256] : [.sha256]), "\(slice.architecture.name)")
            // Fat slices stay aligned to 2^14.
            #expect(slice.offset % (1 << 14) == 0)
        }
    }

    @Test func errorsWriteNothing() throws {
        let scratch = try ScratchDirectory("sign-errors")
        let input = try scratch.write("Sample.ipa", Self.app().bytes())
        let output = scratch.path("out.ipa")
        let profiles = try Self.profileArguments(scratch)
        let cases: [(arguments: [String], code: String, status: Int32)] = [
            (try Self.identityArguments(.otherTeam, scratch), "SIGN_CERTIFICATE_NOT_IN_PROFILE", 64),
            (try Self.identityArguments(.expired, scratch), "IDENTITY_CERTIFICATE_EXPIRED", 65),
            (["--identity", SigningFixtures.PKCS12.openssl.path, "--password-env", "IPAWRAP_TEST_WRONG"], "IDENTITY_WRONG_PASSWORD", 65),
        ]
        for (arguments, code, status) in cases {
            let result = try Command.ipawrap(
                ["sign", input, "-o", output, "--signing-time", Self.signingTime] + arguments + profiles,
                environment: ["IPAWRAP_TEST_WRONG": "not-the-password"])
            #expect(result.status == status, "\(code): \(result.stderr)")
            #expect(result.stderr.contains(code), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        // An entitlement the profile does not grant.
        let entitlements = try scratch.write("extra.plist", Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>com.apple.developer.healthkit</key><true/></dict></plist>
            """.utf8))
        let denied = try Self.sign(input, output, scratch, extra: ["--entitlements", "com.example.sample=" + entitlements])
        #expect(denied.status == 64, "\(denied.stderr)")
        #expect(denied.stderr.contains("SIGN_ENTITLEMENT_NOT_GRANTED"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// `--entitlements BUNDLE_ID=FILE` is split once, at its first `=`; a malformed value, a file that
    /// cannot be read and one that is not a dictionary are SIGN_ENTITLEMENTS_FILE (64, docs/signing.md), one
    /// line each, and nothing is written.
    @Test func malformedEntitlementsArgumentsAreRefused() throws {
        let scratch = try ScratchDirectory("sign-entitlements")
        let input = try scratch.write("Sample.ipa", Self.app().bytes())
        let output = scratch.path("out.ipa")
        let array = try scratch.write("array.plist", Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array><string>not a dictionary</string></array></plist>
            """.utf8))
        let cases: [(argument: String, message: String)] = [
            ("com.example.sample", "--entitlements expects BUNDLE_ID=FILE, got 'com.example.sample'"),
            ("=" + array, "--entitlements expects BUNDLE_ID=FILE, got '=\(array)'"),
            ("com.example.sample=" + scratch.path("missing.plist"), "\(scratch.path("missing.plist")): cannot be read"),
            // Split at the first '=': the file is 'x=array.plist', which does not exist.
            ("com.example.sample=x=" + array, "x=\(array): cannot be read"),
            ("com.example.sample=" + array, "\(array) is not a property list holding a dictionary"),
        ]
        for (argument, message) in cases {
            let result = try Self.sign(input, output, scratch, extra: ["--entitlements", argument])
            #expect(result.status == 64, "\(argument): \(result.stderr)")
            #expect(result.stderr.hasPrefix("ipawrap: error[SIGN_ENTITLEMENTS_FILE]: " + message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }
}

/// Reads every Mach-O of a signed archive back with the signature model and checks it: code
/// page hashes recomputed, special slots against the files they name, the CMS with
/// `openssl cms -verify` against the test root.
struct SignedOutput {
    var identifiers: [String: String] = [:]
    var entitlements: [String: PropertyListDictionary] = [:]
    var problems: [(String, String)] = []
    var cmsChecked = 0

    init(archive: ZipArchive) throws {
        let scratch = try ScratchDirectory("signed-output")
        // The app's code; SwiftSupport/ beside it keeps Apple's signatures and is not re-signed.
        for entry in archive.entries where entry.kind == .file && entry.path.hasPrefix("Payload/") {
            let bytes = try archive.read(entry, maximumSize: 256 << 20)
            guard bytes.count >= 8, MachOFile.isMachO(prefix: bytes.prefix(8)) else { continue }
            let path = entry.path
            let file = try MachOFile(bytes: bytes)
            for slice in file.slices {
                guard let range = slice.codeSignatureRange else {
                    problems.append((path, "slice \(slice.architecture.name) has no LC_CODE_SIGNATURE"))
                    continue
                }
                let start = Int(slice.offset) + Int(range.offset)
                let signatureBytes = Array(bytes[start..<(start + Int(range.size))])
                let signature = try EmbeddedSignature(bytes: signatureBytes)
                guard let directory = signature.codeDirectory else {
                    problems.append((path, "no CodeDirectory"))
                    continue
                }
                identifiers[path] = directory.identifier
                #expect(directory.teamIdentifier == "ABCDE12345", "\(path)")
                #expect(directory.codeLimit == range.offset, "\(path)")
                // Page hashes, recomputed from the output's bytes.
                for candidate in signature.codeDirectories {
                    var source = InMemoryByteSource(Array(bytes[Int(slice.offset)..<Int(slice.offset + slice.size)]))
                    let hashes = try CodePageHasher.hashPages(
                        of: &source, offset: 0, length: candidate.codeLimit, pageSizeLog2: candidate.pageSizeLog2,
                        hashTypes: [candidate.hashType])
                    if hashes.first != candidate.codeSlots {
                        problems.append((path, "the \(candidate.hashType) page hashes differ"))
                    }
                    if let requirements = signature.requirements,
                        candidate.hash(for: .requirements) != candidate.hashType.digest(try requirements.serialized())
                    {
                        problems.append((path, "the requirements slot differs"))
                    }
                }
                if let xml = signature.entitlements {
                    let dictionary = try xml.dictionary()
                    entitlements[path] = dictionary
                    if directory.hash(for: .entitlements) != directory.hashType.digest(try xml.blob()) {
                        problems.append((path, "the entitlements slot differs"))
                    }
                }
                // The CMS, by openssl against the test root.
                let cms = try #require(signature.cmsSignature)
                let cmsPath = try scratch.write("cms.der", cms)
                let contentPath = try scratch.write("cd.bin", directory.bytes)
                let verify = try Command.run(
                    "openssl",
                    ["cms", "-verify", "-binary", "-inform", "DER", "-in", cmsPath, "-content", contentPath,
                     "-CAfile", SigningFixtures.rootPEM, "-purpose", "any", "-out", "/dev/null"])
                if verify.status != 0 { problems.append((path, "openssl cms -verify: \(verify.stderr)")) }
                cmsChecked += 1
            }
            // Bundles: the Info.plist and CodeResources slots.
            let folder = (path as NSString).deletingLastPathComponent
            if let directory = try EmbeddedSignature(bytes: Self.signature(of: bytes, file: file)).codeDirectory,
                let resources = archive.entry(named: folder + "/_CodeSignature/CodeResources")
            {
                let seal = try archive.read(resources, maximumSize: 16 << 20)
                if directory.hash(for: .resourceDirectory) != directory.hashType.digest(seal) {
                    problems.append((path, "the CodeResources slot differs"))
                }
                if let info = archive.entry(named: folder + "/Info.plist"),
                    directory.hash(for: .infoPlist) != directory.hashType.digest(try archive.read(info, maximumSize: 1 << 20))
                {
                    problems.append((path, "the Info.plist slot differs"))
                }
            }
        }
    }

    static func signature(of bytes: [UInt8], file: MachOFile) throws -> [UInt8] {
        guard let slice = file.slices.first, let range = slice.codeSignatureRange else { return [] }
        let start = Int(slice.offset) + Int(range.offset)
        return Array(bytes[start..<(start + Int(range.size))])
    }
}

extension SignedOutput {
    /// Archive paths of every Mach-O file.
    static func machOPaths(_ archive: ZipArchive) throws -> [String] {
        var paths: [String] = []
        for entry in archive.entries where entry.kind == .file && entry.uncompressedSize >= 8 && entry.path.hasPrefix("Payload/") {
            let source = archive.byteSource(for: entry)
            if MachOFile.isMachO(prefix: try source.read(offset: 0, count: 8)) { paths.append(entry.path) }
        }
        return paths
    }

    /// The CodeDirectory of `hashType` in the first slice of the Mach-O at `path`.
    static func codeDirectory(_ path: String, in archive: ZipArchive, hashType: HashType) throws -> CodeDirectory {
        let entry = try #require(archive.entry(named: path))
        let bytes = try archive.read(entry, maximumSize: 256 << 20)
        let signature = try EmbeddedSignature(bytes: signature(of: bytes, file: MachOFile(bytes: bytes)))
        return try #require(signature.codeDirectory(hashType: hashType), "\(path) has no \(hashType) CodeDirectory")
    }
}
