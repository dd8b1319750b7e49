import AppBundle
import Foundation
import PropertyList
import ProvisioningProfile
import Signing
import SigningIdentity
import Testing
import TestSupport
import Zip

/// The install checks (issue 30): per rule, an app signed with a profile made to break exactly
/// that rule gives exactly its finding from `verify`, and the same app with a fitting profile gives
/// none; `check` and `sign` stop on the same rules before anything is written.
@Suite struct InstallCheckTests {
    static let team = "ABCDE12345"
    static let devices = ProfileBuilder.udids(3)
    static let strangerDevice = "00008030-001A35E01E68802E"

    /// A profile of the test team for `id`, listing the distribution certificates; `configure`
    /// breaks what a rule looks at.
    static func profile(_ id: String, _ configure: (inout ProfileBuilder) -> Void = { _ in }) throws -> [UInt8] {
        var builder = ProfileBuilder(bundlePattern: id)
        builder.name = "\(id) Ad Hoc"
        builder.getTaskAllow = false
        builder.devices = devices
        builder.developerCertificates = ["distribution", "distribution-ec"].compactMap { try? SigningFixtures.certificateDER($0) }
        configure(&builder)
        return try builder.signed()
    }

    /// Signs `ipa` into `output` through the signing library, each bundle checked against the
    /// profile `checked` gives it and embedding the one `embedded` gives (by bundle ID): how an
    /// app whose embedded profile breaks a rule `sign` itself refuses is made. No check runs.
    static func librarySign(
        _ ipa: String, to output: String, checked: [String: [UInt8]], embedded: [String: [UInt8]] = [:]
    ) throws {
        let archive = try AppArchive(path: ipa)
        var profiles: [BundleProfile] = []
        for bundle in archive.allBundles where bundle.kind.needsProfile && bundle.holdsCode {
            guard let id = bundle.bundleIdentifier, let bytes = checked[id] else { continue }
            profiles.append(BundleProfile(
                bundlePath: bundle.path, profile: try ProvisioningProfile(bytes: bytes), profileBytes: embedded[id] ?? bytes,
                file: id))
        }
        let identity = try SigningIdentity(
            pkcs12File: SigningFixtures.PKCS12.openssl.path, password: Array(SigningFixtures.password.utf8))
        let edits = try ArchiveSigner.edits(
            signing: archive, profiles: profiles,
            request: SigningRequest(identity: identity, signingTime: Date(timeIntervalSince1970: 1_767_225_600)))
        _ = try ArchiveWriter.repack(archive.archive.zip, to: output, edits: edits)
    }

    /// `verify --json`'s findings as (code, installError code), sorted.
    static func verifyFindings(_ ipa: String, _ extra: [String] = []) throws -> (status: Int32, found: [String]) {
        let result = try Command.ipawrap(["verify", ipa, "--json", "--at", "2026-06-01"] + extra)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
        let found = (report["findings"] as? [[String: Any]] ?? []).map { finding -> String in
            let device = (finding["installError"] as? [String: Any])?["code"] as? String
            return "\(finding["code"] as? String ?? "?") \(finding["severity"] as? String ?? "?")" + (device.map { " \($0)" } ?? "")
        }
        return (result.status, found.sorted())
    }

    static func app(minimumOS: String = "15.0", configure: (inout IPABuilder) -> Void = { _ in }) -> IPABuilder {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.info = IPABuilder.infoPlist(name: "Sample", bundleIdentifier: "com.example.sample", minimumOS: minimumOS)
        builder.addPrimaryIcon()
        builder.executable = ToolchainShapes.code(minimumOS: minimumOS, signedAs: nil)
        builder.profile = nil
        configure(&builder)
        return builder
    }

    // MARK: Rules on the profile and the device

    @Test func aDeviceTheProfileDoesNotListIsNamed() throws {
        let scratch = try ScratchDirectory("install-device")
        let input = try scratch.write("app.ipa", Self.app().bytes())
        let output = scratch.path("signed.ipa")
        try Self.librarySign(input, to: output, checked: ["com.example.sample": try Self.profile("com.example.sample")])
        let listed = try Self.verifyFindings(output, ["--device", Self.devices[0]])
        #expect(listed.status == 0 && listed.found == [], "\(listed.found)")
        let stranger = try Self.verifyFindings(output, ["--device", Self.strangerDevice])
        #expect(stranger.status == 1)
        #expect(stranger.found == ["INSTALL_DEVICE_NOT_PROVISIONED error 0xe8008015"])
        // Without --device, what the profile allows.
        #expect(try Self.verifyFindings(output).found == ["INSTALL_PROFILE_DEVICES info"])
        // check and sign stop on the same device before anything is written.
        let profiles = scratch.path("profiles")
        try FileManager.default.createDirectory(atPath: profiles, withIntermediateDirectories: true)
        try Data(try Self.profile("com.example.sample")).write(to: URL(fileURLWithPath: profiles + "/app.mobileprovision"))
        let check = try Command.ipawrap(["check", input, "--profiles-dir", profiles, "--at", "2026-06-01", "--device", Self.strangerDevice])
        #expect(check.status == 1 && check.stdout.contains("INSTALL_DEVICE_NOT_PROVISIONED"), "\(check.stdout)")
        let signArguments = try ToolchainShapeSigningTests.signArguments(input, scratch.path("cli.ipa"), profiles: profiles, scratch: scratch)
        let sign = try Command.ipawrap(signArguments + ["--device", Self.strangerDevice])
        #expect(sign.status == 1 && sign.stdout.contains("INSTALL_DEVICE_NOT_PROVISIONED"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("cli.ipa")))
        #expect(try Command.ipawrap(signArguments + ["--device", Self.devices[1]]).status == 0)
    }

    @Test func anAppStoreProfileInstallsOnNoDevice() throws {
        let scratch = try ScratchDirectory("install-appstore")
        let input = try scratch.write("app.ipa", Self.app().bytes())
        let output = scratch.path("signed.ipa")
        let store = try Self.profile("com.example.sample") { $0.devices = nil; $0.name = "App Store" }
        try Self.librarySign(input, to: output, checked: ["com.example.sample": store])
        #expect(try Self.verifyFindings(output, ["--device", Self.devices[0]]).found == ["INSTALL_APP_STORE_PROFILE error 0xe8008015"])
        #expect(try Self.verifyFindings(output).found == ["INSTALL_PROFILE_DEVICES info"])
    }

    @Test func anEnterpriseProfileInstallsAnywhere() throws {
        let scratch = try ScratchDirectory("install-enterprise")
        let input = try scratch.write("app.ipa", Self.app().bytes())
        let output = scratch.path("signed.ipa")
        let inHouse = try Self.profile("com.example.sample") { $0.devices = nil; $0.provisionsAllDevices = true }
        try Self.librarySign(input, to: output, checked: ["com.example.sample": inHouse])
        #expect(try Self.verifyFindings(output, ["--device", Self.strangerDevice]).found == [])
    }

    @Test func anExpiredEmbeddedProfileIsRefusedAtTheDate() throws {
        let scratch = try ScratchDirectory("install-expired")
        let input = try scratch.write("app.ipa", Self.app().bytes())
        let output = scratch.path("signed.ipa")
        let short = try Self.profile("com.example.sample") {
            $0.expirationDate = PropertyListDate(iso8601: "2026-09-01T00:00:00Z") ?? $0.expirationDate
        }
        try Self.librarySign(input, to: output, checked: ["com.example.sample": short])
        #expect(try Self.verifyFindings(output, ["--device", Self.devices[0]]).found == [])
        let later = try Self.verifyFindings(output, ["--device", Self.devices[0], "--at", "2026-12-01"])
        #expect(later.found == ["INSTALL_PROFILE_EXPIRED error 0xe8008015"], "\(later.found)")
    }

    @Test func aProfileOfAnotherTeamIsNamed() throws {
        let scratch = try ScratchDirectory("install-team")
        let input = try scratch.write("app.ipa", Self.app().bytes())
        let output = scratch.path("signed.ipa")
        let fitting = try Self.profile("com.example.sample")
        // Checked against the fitting profile, embedding one of another team that lists our certificate.
        let other = try Self.profile("com.example.sample") {
            $0.teamIdentifier = "ZYXWV98765"
            $0.applicationIdentifierPrefix = "ZYXWV98765"
        }
        try Self.librarySign(input, to: output, checked: ["com.example.sample": fitting], embedded: ["com.example.sample": other])
        let found = try Self.verifyFindings(output, ["--device", Self.devices[0]]).found
        #expect(found.contains("INSTALL_PROFILE_TEAM_MISMATCH error 0xe8008015"), "\(found)")
    }

    @Test func anOSBelowTheMinimumAndCodeWithoutARM64AreRefused() throws {
        let scratch = try ScratchDirectory("install-os")
        let input = try scratch.write("app.ipa", Self.app().bytes())
        let output = scratch.path("signed.ipa")
        try Self.librarySign(input, to: output, checked: ["com.example.sample": try Self.profile("com.example.sample")])
        #expect(try Self.verifyFindings(output, ["--device", Self.devices[0], "--os", "15.0"]).found == [])
        #expect(try Self.verifyFindings(output, ["--device", Self.devices[0], "--os", "14.8"]).found
            == ["INSTALL_OS_TOO_OLD error DeviceOSVersionTooLow"])

        // 32-bit only: fine on iOS 10, refused from iOS 11.
        let old = Self.app(minimumOS: "9.0") { $0.executable = ToolchainShapes.fatCode(architectures: [(12, 9)], minimumOS: "9.0") }
        let oldInput = try scratch.write("old.ipa", old.bytes())
        let oldOutput = scratch.path("old.signed.ipa")
        try Self.librarySign(oldInput, to: oldOutput, checked: ["com.example.sample": try Self.profile("com.example.sample")])
        #expect(try Self.verifyFindings(oldOutput, ["--device", Self.devices[0], "--os", "10.3"]).found == [])
        #expect(try Self.verifyFindings(oldOutput, ["--device", Self.devices[0], "--os", "12"]).found
            == ["INSTALL_NO_ARM64 error IncorrectArchitecture"])
    }

    // MARK: Rules on the bundles (any device): check and sign refuse them too

    static let profiles: [String: [UInt8]] = {
        var made: [String: [UInt8]] = [:]
        for id in ["com.example.sample", "com.example.sample.share", "com.example.sample.watchkitapp", "com.example.other.share"] {
            made[id] = try? profile(id)
        }
        return made
    }()

    @Test(arguments: [
        ("extension point", "INSTALL_EXTENSION_POINT_MISSING error ApplicationVerificationFailed"),
        ("bundle version", "INSTALL_BUNDLE_VERSION_MISSING error InvalidBundleVersion"),
        ("prefix", "EXTENSION_ID_NOT_PREFIXED error 0xe800009e"),
        ("companion", "INSTALL_WATCH_COMPANION_MISMATCH error InvalidCompanionAppBundleIdentifier"),
        ("watchkit key", "INSTALL_WATCHKIT_APP_INVALID error InvalidWatchKitApp"),
        ("capability", "INSTALL_CAPABILITY_UNMET error DeviceNotSupported"),
    ])
    func aBundleInstalldRefusesGivesItsFindingEverywhere(_ rule: String, _ expected: String) throws {
        let scratch = try ScratchDirectory("install-bundle")
        func build(broken: Bool) -> IPABuilder {
            Self.app { builder in
                builder.addExtension("Share", bundleIdentifier: broken && rule == "prefix" ? "com.example.other.share" : "com.example.sample.share")
                builder.nested[0].profile = nil
                builder.nested[0].executable = ToolchainShapes.code(fileType: 8, signedAs: nil)
                var watch = ToolchainShapes.bundleInfo("W", "com.example.sample.watchkitapp", packageType: "APPL", extra: [
                    "WKCompanionAppBundleIdentifier": "com.example.sample", "WKWatchKitApp": true,
                ])
                watch["CFBundleExecutable"] = "W"
                builder.nested.append(IPABuilder.Nested(
                    path: "Watch/W.app", info: watch, executable: ToolchainShapes.code(platform: 4, cpuType: 0x0200_000C, signedAs: nil)))
                guard broken else { return }
                switch rule {
                case "extension point": builder.nested[0].info?["NSExtension"] = nil
                case "bundle version": builder.nested[0].info?["CFBundleVersion"] = nil
                case "companion": builder.nested[1].info?["WKCompanionAppBundleIdentifier"] = "com.example.elsewhere"
                case "watchkit key": builder.nested[1].info?["WKWatchKitApp"] = nil
                case "capability": builder.info["UIRequiredDeviceCapabilities"] = ["arm64"]
                    builder.executable = ToolchainShapes.fatCode(architectures: [(12, 9)], minimumOS: "9.0")
                default: break
                }
            }
        }
        let fittingInput = try scratch.write("fitting.ipa", build(broken: false).bytes())
        let fitting = scratch.path("fitting.signed.ipa")
        try Self.librarySign(fittingInput, to: fitting, checked: Self.profiles)
        #expect(try Self.verifyFindings(fitting, ["--device", Self.devices[0]]).found == [])

        let brokenInput = try scratch.write("broken.ipa", build(broken: true).bytes())
        let broken = scratch.path("broken.signed.ipa")
        try Self.librarySign(brokenInput, to: broken, checked: Self.profiles)
        let (status, found) = try Self.verifyFindings(broken, ["--device", Self.devices[0]])
        #expect(status == 1)
        #expect(found == [expected], "\(rule): \(found)")

        // check (for wrap and for sign) and sign stop on it, and write nothing.
        let folder = scratch.path("profiles")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (id, bytes) in Self.profiles { try Data(bytes).write(to: URL(fileURLWithPath: folder + "/\(id).mobileprovision")) }
        let code = String(expected.split(separator: " ")[0])
        for purpose in ["wrap", "sign"] {
            let check = try Command.ipawrap(["check", brokenInput, "--for", purpose, "--profiles-dir", folder, "--at", "2026-06-01", "--json"])
            #expect(check.status == 1 && check.stdout.contains("\"\(code)\""), "check --for \(purpose): \(check.stdout)")
        }
        let sign = try Command.ipawrap(
            try ToolchainShapeSigningTests.signArguments(brokenInput, scratch.path("cli.ipa"), profiles: folder, scratch: scratch))
        #expect(sign.status == 1 && sign.stdout.contains(code), "\(sign.stdout)\(sign.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("cli.ipa")))
    }

    @Test func badDeviceAndOSValuesAreUsageErrors() throws {
        let scratch = try ScratchDirectory("install-usage")
        let input = try scratch.write("app.ipa", Self.app().bytes())
        for arguments in [["--device", "not-a-udid"], ["--os", "seventeen"], ["--os", "17.1.2.3"]] {
            let result = try Command.ipawrap(["verify", input] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("ipawrap: error[USAGE]"), "\(result.stderr)")
        }
    }
}
