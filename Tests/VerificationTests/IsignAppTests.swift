import CMS
import CodeSignature
import FormatSupport
import Foundation
import MachO
import TestSupport
import Testing
import Verification

/// isign's `Test.app`, built and signed by Xcode 7.2, verified as it is and after tampering with
/// one thing of each kind. Upstream trimmed the bundle: its CodeResources seals eight Swift
/// dylibs and a profile that are not there, so exactly those are reported, and everything else holds.
@Suite("Verifier on isign's Test.app")
struct IsignAppTests {
    static let folder = IsignFixture.folder
    /// The dylibs the trimmed fixture's seal lists but does not hold.
    static let missingDylibs = [
        "libswiftCore.dylib", "libswiftCoreGraphics.dylib", "libswiftCoreImage.dylib", "libswiftDarwin.dylib",
        "libswiftDispatch.dylib", "libswiftFoundation.dylib", "libswiftObjectiveC.dylib", "libswiftUIKit.dylib",
    ]
    /// Before its certificate expired.
    static let signingDate = Date(timeIntervalSince1970: 1_452_000_000)

    /// The fixture zipped as an IPA, with `change` applied to its files first.
    static func ipa(in scratch: ScratchDirectory, _ change: (inout [String: [UInt8]]) throws -> Void = { _ in }) throws -> String {
        try IsignFixture.ipa(in: scratch, change)
    }

    static func verify(_ path: String) throws -> VerificationReport {
        try Verifier.verify(archive: path, at: signingDate)
    }

    /// What the trimmed fixture's seal lists but the folder does not hold (the Swift dylibs and
    /// embedded.mobileprovision), as archive paths.
    static func trimmed() throws -> Set<String> {
        let sealed = try CodeResources(bytes: try Fixtures.bytes(folder + "/_CodeSignature/CodeResources"))
        return Set((sealed.files2 ?? []).map(\.path).filter { path in
            !FileManager.default.fileExists(atPath: Fixtures.path(folder + "/" + path))
        }.map { "Payload/Test.app/" + $0 })
    }

    /// The error findings other than the trimmed files', as "CODE path".
    static func unexpectedErrors(_ report: VerificationReport) throws -> [String] {
        let trimmed = try trimmed()
        return report.findings.filter { finding in
            finding.severity == .error && !(finding.code == "SIGNATURE_SEALED_FILE_MISSING" && trimmed.contains(finding.path ?? ""))
        }.map { "\($0.code) \($0.path ?? "")" }
    }

    @Test func verifiesWithExactlyTheTrimmedDylibsMissing() throws {
        let scratch = try ScratchDirectory("verify-isign")
        let report = try Self.verify(try Self.ipa(in: scratch))
        let missing = report.findings.filter { $0.code == "SIGNATURE_SEALED_FILE_MISSING" }.compactMap(\.path)
        let expected = try Self.trimmed()
        #expect(Set(missing) == expected)
        // The eight Swift dylibs Xcode 7 copied and upstream removed, and the profile.
        #expect(expected.count == Self.missingDylibs.count + 1)
        #expect(try Self.unexpectedErrors(report).isEmpty, "\(report.findings)")
        // Signed by an Apple-issued identity, both slices, with a CMS signature.
        let app = try #require(report.bundles.first { $0.kind == "app" })
        #expect(app.signed && !app.adHoc)
        #expect(app.identifier == "com.saucelabs.isignTestApp")
        #expect(app.architectures == ["armv7", "arm64"])
        #expect(app.certificate?.commonName?.hasPrefix("iPhone Developer") == true, "\(String(describing: app.certificate))")
        let dylib = try #require(report.bundles.first { $0.kind == "dylib" })
        #expect(dylib.path == "Payload/Test.app/Frameworks/libswiftContacts.dylib")
        #expect(dylib.intact)
        // Innermost first.
        #expect(report.bundles.map(\.kind) == ["dylib", "app"])
    }

    @Test func anExpiredCertificateIsAWarningNotAnError() throws {
        let scratch = try ScratchDirectory("verify-isign")
        let report = try Verifier.verify(archive: try Self.ipa(in: scratch), at: Date(timeIntervalSince1970: 1_900_000_000))
        #expect(report.findings.contains { $0.code == "SIGNATURE_CERT_EXPIRED" && $0.severity == .warning })
        #expect(try Self.unexpectedErrors(report).isEmpty, "\(report.findings)")
    }

    // MARK: Tampering, one kind at a time

    @Test func oneByteOfASealedFileBreaksItsSeal() throws {
        let scratch = try ScratchDirectory("verify-isign")
        let report = try Self.verify(try Self.ipa(in: scratch) { files in
            files["Assets.car"]?[100] ^= 0x01
        })
        #expect(try Self.unexpectedErrors(report) == ["SIGNATURE_SEAL_BROKEN Payload/Test.app/Assets.car"])
    }

    @Test func anOptionalSealedFileMayBeMissing() throws {
        // Xcode 7 sealed Base.lproj's files as optional.
        let scratch = try ScratchDirectory("verify-isign")
        let report = try Self.verify(try Self.ipa(in: scratch) { files in
            files["Base.lproj/LaunchScreen.storyboardc/Info.plist"] = nil
        })
        #expect(try Self.unexpectedErrors(report).isEmpty)
    }

    @Test func anAddedFileIsUnsealedAndARemovedOneMissing() throws {
        let scratch = try ScratchDirectory("verify-isign")
        let report = try Self.verify(try Self.ipa(in: scratch) { files in
            files["Assets.car"] = nil
            files["extra.txt"] = Array("added".utf8)
        })
        #expect(try Self.unexpectedErrors(report).sorted() == [
            "SIGNATURE_SEALED_FILE_MISSING Payload/Test.app/Assets.car", "SIGNATURE_UNSEALED_FILE Payload/Test.app/extra.txt",
        ])
    }

    /// Where the arm64 slice's signature lies in the executable, and the signature read from it.
    static func arm64Signature(_ bytes: [UInt8]) throws -> (sliceOffset: Int, signatureOffset: Int, signature: EmbeddedSignature) {
        var source = InMemoryByteSource(bytes)
        let file = try MachOFile(reading: &source)
        let slice = try #require(file.slices.first { $0.architecture.name == "arm64" })
        let signature = try #require(try slice.readCodeSignature(from: &source))
        let range = try #require(slice.codeSignatureRange)
        return (Int(slice.offset), Int(slice.offset) + Int(range.offset), signature)
    }

    @Test func oneByteOfACodePageBreaksThatPage() throws {
        let scratch = try ScratchDirectory("verify-isign")
        let report = try Self.verify(try Self.ipa(in: scratch) { files in
            let bytes = try #require(files["isignTestApp"])
            let arm64 = try Self.arm64Signature(bytes)
            files["isignTestApp"]?[arm64.sliceOffset + 3 * 4096 + 17] ^= 0x80
        })
        let errors = try Self.unexpectedErrors(report)
        #expect(!errors.isEmpty && errors.allSatisfy { $0 == "SIGNATURE_PAGE_HASH_MISMATCH Payload/Test.app/isignTestApp" }, "\(errors)")
        let messages = report.findings.filter { $0.code == "SIGNATURE_PAGE_HASH_MISMATCH" }.map(\.message)
        #expect(messages.allSatisfy { $0.contains("(arm64)") && $0.contains("page 3") }, "\(messages)")
    }

    @Test func changedEntitlementsBreakTheirSpecialSlot() throws {
        let scratch = try ScratchDirectory("verify-isign")
        let report = try Self.verify(try Self.ipa(in: scratch) { files in
            let bytes = try #require(files["isignTestApp"])
            let arm64 = try Self.arm64Signature(bytes)
            let blob = try #require(arm64.signature.blobs.first { $0.slot == EmbeddedSignature.Slot.entitlements })
            // A letter of a value inside the XML: still a property list, no longer the one signed.
            let xml = Array(bytes[(arm64.signatureOffset + blob.offset)..<(arm64.signatureOffset + blob.offset + blob.length)])
            let marker = Array("<string>".utf8)
            let at = try #require((0..<(xml.count - marker.count)).first { Array(xml[$0..<($0 + marker.count)]) == marker })
            files["isignTestApp"]?[arm64.signatureOffset + blob.offset + at + marker.count] ^= 0x20
        })
        let errors = try Self.unexpectedErrors(report)
        #expect(!errors.isEmpty && errors.allSatisfy { $0 == "SIGNATURE_SPECIAL_SLOT_MISMATCH Payload/Test.app/isignTestApp" }, "\(errors)")
        #expect(report.findings.contains { $0.message.contains("the entitlements differ") })
    }

    @Test func oneByteOfTheCMSSignatureInvalidatesIt() throws {
        let scratch = try ScratchDirectory("verify-isign")
        let report = try Self.verify(try Self.ipa(in: scratch) { files in
            let bytes = try #require(files["isignTestApp"])
            let arm64 = try Self.arm64Signature(bytes)
            let cms = try CMSSignedData(berEncoded: try #require(arm64.signature.cmsSignature), allowsZeroPadding: true)
            let value = try #require(cms.signerInfos.first?.signature)
            let start = arm64.signatureOffset
            let at = try #require((start..<(bytes.count - value.count)).first { Array(bytes[$0..<($0 + value.count)]) == value })
            files["isignTestApp"]?[at + value.count / 2] ^= 0x01
        })
        let errors = try Self.unexpectedErrors(report)
        #expect(errors == ["SIGNATURE_CMS_INVALID Payload/Test.app/isignTestApp"], "\(errors)")
        #expect(report.findings.contains { $0.message.contains("CMS_SIGNATURE_INVALID") })
    }

    @Test func aChangedInfoPlistBreaksItsSpecialSlot() throws {
        let scratch = try ScratchDirectory("verify-isign")
        let report = try Self.verify(try Self.ipa(in: scratch) { files in
            // A key's first letter (BuildMachineOSBuild → buildMachineOSBuild): still the same shape.
            let plist = try #require(files["Info.plist"])
            let key = Array("BuildMachineOSBuild".utf8)
            let at = try #require((0..<(plist.count - key.count)).first { Array(plist[$0..<($0 + key.count)]) == key })
            files["Info.plist"]?[at] ^= 0x20
        })
        let errors = Set(try Self.unexpectedErrors(report))
        #expect(errors == ["SIGNATURE_SPECIAL_SLOT_MISMATCH Payload/Test.app/isignTestApp"], "\(errors)")
    }
}
