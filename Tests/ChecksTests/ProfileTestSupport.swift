import Checks
import Foundation
import PropertyList
import Reporting
import TestSupport

/// An app with a share and a widget extension, each with its own explicit profile: the baseline
/// the profile tests change one thing at a time.
enum ProfileScenario {
    static let appID = "com.example.sample"
    static let shareID = "com.example.sample.share"
    static let widgetID = "com.example.sample.widget"
    static let appPath = "Payload/Sample.app"
    static let sharePath = "Payload/Sample.app/PlugIns/Share.appex"
    static let widgetPath = "Payload/Sample.app/PlugIns/Widget.appex"

    static func app(
        app: [UInt8]? = fixture(.app), share: [UInt8]? = fixture(.share), widget: [UInt8]? = fixture(.widget)
    ) -> IPABuilder {
        var builder = IPABuilder(appName: "Sample", bundleIdentifier: appID)
        builder.addPrimaryIcon()
        builder.profile = app
        builder.addExtension("Share", bundleIdentifier: shareID)
        builder.nested[builder.nested.count - 1].profile = share
        builder.addExtension("Widget", bundleIdentifier: widgetID)
        builder.nested[builder.nested.count - 1].profile = widget
        return builder
    }

    static func fixture(_ fixture: ProfileBuilder.Fixture) -> [UInt8] {
        (try? ProfileBuilder.fixture(fixture)) ?? []
    }

    /// The moment the tests judge expiry at: every fixture but `expired` is valid then.
    static let now = date("2026-06-01T00:00:00Z")

    static func date(_ text: String) -> Date {
        Date(timeIntervalSince1970: PropertyListDate(iso8601: text)?.secondsSince1970 ?? .nan)
    }

    static func inspect(_ builder: IPABuilder, options: CheckOptions = CheckOptions(evaluationDate: now)) throws -> Report {
        let scratch = try ScratchDirectory("profile-checks")
        let path = try scratch.write("Sample.ipa", try builder.bytes())
        return try Inspector.inspect(
            path: path, options: options, toolData: BinaryFixture.shippedData(), tool: Report.Tool(name: "ipawrap", version: "test")).report
    }

    /// Profile files written to a folder, for `--profile` and `--profiles-dir`.
    static func folder(_ files: [String: [UInt8]]) throws -> ScratchDirectory {
        let scratch = try ScratchDirectory("profiles")
        for (name, bytes) in files { try scratch.write(name, bytes) }
        return scratch
    }
}

extension Report {
    /// Findings of the profile area (the other areas' codes are left out).
    var profileFindings: [Finding] {
        let codes = Set([
            "APP_ID_WILDCARD", "APP_ID_MISMATCH", "PROFILE_MISSING", "PROFILE_UNREADABLE", "PROFILE_EXPIRED",
            "PROFILE_EXPIRING", "TEAM_MISMATCH", "EXTENSION_ID_NOT_PREFIXED", "PROFILE_NOT_IOS",
            "PROFILE_CERTIFICATE_EXPIRED", "PROFILE_CERTIFICATE_INVALID", "PROFILE_OPTION_UNUSED", "PROFILE_AMBIGUOUS",
            "ENTITLEMENT_NOT_IN_PROFILE", "SIGNED_ENTITLEMENTS_UNREADABLE", "DATA_PROTECTION_NOT_ENABLED",
        ])
        return findings.filter { codes.contains($0.code) }
    }

    func findings(_ code: String) -> [Finding] {
        findings.filter { $0.code == code }
    }

    func profile(for bundlePath: String) -> Profile? {
        profiles.first { $0.bundlePath == bundlePath }
    }
}
