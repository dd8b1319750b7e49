import Foundation
import Testing
import TestSupport

/// `ipawrap sign` of an Xcode archive and of an unzipped `.app` folder writes an IPA that
/// `ipawrap verify` finds intact and `unzip` reads.
@Suite struct FolderSignTests {
    @Test func signingAnXcarchiveWritesAnIntactIPA() throws {
        let scratch = try ScratchDirectory("sign-folder")
        let bytes = try SignCommandTests.app().bytes()
        let app = try AppFolders.unpack(bytes, in: scratch)
        let xcarchive = try AppFolders.xcarchive(holding: app, in: scratch)
        let output = scratch.path("Signed.ipa")
        let result = try SignCommandTests.sign(xcarchive, output, scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try ZipOracle.unzipTest(output).status == 0)
        try SignCommandTests.expectVerifies(output)
        #expect(try ZipOracle.entries(output).first?.nameString == "Payload/")

        // The folder and the IPA it was unzipped from sign to the same app: the same files.
        let fromIPA = scratch.path("SignedFromIPA.ipa")
        #expect(try SignCommandTests.sign(try scratch.write("Sample.ipa", bytes), fromIPA, scratch).status == 0)
        try SigcheckOracle.expectAccepted(fromIPA)
        let signedNames = Set(try ZipOracle.entries(output).filter { !$0.nameString.hasSuffix("/") }.map(\.nameString))
        let expectedNames = Set(try ZipOracle.entries(fromIPA).filter { !$0.nameString.hasSuffix("/") }.map(\.nameString))
        #expect(signedNames == expectedNames)

        let again = scratch.path("Again.ipa")
        #expect(try SignCommandTests.sign(app, again, scratch).status == 0)
        try SignCommandTests.expectVerifies(again)
    }
}
