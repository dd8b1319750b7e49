import Foundation
import PropertyList

/// The test signing identities and profiles in `Tests/Fixtures/signing/` (made by
/// `make-identities.sh`; see its README): a stand-in Apple root and WWDR intermediate, leaf
/// certificates for team ABCDE12345 (RSA, P-256, expired) and ZYXWV98765, their keys, the .p12
/// files in the forms Keychain Access and openssl write, and provisioning profiles that list the
/// team's leaves. Tests that need other forms write temporary ones with `writePKCS12`.
public enum SigningFixtures {
    /// The password of every committed .p12 (also in `password.txt`).
    public static let password = "ipawrap-test"

    /// `Tests/Fixtures/signing/NAME`.
    public static func path(_ name: String) -> String {
        Fixtures.path("signing/" + name)
    }

    /// The committed .p12 files.
    public enum PKCS12: String, CaseIterable, Sendable {
        /// As Keychain Access exports an identity: leaf and key only, 3DES key bag, RC2-40
        /// certificate bag, SHA-1 MAC.
        case keychain = "distribution-keychain.p12"
        /// `openssl pkcs12 -export` (OpenSSL 3 default: AES-256-CBC, PBKDF2, SHA-256 MAC), with the chain.
        case openssl = "distribution-openssl.p12"
        /// `openssl pkcs12 -export -legacy` (3DES, RC2-40, SHA-1 MAC), with the chain.
        case opensslLegacy = "distribution-openssl-legacy.p12"
        /// An ECDSA P-256 leaf of the same team, OpenSSL 3 default form, with the chain.
        case ec = "distribution-ec.p12"
        /// A leaf of team ABCDE12345 valid 2020–2021, with the chain.
        case expired = "expired.p12"
        /// A leaf of team ZYXWV98765, with the chain.
        case otherTeam = "other-team.p12"

        public var path: String { SigningFixtures.path(rawValue) }
        public func bytes() throws -> [UInt8] { try Fixtures.bytes("signing/" + rawValue) }
    }

    /// PEM files: `root.pem` (the CA file for `openssl cms -verify -CAfile`), `wwdr.pem`,
    /// `chain.pem` (WWDR then root), and per leaf `NAME.pem`, `NAME.key.pem` (PKCS #8) and
    /// `NAME.cer` (DER), for `distribution`, `distribution-ec`, `expired`, `other-team`.
    public static let rootPEM = path("root.pem")
    public static let chainPEM = path("chain.pem")

    /// A leaf certificate's DER (`distribution.cer`…), as profiles list it.
    public static func certificateDER(_ leaf: String) throws -> [UInt8] {
        try Fixtures.bytes("signing/\(leaf).cer")
    }

    /// Writes a .p12 with `openssl pkcs12 -export` into `scratch` and returns its path: `key` and
    /// `certificate` are PEM paths, `chain` an optional PEM bundle, `options` more openssl
    /// arguments (`-legacy`, `-nomac`, `-keypbe`…). Needs openssl (`ProfileBuilder.opensslMissing`).
    public static func writePKCS12(
        in scratch: ScratchDirectory, named name: String = "identity.p12", key: String, certificate: String,
        chain: String? = nil, password: String = password, options: [String] = []
    ) throws -> String {
        let output = scratch.path(name)
        var arguments = ["pkcs12", "-export", "-inkey", key, "-in", certificate, "-passout", "pass:" + password, "-out", output]
        if let chain { arguments += ["-certfile", chain] }
        try openssl(arguments + options)
        return output
    }

    /// A fresh self-signed certificate and key (`openssl req -x509 -newkey SPEC`, e.g.
    /// `rsa:1024`, `ec -pkeyopt ec_paramgen_curve:P-384`, `ed25519`) in `scratch`: (certificate, key) PEM paths.
    public static func writeSelfSigned(
        in scratch: ScratchDirectory, named name: String, keyArguments: [String]
    ) throws -> (certificate: String, key: String) {
        let certificate = scratch.path(name + ".pem")
        let key = scratch.path(name + ".key.pem")
        try openssl(["req", "-x509", "-nodes", "-days", "3650", "-subj", "/CN=\(name)/OU=ABCDE12345"]
            + keyArguments + ["-keyout", key, "-out", certificate])
        return (certificate, key)
    }

    /// Runs openssl, throwing its stderr on failure.
    @discardableResult
    public static func openssl(_ arguments: [String]) throws -> String {
        let result = try Command.run("openssl", arguments)
        guard result.status == 0 else {
            throw ProfileBuilderError(message: "openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.stdout
    }
}

// MARK: - Profiles for signing

extension ProfileBuilder {
    /// Profiles committed under `Tests/Fixtures/signing/profiles/` for the bundle IDs signing
    /// tests use. Each lists the team's distribution leaves (`distribution.cer` and
    /// `distribution-ec.cer`) as its `DeveloperCertificates`, with entitlements as real profiles
    /// carry them. `ProfileFixtureTests` checks each still equals a fresh signature.
    public enum SigningFixture: String, CaseIterable, Sendable {
        /// `ABCDE12345.com.example.sample`, ad hoc: push (production), app group, keychain groups.
        case app
        /// `ABCDE12345.com.example.sample`, development: `get-task-allow` true, push (development).
        case appDevelopment = "app-development"
        /// `ABCDE12345.com.example.sample.share`, ad hoc, the app group.
        case share
        /// `ABCDE12345.com.example.sample.watchkitapp`, ad hoc (a watch app).
        case watch
        /// `ABCDE12345.com.example.sample.Clip`, ad hoc, with the app-clip entitlements.
        case clip
        /// `ABCDE12345.com.saucelabs.isignTestApp`: the isign `Test.app` fixture's bundle ID.
        case isign
        /// `ABCDE12345.*`, ad hoc (Xcode's wildcard App ID).
        case wildcard

        public var fileName: String { rawValue + ".mobileprovision" }
        public var path: String { "signing/profiles/" + fileName }

        /// The builder the committed file is signed from.
        public var builder: ProfileBuilder {
            let team = "ABCDE12345"
            let group: PropertyListValue = ["group.com.example.sample"]
            var builder: ProfileBuilder
            var entitlements: PropertyListDictionary = [:]
            switch self {
            case .app, .appDevelopment:
                builder = ProfileBuilder(bundlePattern: "com.example.sample")
                entitlements.append(.string(self == .app ? "production" : "development"), forKey: "aps-environment")
                entitlements.append(group, forKey: "com.apple.security.application-groups")
            case .share:
                builder = ProfileBuilder(bundlePattern: "com.example.sample.share")
                entitlements.append(group, forKey: "com.apple.security.application-groups")
            case .watch:
                builder = ProfileBuilder(bundlePattern: "com.example.sample.watchkitapp")
            case .clip:
                builder = ProfileBuilder(bundlePattern: "com.example.sample.Clip")
                entitlements.append(
                    [.string("\(team).com.example.sample")], forKey: "com.apple.developer.parent-application-identifiers")
                entitlements.append(true, forKey: "com.apple.developer.on-demand-install-capable")
            case .isign:
                builder = ProfileBuilder(bundlePattern: "com.saucelabs.isignTestApp")
            case .wildcard:
                builder = ProfileBuilder(bundlePattern: "*")
                builder.isXcodeManaged = true
            }
            builder.name = "\(rawValue) " + (self == .appDevelopment ? "Development" : "Ad Hoc")
            builder.uuid = ProfileBuilder.uuid(for: "signing." + rawValue)
            builder.getTaskAllow = self == .appDevelopment
            builder.extraEntitlements = entitlements
            builder.developerCertificates = ["distribution", "distribution-ec"].compactMap {
                try? SigningFixtures.certificateDER($0)
            }
            return builder
        }
    }

    /// The committed bytes of a signing profile (no openssl needed).
    public static func signingFixture(_ fixture: SigningFixture) throws -> [UInt8] {
        try Fixtures.bytes(fixture.path)
    }
}
