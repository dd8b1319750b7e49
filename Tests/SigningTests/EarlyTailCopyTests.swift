import AppBundle
import Foundation
import ProvisioningProfile
import Signing
import SigningIdentity
import Testing
import TestSupport
import Zip

/// The main executable's entry size is known before its signature: stored (deflate did not
/// shrink it: encrypted or random code), from its signature's layout; deflated, once its code is
/// written, as that code's stream with the signature stored after it. The entries after it are
/// copied to where they go while the resources are hashed (`RepackForecast`). The output is the
/// same bytes as without that copy, and a signature both verifiers accept.
@Suite struct EarlyTailCopyTests {
    /// The signing test app (a framework, an extension, a loose dylib) with a stored executable
    /// and resources after it.
    static func app() -> IPABuilder {
        var builder = SignCommandTests.app()
        builder.storesExecutable = true
        for index in 0..<24 {
            builder.files["Resources/blob-\(index).bin"] = .init(data: Noise.bytes(20_000, seed: UInt64(index + 1)))
        }
        return builder
    }

    /// An executable with 400 KB of code that deflates as code does, to about half (instructions
    /// of four kinds with random operands), in many blocks: far past the 64 KiB a stream's blocks
    /// are reused from.
    static func codeExecutable() -> [UInt8] {
        IPABuilder.executable { machO in
            machO.headerPadding = 1024
            machO.code = Noise.code(instructions: 100_000, seed: 7)
        }
    }

    /// Signs `input` through the library and writes it to `output`, continuing an early copy or not.
    static func librarySign(_ input: String, to output: String, early: Bool) throws -> RepackSummary {
        let archive = try AppArchive(path: input)
        var profiles: [BundleProfile] = []
        for (id, fixture) in [("com.example.sample", ProfileBuilder.SigningFixture.app), ("com.example.sample.share", .share)] {
            let bytes = try ProfileBuilder.signingFixture(fixture)
            let bundle = try #require(archive.allBundles.first { $0.bundleIdentifier == id })
            profiles.append(BundleProfile(bundlePath: bundle.path, profile: try ProvisioningProfile(bytes: bytes), profileBytes: bytes, file: id))
        }
        let identity = try SigningIdentity(
            pkcs12File: SigningFixtures.PKCS12.openssl.path, password: Array(SigningFixtures.password.utf8))
        let zip = archive.archive.zip
        var copy: EarlyCopy?
        if early {
            let made: EarlyCopy = try #require(EarlyCopy(zip, destination: output, startingNow: false))
            copy = made
        }
        let signed = try ArchiveSigner.sign(
            archive, profiles: profiles,
            request: SigningRequest(identity: identity, signingTime: Date(timeIntervalSince1970: 1_767_225_600)),
            startingEarly: copy)
        return try ArchiveWriter.repack(zip, to: output, edits: signed.edits, verifying: nil, continuing: copy)
    }

    @Test func theEntriesAfterTheExecutableAreCopiedEarlyIntoTheSameBytes() throws {
        let scratch = try ScratchDirectory("early-tail-copy")
        let input = try scratch.write("app.ipa", Self.app().bytes())
        let plain = try Self.librarySign(input, to: scratch.path("plain.ipa"), early: false)
        let early = try Self.librarySign(input, to: scratch.path("early.ipa"), early: true)
        #expect(plain.earlyCopiedBytes == 0)
        #expect(try Fixtures.bytesAt(scratch.path("early.ipa")) == (try Fixtures.bytesAt(scratch.path("plain.ipa"))))
        // At least the resources, which lie between the executable and the app's own seal.
        let archive = try AppArchive(path: input).archive.zip
        let resources = archive.entries.filter { $0.path.contains("/Resources/blob-") }
        let resourceBytes = resources.reduce(UInt64(0)) { $0 + $1.compressedSize }
        #expect(resources.count == 24)
        #expect(early.earlyCopiedBytes > resourceBytes, "\(early.earlyCopiedBytes) of \(resourceBytes)")

        // The command line takes the same path: `sign` writes these bytes too, and they verify.
        let signed = scratch.path("signed.ipa")
        let result = try SignCommandTests.sign(input, signed, scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try Fixtures.bytesAt(signed) == (try Fixtures.bytesAt(scratch.path("plain.ipa"))))
        try SignCommandTests.expectVerifies(signed)
    }

    /// A deflated executable is written as its re-signed code's stream, made while the resources
    /// are hashed (reusing the original's blocks), and its new signature stored after it: its size
    /// is known then, and the entries after it are copied early too.
    @Test func aDeflatedExecutableIsPlacedOnceItsCodeIsWritten() throws {
        let scratch = try ScratchDirectory("early-tail-copy")
        var builder = Self.app()
        builder.storesExecutable = false
        builder.executable = Self.codeExecutable()
        let input = try scratch.write("app.ipa", builder.bytes())
        let early = try Self.librarySign(input, to: scratch.path("early.ipa"), early: true)
        let plain = try Self.librarySign(input, to: scratch.path("plain.ipa"), early: false)
        #expect(plain.earlyCopiedBytes == 0)
        #expect(try Fixtures.bytesAt(scratch.path("early.ipa")) == (try Fixtures.bytesAt(scratch.path("plain.ipa"))))
        let archive = try AppArchive(path: input).archive.zip
        let resourceBytes = archive.entries.filter { $0.path.contains("/Resources/blob-") }.reduce(UInt64(0)) { $0 + $1.compressedSize }
        #expect(early.earlyCopiedBytes > resourceBytes, "\(early.earlyCopiedBytes) of \(resourceBytes)")
        // Deflated, a quarter or more smaller than the code (unzip -t reads it back below).
        let entry = try #require(try AppArchive(path: scratch.path("early.ipa")).archive.zip.entry(named: "Payload/Sample.app/Sample"))
        #expect(entry.method == 8 && entry.compressedSize * 4 < entry.uncompressedSize * 3, "\(entry.compressedSize) of \(entry.uncompressedSize)")
        let signed = scratch.path("signed.ipa")
        let result = try SignCommandTests.sign(input, signed, scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try Fixtures.bytesAt(signed) == (try Fixtures.bytesAt(scratch.path("plain.ipa"))))
        #expect(try ZipOracle.unzipTest(signed).status == 0)
        try SignCommandTests.expectVerifies(signed)
    }
}
