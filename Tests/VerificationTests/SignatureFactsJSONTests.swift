import AppBundle
import Foundation
import Reporting
import Testing
import Verification

/// One `SignatureFacts`, two JSON shapes (docs/commands.md): the inspect/check report's
/// `bundles[].signature` (`teamId`, `certificateSubject`, `certificateExpiry`) and `verify`'s
/// `bundles[]` (`teamIdentifier`, a `certificate` object). Both are written with every key and
/// read back.
@Suite("SignatureFacts in both report shapes")
struct SignatureFactsJSONTests {
    static let expiry = Date(timeIntervalSince1970: 2_051_222_400)  // 2035-01-01
    static let facts = SignatureFacts(
        signed: true, adHoc: false, cdhash: "0a1b", teamId: "ABCDE12345", hashTypes: ["SHA-1", "SHA-256"],
        certificate: SigningCertificate(subject: "CN=Apple Distribution: Example,OU=ABCDE12345", commonName: nil, notValidAfter: expiry))

    @Test func theInspectReportWritesItsOwnFieldNames() throws {
        let bundle = Report.Bundle(path: "Payload/A.app", kind: .app, bundleId: "com.example.a", version: "1.0", signature: Self.facts)
        #expect(try ReportJSON.string(bundle) == """
            {
              "bundleId" : "com.example.a",
              "kind" : "app",
              "path" : "Payload/A.app",
              "signature" : {
                "adHoc" : false,
                "cdhash" : "0a1b",
                "certificateExpiry" : "2035-01-01T00:00:00Z",
                "certificateSubject" : "CN=Apple Distribution: Example,OU=ABCDE12345",
                "hashTypes" : [
                  "SHA-1",
                  "SHA-256"
                ],
                "signed" : true,
                "teamId" : "ABCDE12345"
              },
              "version" : "1.0"
            }
            """)
        let back = try ReportJSON.decoder().decode(Report.Bundle.self, from: Data(try ReportJSON.string(bundle).utf8))
        #expect(back == bundle)
    }

    @Test func theInspectReportWritesAnUnsignedBundleWithEveryKey() throws {
        #expect(try ReportJSON.string(SignatureFacts.unsigned) == """
            {
              "adHoc" : false,
              "cdhash" : null,
              "certificateExpiry" : null,
              "certificateSubject" : null,
              "hashTypes" : [

              ],
              "signed" : false,
              "teamId" : null
            }
            """)
        let back = try ReportJSON.decoder().decode(SignatureFacts.self, from: Data(try ReportJSON.string(SignatureFacts.unsigned).utf8))
        #expect(back == .unsigned)
    }

    @Test func verifyWritesItsOwnFieldNames() throws {
        var facts = Self.facts
        facts.certificate?.commonName = "Apple Distribution: Example"
        let bundle = BundleSignature(
            kind: .bundle(.appex), path: "Payload/A.app/PlugIns/W.appex", facts: facts, identifier: "com.example.a.w",
            architectures: ["arm64"], intact: true)
        let json = try ReportJSON.string(bundle)
        #expect(json == """
            {
              "adHoc" : false,
              "architectures" : [
                "arm64"
              ],
              "cdhash" : "0a1b",
              "certificate" : {
                "commonName" : "Apple Distribution: Example",
                "notValidAfter" : "2035-01-01T00:00:00Z",
                "subject" : "CN=Apple Distribution: Example,OU=ABCDE12345"
              },
              "hashTypes" : [
                "SHA-1",
                "SHA-256"
              ],
              "identifier" : "com.example.a.w",
              "intact" : true,
              "kind" : "appex",
              "path" : "Payload/A.app/PlugIns/W.appex",
              "signed" : true,
              "teamIdentifier" : "ABCDE12345"
            }
            """)
        #expect(try ReportJSON.decoder().decode(BundleSignature.self, from: Data(json.utf8)) == bundle)
    }

    @Test func verifyWritesAnUnsignedDylibWithEveryKey() throws {
        let bundle = BundleSignature(kind: .dylib, path: "Payload/A.app/libx.dylib", intact: false)
        let json = try ReportJSON.string(bundle)
        #expect(json == """
            {
              "adHoc" : false,
              "architectures" : [

              ],
              "cdhash" : null,
              "certificate" : null,
              "hashTypes" : [

              ],
              "identifier" : null,
              "intact" : false,
              "kind" : "dylib",
              "path" : "Payload/A.app/libx.dylib",
              "signed" : false,
              "teamIdentifier" : null
            }
            """)
        #expect(try ReportJSON.decoder().decode(BundleSignature.self, from: Data(json.utf8)) == bundle)
    }

    @Test func eachKindOfSignedCodeHasOneWord() {
        let kinds: [SignedCodeKind] = BundleKind.allCases.map { .bundle($0) } + [.dylib, .executable]
        #expect(kinds.map(\.name) == BundleKind.allCases.map(\.rawValue) + ["dylib", "executable"])
        #expect(kinds.allSatisfy { SignedCodeKind(name: $0.name) == $0 })
        #expect(SignedCodeKind(name: "kext") == nil)
    }

    /// The version both kinds of report write: verify's JSON carries the same `schemaVersion`
    /// as check's, under the same key.
    @Test func bothReportsWriteOneSchemaVersion() throws {
        func written<Value: Encodable>(_ value: Value) throws -> Int? {
            let object = try JSONSerialization.jsonObject(with: try ReportJSON.encoder().encode(value)) as? [String: Any]
            return object?["schemaVersion"] as? Int
        }
        let verification = VerificationReport(input: "A.ipa", verifiedAt: Self.expiry, bundles: [], findings: [])
        #expect(try written(verification) == Report.currentSchemaVersion)
        let check = Report(
            tool: Report.Tool(name: "ipawrap", version: "1.0"), input: Report.Input(path: "A.ipa", size: 1, sha256: nil, entries: 1),
            app: Report.App(
                path: "Payload/A.app", bundleId: nil, name: nil, version: nil, build: nil, minimumOS: nil, infoPlistFormat: .xml,
                executable: nil))
        #expect(try written(verification) == (try written(check)))
    }
}
