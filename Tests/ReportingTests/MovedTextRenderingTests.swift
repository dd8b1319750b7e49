import Foundation
@testable import Reporting
import Testing

/// `verify`'s and `profile show`'s text, rendered by `TextRendering` from their typed reports,
/// line for line as the commands have always printed them (colour off).
@Suite struct MovedTextRenderingTests {
    static let plain = Style(enabled: false)
    static let judged = Date(timeIntervalSince1970: 1_767_312_000)  // 2026-01-02
    static let expiry = Date(timeIntervalSince1970: 2_051_222_400)  // 2035-01-01

    static func verification() -> VerificationReport {
        let certificate = SigningCertificate(subject: "CN=Apple Distribution: Example,OU=ABCDE12345", commonName: "Apple Distribution: Example", notValidAfter: expiry)
        return VerificationReport(
            input: "in\u{1B}put.ipa", verifiedAt: judged,
            bundles: [
                BundleSignature(kind: .dylib, path: "Payload/A.app/libx.dylib", intact: false),
                BundleSignature(
                    kind: .bundle(.framework), path: "Payload/A.app/Frameworks/K.framework",
                    facts: SignatureFacts(signed: true, adHoc: true, cdhash: "ffee", hashTypes: ["SHA-256"]),
                    identifier: "com.example.k", architectures: ["arm64"], intact: false),
                BundleSignature(
                    kind: .bundle(.app), path: "Payload/A.app",
                    facts: SignatureFacts(
                        signed: true, cdhash: "0a1b", teamId: "ABCDE12345", hashTypes: ["SHA-1", "SHA-256"],
                        certificate: certificate),
                    identifier: "com.example.a", architectures: ["arm64"], intact: true),
                BundleSignature(
                    kind: .executable, path: "Payload/A.app/tool",
                    facts: SignatureFacts(
                        signed: true, teamId: nil,
                        certificate: SigningCertificate(subject: "CN=Someone", commonName: nil, notValidAfter: expiry))),
            ],
            findings: [Finding(code: "X_BROKEN", severity: .error, message: "K.framework's seal is broken", remedy: "Sign it again.")])
    }

    /// The kind's column is nine wide and cuts a longer word (`executable`), as verify always has.
    @Test func verifyText() {
        #expect(TextRendering.verification(Self.verification(), style: Self.plain) == """
            Signatures  in\\u{1B}put.ipa, certificates judged at 2026-01-02T00:00:00Z
              dylib     Payload/A.app/libx.dylib  unsigned
              framework Payload/A.app/Frameworks/K.framework  broken  com.example.k, ad hoc, cdhash ffee, SHA-256
              app       Payload/A.app  intact  com.example.a, team ABCDE12345, cdhash 0a1b, SHA-1+SHA-256
                        signed by Apple Distribution: Example, expires 2035-01-01T00:00:00Z
              executable Payload/A.app/tool  intact  team ?
                        signed by CN=Someone, expires 2035-01-01T00:00:00Z

            Findings: 1 error, 0 warnings
              error   X_BROKEN: K.framework's seal is broken
                      → Sign it again.
            """)
    }

    @Test func verifyTextInColour() {
        let text = TextRendering.verification(Self.verification(), style: Style(enabled: true))
        #expect(text.hasPrefix("\u{1B}[1mSignatures\u{1B}[0m  in\\u{1B}put.ipa"))
        #expect(text.contains("Payload/A.app/libx.dylib  \u{1B}[31munsigned\u{1B}[0m"))
        #expect(text.contains("Payload/A.app  \u{1B}[32mintact\u{1B}[0m"))
        #expect(text.contains("            \u{1B}[2msigned by Apple Distribution: Example, expires 2035-01-01T00:00:00Z\u{1B}[0m"))
    }

    /// `hostile`: every other string the profile's signer chose carries a terminal escape too.
    static func profile(appStore: Bool = false, certificates: Bool = true, hostile: Bool = false) -> ProfileSummary {
        let escape = hostile ? "\u{1B}[2J" : ""
        return ProfileSummary(
            file: "/p/x.mobileprovision", name: "Ad\u{7}Hoc", uuid: "1234-ABCD" + escape, appIdName: "X",
            appIdentifier: "ABCDE12345.com.example.*", appIdKind: .partialWildcard,
            applicationIdentifierPrefix: ["ABCDE12345"], teamId: "ABCDE12345", teamName: "Example Ltd",
            platforms: ["iOS", "xrOS" + escape], creationDate: judged, expirationDate: judged, expired: true, timeToLive: 365,
            kind: appStore ? .appstore : .adhoc, devices: ["00008030-001"], provisionsAllDevices: false, xcodeManaged: false,
            entitlements: .object([
                "application-identifier": .string("ABCDE12345.com.example.*"),
                "get-task-allow": .bool(false),
                "keychain-access-groups": .array([.string("ABCDE12345.*"), .integer(7)]),
                "nested": .object(["b": .number(1.5), "a": .string("x" + escape)]),
            ]),
            certificates: certificates ? [
                ProfileSummary.Certificate(
                    subject: "CN=iPhone Distribution: Example", commonName: "iPhone Distribution: Example", teamId: "ABCDE12345",
                    organization: "Example Ltd", issuer: "Apple WWDR", serialNumber: "0A0B", notValidBefore: judged,
                    notValidAfter: expiry, expired: false, sha1: "00"),
                ProfileSummary.Certificate(
                    subject: "OU=X", commonName: nil, teamId: nil, organization: nil, issuer: nil, serialNumber: "01",
                    notValidBefore: judged, notValidAfter: judged, expired: true, sha1: "01"),
            ] : [],
            container: ProfileSummary.Container(
                encoding: "DER", digestAlgorithms: ["SHA-256" + escape], signerCount: 1,
                signedBy: ["Apple iPhone OS Provisioning Profile Signing" + escape],
                contentChunks: 1),
            findings: [Finding(code: "X_EXPIRED", severity: .error, message: "the profile expired")])
    }

    @Test func profileShowText() {
        #expect(TextRendering.profile(Self.profile(), style: Self.plain) == """
            Ad\\u{7}Hoc  1234-ABCD
              App ID       ABCDE12345.com.example.*  wildcard
              Team         Example Ltd (ABCDE12345)
              Kind         adhoc, 1 device
              Platforms    iOS, xrOS
              Created      2026-01-02T00:00:00Z
              Expires      2026-01-02T00:00:00Z  expired
              Certificates iPhone Distribution: Example  serial 0A0B, valid to 2035-01-01T00:00:00Z
                           (no common name)  serial 01, valid to 2026-01-02T00:00:00Z  expired
              Entitlements application-identifier  ABCDE12345.com.example.*
                           get-task-allow          false
                           keychain-access-groups  [ABCDE12345.*, 7]
                           nested                  {a: x, b: 1.5}
              Container    DER, SHA-256, signed by Apple iPhone OS Provisioning Profile Signing (signature not verified)

            Findings: 1 error, 0 warnings
              error   X_EXPIRED: the profile expired
            """)
    }

    /// The UUID, platforms, entitlement values, digest algorithms and container signers are the
    /// profile's signer's strings: none reaches the terminal as an escape.
    @Test func profileShowEscapesEveryStringOfTheProfile() {
        let text = TextRendering.profile(Self.profile(hostile: true), style: Self.plain)
        #expect(!text.unicodeScalars.contains("\u{1B}"), "\(text.debugDescription)")
        #expect(text.contains("1234-ABCD\\u{1B}[2J"))
    }

    @Test func profileShowTextWithoutCertificatesForAStoreProfile() {
        let text = TextRendering.profile(Self.profile(appStore: true, certificates: false), style: Self.plain)
        #expect(text.contains("\n  Kind         appstore\n"))
        #expect(text.contains("\n  Certificates none readable\n"))
    }
}
