import CMS
import CodeSignature
import FormatSupport
import Foundation
import MachO
import Reporting
import TestSupport
import Testing
import Verification

/// An app as Xcode builds and signs it, verified as it is and after tampering with one thing of
/// each kind. Its CodeResources seals files the bundle does not hold (trimmed Swift dylibs and a
/// profile), so exactly those are reported, and everything else holds. Run on the generated shape
/// (`XcodeShapedApp`) and on a real build, isign's `Test.app` (Xcode 7.2) in `../shared`.
struct XcodeBuild: Sendable {
    /// The app folder inside the IPA, e.g. `Payload/Test.app`.
    let appFolder: String
    let executable: String
    let identifier: String
    /// How the signing certificate's common name starts.
    let certificatePrefix: String
    /// A file the seal lists as optional.
    let optionalFile: String
    /// A date the certificate is valid at, and one after it expired.
    let signingDate: Date
    let expiredDate: Date
    let dylib: String
    let ipa: @Sendable (ScratchDirectory, (inout [String: [UInt8]]) throws -> Void) throws -> String
    /// The files the seal lists but the bundle lacks, as archive paths.
    let trimmed: @Sendable () throws -> Set<String>

    static let generated = XcodeBuild(
        appFolder: "Payload/\(XcodeShapedApp.appName).app", executable: XcodeShapedApp.appName,
        identifier: XcodeShapedApp.bundleIdentifier, certificatePrefix: "Apple Distribution",
        optionalFile: XcodeShapedApp.optionalResource, signingDate: XcodeShapedApp.signingDate,
        expiredDate: Date(timeIntervalSince1970: 2_100_000_000), dylib: XcodeShapedApp.dylibPath,
        ipa: { try XcodeShapedApp.ipa(in: $0, $1) },
        trimmed: { Set(XcodeShapedApp.trimmed.map { "Payload/\(XcodeShapedApp.appName).app/" + $0 }) })

    static let isign = XcodeBuild(
        appFolder: "Payload/Test.app", executable: "isignTestApp", identifier: "com.saucelabs.isignTestApp",
        certificatePrefix: "iPhone Developer",
        // Xcode 7 sealed Base.lproj's files as optional.
        optionalFile: "Base.lproj/LaunchScreen.storyboardc/Info.plist",
        signingDate: Date(timeIntervalSince1970: 1_452_000_000), expiredDate: Date(timeIntervalSince1970: 1_900_000_000),
        dylib: "Frameworks/libswiftContacts.dylib", ipa: { try IsignFixture.ipa(in: $0, $1) },
        trimmed: {
            let sealed = try CodeResources(bytes: try IsignFixture.bytes("Test.app/_CodeSignature/CodeResources"))
            return Set((sealed.files2 ?? []).map(\.path).filter { path in
                !FileManager.default.fileExists(atPath: IsignFixture.path("Test.app/" + path))
            }.map { "Payload/Test.app/" + $0 })
        })

    func verify(_ path: String, at date: Date? = nil) throws -> VerificationReport {
        try Verifier.verify(archive: path, at: date ?? signingDate)
    }

    /// The error findings other than the trimmed files', as "CODE path".
    func unexpectedErrors(_ report: VerificationReport) throws -> [String] {
        let trimmed = try trimmed()
        return report.findings.filter { finding in
            finding.severity == .error && !(finding.code == "SIGNATURE_SEALED_FILE_MISSING" && trimmed.contains(finding.path ?? ""))
        }.map { "\($0.code) \($0.path ?? "")" }
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

    // MARK: Checks

    func verifiesWithExactlyTheTrimmedFilesMissing(trimmedCount: Int) throws {
        let scratch = try ScratchDirectory("verify-xcode")
        let report = try verify(try ipa(scratch, { _ in }))
        let missing = report.findings.filter { $0.code == "SIGNATURE_SEALED_FILE_MISSING" }.compactMap(\.path)
        let expected = try trimmed()
        #expect(Set(missing) == expected)
        #expect(expected.count == trimmedCount)
        #expect(try unexpectedErrors(report).isEmpty, "\(report.findings)")
        // Signed by an Apple-issued identity, both slices, with a CMS signature.
        let app = try #require(report.bundles.first { $0.kind == .bundle(.app) })
        #expect(app.facts.signed && !app.facts.adHoc)
        #expect(app.identifier == identifier)
        #expect(app.architectures == ["armv7", "arm64"])
        #expect(app.facts.certificate?.commonName?.hasPrefix(certificatePrefix) == true, "\(String(describing: app.facts.certificate))")
        let library = try #require(report.bundles.first { $0.kind == .dylib })
        #expect(library.path == "\(appFolder)/\(dylib)")
        #expect(library.intact)
        // Innermost first.
        #expect(report.bundles.map(\.kind) == [.dylib, .bundle(.app)])
    }

    func anExpiredCertificateIsAWarningNotAnError() throws {
        let scratch = try ScratchDirectory("verify-xcode")
        let report = try verify(try ipa(scratch, { _ in }), at: expiredDate)
        #expect(report.findings.contains { $0.code == "SIGNATURE_CERT_EXPIRED" && $0.severity == .warning })
        #expect(try unexpectedErrors(report).isEmpty, "\(report.findings)")
    }

    func oneByteOfASealedFileBreaksItsSeal() throws {
        let scratch = try ScratchDirectory("verify-xcode")
        let report = try verify(try ipa(scratch, { files in files["Assets.car"]?[100] ^= 0x01 }))
        #expect(try unexpectedErrors(report) == ["SIGNATURE_SEAL_BROKEN \(appFolder)/Assets.car"])
    }

    func anOptionalSealedFileMayBeMissing() throws {
        let scratch = try ScratchDirectory("verify-xcode")
        let report = try verify(try ipa(scratch, { files in files[optionalFile] = nil }))
        #expect(try unexpectedErrors(report).isEmpty)
    }

    func anAddedFileIsUnsealedAndARemovedOneMissing() throws {
        let scratch = try ScratchDirectory("verify-xcode")
        let report = try verify(try ipa(scratch, { files in
            files["Assets.car"] = nil
            files["extra.txt"] = Array("added".utf8)
        }))
        #expect(try unexpectedErrors(report).sorted() == [
            "SIGNATURE_SEALED_FILE_MISSING \(appFolder)/Assets.car", "SIGNATURE_UNSEALED_FILE \(appFolder)/extra.txt",
        ])
    }

    func oneByteOfACodePageBreaksThatPage() throws {
        let scratch = try ScratchDirectory("verify-xcode")
        let executable = executable
        let report = try verify(try ipa(scratch, { files in
            let bytes = try #require(files[executable])
            let arm64 = try Self.arm64Signature(bytes)
            files[executable]?[arm64.sliceOffset + 3 * 4096 + 17] ^= 0x80
        }))
        let errors = try unexpectedErrors(report)
        #expect(!errors.isEmpty && errors.allSatisfy { $0 == "SIGNATURE_PAGE_HASH_MISMATCH \(appFolder)/\(executable)" }, "\(errors)")
        let messages = report.findings.filter { $0.code == "SIGNATURE_PAGE_HASH_MISMATCH" }.map(\.message)
        #expect(!messages.isEmpty && messages.allSatisfy { $0.contains("(arm64)") && $0.contains("page 3") }, "\(messages)")
    }

    func changedEntitlementsBreakTheirSpecialSlot() throws {
        let scratch = try ScratchDirectory("verify-xcode")
        let executable = executable
        let report = try verify(try ipa(scratch, { files in
            let bytes = try #require(files[executable])
            let arm64 = try Self.arm64Signature(bytes)
            let blob = try #require(arm64.signature.blobs.first { $0.slot == EmbeddedSignature.Slot.entitlements })
            // A letter of a value inside the XML: still a property list, no longer the one signed.
            let xml = Array(bytes[(arm64.signatureOffset + blob.offset)..<(arm64.signatureOffset + blob.offset + blob.length)])
            let marker = Array("<string>".utf8)
            let at = try #require((0..<(xml.count - marker.count)).first { Array(xml[$0..<($0 + marker.count)]) == marker })
            files[executable]?[arm64.signatureOffset + blob.offset + at + marker.count] ^= 0x20
        }))
        let errors = try unexpectedErrors(report)
        #expect(!errors.isEmpty && errors.allSatisfy { $0 == "SIGNATURE_SPECIAL_SLOT_MISMATCH \(appFolder)/\(executable)" }, "\(errors)")
        #expect(report.findings.contains { $0.message.contains("the entitlements differ") })
    }

    func oneByteOfTheCMSSignatureInvalidatesIt() throws {
        let scratch = try ScratchDirectory("verify-xcode")
        let executable = executable
        let report = try verify(try ipa(scratch, { files in
            let bytes = try #require(files[executable])
            let arm64 = try Self.arm64Signature(bytes)
            let cms = try CMSSignedData(berEncoded: try #require(arm64.signature.cmsSignature), allowsZeroPadding: true)
            let value = try #require(cms.signerInfos.first?.signature)
            let start = arm64.signatureOffset
            let at = try #require((start..<(bytes.count - value.count)).first { Array(bytes[$0..<($0 + value.count)]) == value })
            files[executable]?[at + value.count / 2] ^= 0x01
        }))
        let errors = try unexpectedErrors(report)
        #expect(errors == ["SIGNATURE_CMS_INVALID \(appFolder)/\(executable)"], "\(errors)")
        #expect(report.findings.contains { $0.message.contains("CMS_SIGNATURE_INVALID") })
    }

    func aChangedInfoPlistBreaksItsSpecialSlot() throws {
        let scratch = try ScratchDirectory("verify-xcode")
        let report = try verify(try ipa(scratch, { files in
            // A key's first letter (BuildMachineOSBuild → buildMachineOSBuild): still the same shape.
            let plist = try #require(files["Info.plist"])
            let key = Array("BuildMachineOSBuild".utf8)
            let at = try #require((0..<(plist.count - key.count)).first { Array(plist[$0..<($0 + key.count)]) == key })
            files["Info.plist"]?[at] ^= 0x20
        }))
        let errors = Set(try unexpectedErrors(report))
        #expect(errors == ["SIGNATURE_SPECIAL_SLOT_MISMATCH \(appFolder)/\(executable)"], "\(errors)")
    }
}

/// The generated Xcode-shaped app (`XcodeShapedApp`): two Swift dylibs and the profile trimmed.
@Suite("Verifier on the generated Xcode-shaped app")
struct XcodeShapedVerificationTests {
    let build = XcodeBuild.generated

    @Test func verifiesWithExactlyTheTrimmedFilesMissing() throws {
        try build.verifiesWithExactlyTheTrimmedFilesMissing(trimmedCount: XcodeShapedApp.trimmed.count)
    }
    @Test func anExpiredCertificateIsAWarningNotAnError() throws { try build.anExpiredCertificateIsAWarningNotAnError() }
    @Test func oneByteOfASealedFileBreaksItsSeal() throws { try build.oneByteOfASealedFileBreaksItsSeal() }
    @Test func anOptionalSealedFileMayBeMissing() throws { try build.anOptionalSealedFileMayBeMissing() }
    @Test func anAddedFileIsUnsealedAndARemovedOneMissing() throws { try build.anAddedFileIsUnsealedAndARemovedOneMissing() }
    @Test func oneByteOfACodePageBreaksThatPage() throws { try build.oneByteOfACodePageBreaksThatPage() }
    @Test func changedEntitlementsBreakTheirSpecialSlot() throws { try build.changedEntitlementsBreakTheirSpecialSlot() }
    @Test func oneByteOfTheCMSSignatureInvalidatesIt() throws { try build.oneByteOfTheCMSSignatureInvalidatesIt() }
    @Test func aChangedInfoPlistBreaksItsSpecialSlot() throws { try build.aChangedInfoPlistBreaksItsSpecialSlot() }
}

/// isign's `Test.app` (Xcode 7.2): upstream trimmed eight Swift dylibs and the profile.
@Suite("Verifier on isign's Test.app", .enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
struct IsignAppTests {
    let build = XcodeBuild.isign

    @Test func verifiesWithExactlyTheTrimmedFilesMissing() throws {
        // The eight Swift dylibs Xcode 7 copied and upstream removed, and the profile.
        try build.verifiesWithExactlyTheTrimmedFilesMissing(trimmedCount: 9)
    }
    @Test func anExpiredCertificateIsAWarningNotAnError() throws { try build.anExpiredCertificateIsAWarningNotAnError() }
    @Test func oneByteOfASealedFileBreaksItsSeal() throws { try build.oneByteOfASealedFileBreaksItsSeal() }
    @Test func anOptionalSealedFileMayBeMissing() throws { try build.anOptionalSealedFileMayBeMissing() }
    @Test func anAddedFileIsUnsealedAndARemovedOneMissing() throws { try build.anAddedFileIsUnsealedAndARemovedOneMissing() }
    @Test func oneByteOfACodePageBreaksThatPage() throws { try build.oneByteOfACodePageBreaksThatPage() }
    @Test func changedEntitlementsBreakTheirSpecialSlot() throws { try build.changedEntitlementsBreakTheirSpecialSlot() }
    @Test func oneByteOfTheCMSSignatureInvalidatesIt() throws { try build.oneByteOfTheCMSSignatureInvalidatesIt() }
    @Test func aChangedInfoPlistBreaksItsSpecialSlot() throws { try build.aChangedInfoPlistBreaksItsSpecialSlot() }
}
