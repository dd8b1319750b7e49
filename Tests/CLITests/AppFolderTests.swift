import Foundation
import Testing
import TestSupport

/// Issue 18, item 8: an unzipped `.app` folder or an Xcode `.xcarchive` given where an IPA is
/// expected is read as the IPA `xcodebuild -exportArchive` would write from it, under the
/// archive's safety rules.
@Suite struct AppFolderTests {
    /// An Xcode-exported app: an icon, a framework, an extension, a symlink and an executable dylib.
    static func app() -> IPABuilder {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.addFramework("Kit", bundleIdentifier: "com.example.kit")
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        builder.addFile("Frameworks/libswiftCore.dylib", IPABuilder.executable(fileType: 6), mode: 0o100755)
        builder.addFile("en.lproj/Localizable.strings", Array("\"a\" = \"b\";".utf8))
        builder.addSymlink("Default@2x.png", to: "AppIcon60x60@2x.png")
        return builder
    }

    /// `inspect --json`'s report without its `input` section (the one part that names the file),
    /// as canonical JSON.
    static func reportWithoutInput(_ path: String, command: String = "inspect") throws -> (status: Int32, json: String) {
        let result = try Command.ipawrap([command, path, "--json", "--at", "2026-06-01"])
        var report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
        report["input"] = nil
        let canonical = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys, .prettyPrinted])
        return (result.status, String(decoding: canonical, as: UTF8.self))
    }

    @Test func inspectAndCheckOfTheFolderAndTheXcarchiveEqualThoseOfTheIPA() throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let bytes = try Self.app().bytes()
        let ipa = try scratch.write("Sample.ipa", bytes)
        let app = try AppFolders.unpack(bytes, in: scratch)
        let xcarchive = try AppFolders.xcarchive(holding: app, in: scratch)
        for command in ["inspect", "check"] {
            let expected = try Self.reportWithoutInput(ipa, command: command)
            #expect(expected.status == 0)
            #expect(expected.json.contains("Kit.framework"))
            for folder in [app, xcarchive, app + "/"] {
                let actual = try Self.reportWithoutInput(folder, command: command)
                #expect(actual.status == expected.status, "\(command) \(folder)")
                #expect(actual.json == expected.json, "\(command) \(folder)")
            }
        }
        let text = try Command.ipawrap(["inspect", xcarchive])
        #expect(text.status == 0)
        #expect(text.stdout.contains("Archive    \(xcarchive), "), "\(text.stdout)")
    }

    @Test func theIconOfAFolderIsTheIconOfTheIPA() throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let bytes = try Self.app().bytes()
        let ipa = try scratch.write("Sample.ipa", bytes)
        let xcarchive = try AppFolders.xcarchive(holding: try AppFolders.unpack(bytes, in: scratch), in: scratch)
        let fromIPA = try Command.ipawrap(["icon", ipa, "-o", scratch.path("ipa.png")])
        let fromArchive = try Command.ipawrap(["icon", xcarchive, "-o", scratch.path("xcarchive.png")])
        #expect(fromIPA.status == 0 && fromArchive.status == 0, "\(fromArchive.stderr)")
        let png = try Data(contentsOf: URL(fileURLWithPath: scratch.path("xcarchive.png")))
        #expect(png.count > 100)
        #expect(png == (try Data(contentsOf: URL(fileURLWithPath: scratch.path("ipa.png")))))
    }

    @Test func readingAFolderLeavesNoTemporaryFileAndTheFolderUntouched() throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let app = try AppFolders.unpack(try Self.app().bytes(), in: scratch)
        let temporary = scratch.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let before = scratch.listing()
        for command in [["inspect", app], ["check", app, "--json"], ["inspect", app, "--max-entries", "3"]] {
            _ = try Command.ipawrap(command, environment: ["TMPDIR": temporary])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
        #expect(scratch.listing() == before)
    }

    @Test func wrapOfAnXcarchiveWritesTheIPAXcodeWouldExport() throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let app = try AppFolders.unpack(try Self.app().bytes(), in: scratch)
        let xcarchive = try AppFolders.xcarchive(holding: app, in: scratch)
        let output = scratch.path("Wrapped.ipa")
        let result = try Command.ipawrap(["wrap", xcarchive, "-o", output])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try ZipOracle.unzipTest(output).status == 0)

        let entries = try ZipOracle.entries(output)
        let names = entries.map(\.nameString)
        #expect(names.first == "Payload/")
        #expect(names.allSatisfy { $0.hasPrefix("Payload/Sample.app/") || $0 == "Payload/" }, "\(names)")
        #expect(!names.contains { $0.contains("dSYM") || $0.hasSuffix("Info.plist") && !$0.hasPrefix("Payload/Sample.app") })
        let byName = Dictionary(uniqueKeysWithValues: entries.map { ($0.nameString, $0) })
        let link = try #require(byName["Payload/Sample.app/Default@2x.png"])
        #expect(link.mode & 0o170000 == 0o120000 && link.symlinkTarget == "AppIcon60x60@2x.png")
        #expect(byName["Payload/Sample.app/Frameworks/libswiftCore.dylib"]?.mode == 0o100755)
        #expect(byName["Payload/Sample.app/en.lproj/Localizable.strings"]?.mode == 0o100644)
        #expect(byName["Payload/Sample.app/Assets.car"].map { $0.method == 8 } ?? true)
        #expect(entries.contains { $0.method == 8 }, "added files are deflated")
        #expect(byName["Payload/Sample.app/MDXPolicy.bundle/policy_metadata.xml"] != nil)
        // The folder's entries in name order, parents first.
        let packed = names.filter { !$0.contains("MDXPolicy.bundle") }
        #expect(packed == packed.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })

        let again = scratch.path("Again.ipa")
        #expect(try Command.ipawrap(["wrap", xcarchive, "-o", again]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(contentsOf: URL(fileURLWithPath: again)))
        let fromApp = scratch.path("FromApp.ipa")
        #expect(try Command.ipawrap(["wrap", app, "-o", fromApp]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(contentsOf: URL(fileURLWithPath: fromApp)))
    }

    // MARK: Hostile folders

    static func expectRefused(
        _ folder: String, code: String, naming: [String], status: Int32 = 65, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for command in [["inspect", folder], ["check", folder, "--json"], ["wrap", folder, "-o", folder + ".out.ipa"]] {
            let result = try Command.ipawrap(command)
            #expect(result.status == status, "\(command): \(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(code), "\(command): \(result.stderr)", sourceLocation: sourceLocation)
            for name in naming {
                #expect(result.stderr.contains(name), "\(command): \(result.stderr)", sourceLocation: sourceLocation)
            }
            #expect(!FileManager.default.fileExists(atPath: folder + ".out.ipa"), sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: ["/etc/passwd", "../../../outside", "../Other.app/Info.plist", "Frameworks/../../x"])
    func symlinksThatLeaveTheAppAreRefused(target: String) throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let app = try AppFolders.unpack(try Self.app().bytes(), in: scratch)
        try FileManager.default.createSymbolicLink(atPath: app + "/leak", withDestinationPath: target)
        try Self.expectRefused(app, code: "ARCHIVE_SYMLINK_ESCAPE", naming: [app, "leak", target])
    }

    @Test func aFIFOInsideTheAppIsRefusedUnopened() throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let app = try AppFolders.unpack(try Self.app().bytes(), in: scratch)
        #expect(mkfifo(app + "/Frameworks/pipe", 0o644) == 0)
        // Opening a FIFO nobody writes to would block: the command returning at all is half the test.
        try Self.expectRefused(app, code: "ARCHIVE_SPECIAL_FILE", naming: ["Frameworks/pipe", "FIFO"])
        let xcarchive = try AppFolders.xcarchive(holding: app, in: scratch)
        try Self.expectRefused(xcarchive, code: "ARCHIVE_SPECIAL_FILE", naming: ["Frameworks/pipe"])
    }

    @Test func anXcarchiveWithTwoAppsNamesBoth() throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let app = try AppFolders.unpack(try Self.app().bytes(), in: scratch)
        let xcarchive = try AppFolders.xcarchive(holding: app, in: scratch)
        #expect(try Command.run("cp", ["-a", app, xcarchive + "/Products/Applications/Other.app"]).status == 0)
        try Self.expectRefused(
            xcarchive, code: "ARCHIVE_MULTIPLE_APPS",
            naming: ["2 apps", "Products/Applications/Other.app", "Products/Applications/Sample.app"])
    }

    @Test func anXcarchiveWithoutAnAppSaysWhereItShouldBe() throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let xcarchive = scratch.path("Empty.xcarchive")
        try FileManager.default.createDirectory(atPath: xcarchive + "/Products/Applications", withIntermediateDirectories: true)
        try Self.expectRefused(xcarchive, code: "ARCHIVE_NO_APP", naming: ["Products/Applications/<Name>.app/"])
    }

    @Test func namesThatDifferOnlyInCaseOrNormalizationAreRefused() throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let app = try AppFolders.unpack(try Self.app().bytes(), in: scratch, folder: "case")
        try Data("x".utf8).write(to: URL(fileURLWithPath: app + "/en.lproj/localizable.strings"))
        try Self.expectRefused(app, code: "ARCHIVE_CASE_COLLISION", naming: ["Localizable.strings", "localizable.strings"])

        let twins = try AppFolders.unpack(try Self.app().bytes(), in: scratch, folder: "twins")
        try Data("composed".utf8).write(to: URL(fileURLWithPath: twins + "/caf\u{E9}.txt"))
        try Data("decomposed".utf8).write(to: URL(fileURLWithPath: twins + "/cafe\u{301}.txt"))
        try Self.expectRefused(twins, code: "ARCHIVE_DUPLICATE_NAME", naming: [twins])
    }

    @Test func theLimitsApplyWhileTheFolderIsWalked() throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let app = try AppFolders.unpack(try Self.app().bytes(), in: scratch)
        let entries = try Command.ipawrap(["inspect", app, "--max-entries", "5"])
        #expect(entries.status == 65 && entries.stderr.contains("ARCHIVE_TOO_MANY_ENTRIES"), "\(entries.stderr)")
        let size = try Command.ipawrap(["inspect", app, "--max-total-size", "1000"])
        #expect(size.status == 65 && size.stderr.contains("ARCHIVE_TOTAL_SIZE_LIMIT"), "\(size.stderr)")
    }

    @Test func aFolderThatIsNeitherAnAppNorAnXcarchiveIsStillAUsageError() throws {
        let scratch = try ScratchDirectory("cli-app-folder")
        let app = try AppFolders.unpack(try Self.app().bytes(), in: scratch)
        // The folder around Payload/, as unzip leaves it.
        let around = URL(fileURLWithPath: app).deletingLastPathComponent().deletingLastPathComponent().path
        let result = try Command.ipawrap(["inspect", around])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("INPUT_IS_FOLDER") && result.stderr.contains(".xcarchive"), "\(result.stderr)")
    }
}
