import CodeSignature
import Foundation
import Testing
import TestSupport
import Zip

/// A framework laid out the macOS way, as some SDK vendors ship them for iOS: the executable is
/// `Versions/A/Kit`, reached through `Versions/Current -> A` and `Kit -> Versions/Current/Kit`.
/// The real file is signed, the symlinks stay symlinks and are sealed as such, and the result
/// verifies; a symlinked executable that leaves the framework is refused.
@Suite struct VersionedFrameworkTests {
    static func app(executableLink: String = "Versions/Current/Kit") -> IPABuilder {
        var builder = SignCommandTests.app()
        builder.nested[0].executable = nil
        builder.nested[0].files["Versions/A/Kit"] = IPABuilder.File(data: SignCommandTests.executable(fileType: 6), mode: 0o100755)
        builder.nested[0].files["Versions/Current"] = IPABuilder.File(data: Array("A".utf8), mode: 0o120755, symlinkTarget: "A")
        builder.nested[0].files["Kit"] = IPABuilder.File(
            data: Array(executableLink.utf8), mode: 0o120755, symlinkTarget: executableLink)
        return builder
    }

    static let framework = "Payload/Sample.app/Frameworks/Kit.framework/"

    @Test func theRealFileIsSignedAndTheSymlinksAreSealedAsSymlinks() throws {
        let scratch = try ScratchDirectory("sign-versioned")
        let input = try scratch.write("Sample.ipa", Self.app().bytes())
        let output = scratch.path("signed.ipa")
        let result = try SignCommandTests.sign(input, output, scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try ZipOracle.unzipTest(output).status == 0)

        let archive = try ZipArchive(path: output)
        let signed = try SignedOutput(archive: archive)
        #expect(signed.identifiers[Self.framework + "Versions/A/Kit"] == "com.example.kit")
        for (path, problem) in signed.problems { Issue.record("\(path): \(problem)") }
        #expect(signed.cmsChecked == 4)
        // The links are still links, to the same places.
        for (link, target) in [("Kit", "Versions/Current/Kit"), ("Versions/Current", "A")] {
            let entry = try #require(archive.entry(named: Self.framework + link))
            #expect(entry.kind == .symlink)
            #expect(archive.symlinkTarget(of: entry) == target)
        }
        // The framework's seal: both links by target, the signed file left out (its signature
        // covers it, and it carries the seal's hash), the other files by digest.
        let seal = try CodeResources(
            bytes: archive.read(try #require(archive.entry(named: Self.framework + "_CodeSignature/CodeResources")), maximumSize: 1 << 20))
        #expect(seal.seal(for: "Kit")?.content == .symlink(target: "Versions/Current/Kit"))
        #expect(seal.seal(for: "Versions/Current")?.content == .symlink(target: "A"))
        #expect(seal.seal(for: "Versions/A/Kit") == nil)
        #expect((seal.files2 ?? []).map(\.path).sorted() == ["Kit", "Resources/kit.json", "Versions/Current"])
        // files (version 1) lists regular files only (Info.plist too: only rules2 omit it).
        #expect((seal.files ?? []).map(\.path) == ["Info.plist", "Resources/kit.json"])
        // sigcheck does not follow a framework's executable symlink: it takes `Versions/A/Kit` for a
        // loose Mach-O with no Info.plist or seal of its own, and so flags the two special slots
        // that bind the framework's (verify checks them against the framework's files).
        let versioned = "SLOT Payload/Sample.app/Frameworks/Kit.framework/Versions/A/Kit "
        try SignCommandTests.expectVerifies(output, sigcheckExcept: [versioned])
        let flagged = try SigcheckOracle.isAvailable ? SigcheckOracle.problemsWithTestCA(in: output) : []
        #expect(flagged.allSatisfy { $0.hasPrefix(versioned) && ($0.contains("slot 1 ") || $0.contains("slot 3 ")) }, "\(flagged)")

        // The link pointed elsewhere, at the same file even: the seal of the link breaks.
        let other = try scratch.write("other.ipa", Self.app(executableLink: "Versions/A/Kit").bytes())
        let repointed = scratch.path("repointed.ipa")
        try ZipOracle.swapEntries(under: Self.framework + "Kit", of: output, from: other, to: repointed)
        let errors = try SignCommandTests.verifyErrors(repointed)
        // The framework's seal and the app's (which seals the framework's files too) both say so.
        #expect(Set(errors.map { String($0.prefix { $0 != ":" }) }) == ["SIGNATURE_SEAL_BROKEN \(Self.framework)Kit"], "\(errors)")
    }

    @Test func anExecutableLinkLeavingTheFrameworkIsRefused() throws {
        let scratch = try ScratchDirectory("sign-versioned-escape")
        // Inside the app, outside the framework: the archive opens, the framework has no
        // executable of its own, which the checks that gate signing refuse.
        let input = try scratch.write("Sample.ipa", Self.app(executableLink: "../libswiftCore.dylib").bytes())
        let output = scratch.path("signed.ipa")
        let result = try SignCommandTests.sign(input, output, scratch)
        #expect(result.status == 1)
        #expect(result.stdout.contains("EXECUTABLE_MISSING"), "\(result.stdout)\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))

        // Outside the app: the archive's own rule refuses it on open.
        let escaping = try scratch.write("Escaping.ipa", Self.app(executableLink: "../../../../etc/passwd").bytes())
        let refused = try SignCommandTests.sign(escaping, output, scratch)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("ARCHIVE_SYMLINK_ESCAPE"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
