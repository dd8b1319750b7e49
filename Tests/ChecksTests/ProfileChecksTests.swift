import Checks
import Foundation
import PropertyList
import Reporting
import Testing
import TestSupport

/// One profile per bundle, the explicit App ID rules, expiry, teams and identifiers, on
/// realistic IPAs built with `IPABuilder` and the committed profiles.
struct ProfileChecksTests {
    typealias S = ProfileScenario

    @Test func anAppWithTwoExtensionsAndTheirOwnProfilesIsClean() throws {
        let report = try S.inspect(S.app())
        #expect(report.profileFindings.isEmpty, "\(report.profileFindings)")
        #expect(report.profiles.map(\.bundlePath) == [S.appPath, S.sharePath, S.widgetPath])
        let app = try #require(report.profile(for: S.appPath))
        #expect(app.source == .embedded)
        #expect(app.file == S.appPath + "/embedded.mobileprovision")
        #expect(app.appIdentifier == "ABCDE12345.com.example.sample")
        #expect(app.wildcard == false)
        #expect(app.teamId == "ABCDE12345")
        #expect(app.expirationDate.map(ReportJSON.timestamp) == "2036-01-01T00:00:00Z")
        #expect(app.kind == .development)
        #expect(report.profile(for: S.sharePath)?.appIdentifier == "ABCDE12345.com.example.sample.share")
        #expect(!report.hasErrors)
    }

    @Test func anExtensionWithoutAProfileIsNamed() throws {
        let report = try S.inspect(S.app(widget: nil))
        let missing = report.findings("PROFILE_MISSING")
        #expect(missing.count == 1)
        let finding = try #require(missing.first)
        #expect(finding.severity == .error)
        #expect(finding.path == S.widgetPath)
        #expect(finding.message.contains(S.widgetPath) && finding.message.contains(S.widgetID))
        #expect(finding.message.contains("app extension"))
        #expect(finding.remedy?.contains("--profile \(S.widgetID)=PATH") == true)
        #expect(report.profiles.count == 2)
        #expect(report.hasErrors)
    }

    @Test func anExtensionWithAnotherBundlesProfileIsAMismatch() throws {
        // The widget ships the share extension's profile.
        let report = try S.inspect(S.app(widget: S.fixture(.share)))
        let mismatch = report.findings("APP_ID_MISMATCH")
        #expect(mismatch.count == 1)
        let finding = try #require(mismatch.first)
        #expect(finding.severity == .error)
        #expect(finding.path == S.widgetPath)
        #expect(finding.message.contains(S.widgetID))
        #expect(finding.message.contains("ABCDE12345.com.example.sample.share"))
        #expect(finding.message.contains(S.widgetPath + "/embedded.mobileprovision"))
        #expect(finding.message.contains("embedded in the bundle"))
        #expect(finding.remedy?.contains("--profile \(S.widgetID)=PATH") == true)
    }

    @Test func theAppsProfileOnAnExtensionIsAMismatchToo() throws {
        let report = try S.inspect(S.app(share: S.fixture(.app)))
        #expect(report.findings("APP_ID_MISMATCH").map(\.path) == [S.sharePath])
    }

    @Test func wildcardAppIDsAreErrorsOrWarningsWithAllowWildcard() throws {
        let builder = S.app(app: S.fixture(.wildcard), share: S.fixture(.partialWildcard))
        let report = try S.inspect(builder)
        let wildcards = report.findings("APP_ID_WILDCARD")
        #expect(wildcards.count == 2)
        #expect(wildcards.allSatisfy { $0.severity == .error })
        #expect(report.findings("APP_ID_MISMATCH").isEmpty)
        let app = try #require(wildcards.first { $0.path == S.appPath + "/embedded.mobileprovision" })
        #expect(app.message.contains("ABCDE12345.*"))
        #expect(app.message.contains(S.appPath))
        #expect(app.remedy?.contains("ABCDE12345.com.example.sample") == true)
        let share = try #require(wildcards.first { $0.path == S.sharePath + "/embedded.mobileprovision" })
        #expect(share.message.contains("ABCDE12345.com.example.*"))
        #expect(share.message.contains("starting with com.example."))
        #expect(report.profile(for: S.appPath)?.wildcard == true)

        let allowed = try S.inspect(builder, options: CheckOptions(allowWildcard: true, evaluationDate: S.now))
        let relaxed = allowed.findings("APP_ID_WILDCARD")
        #expect(relaxed.count == 2)
        #expect(relaxed.allSatisfy { $0.severity == .warning })
        #expect(relaxed.allSatisfy { $0.message.contains("--allow-wildcard") })
        // Signing must expand the wildcard (fastlane #18214).
        #expect(relaxed.first { $0.path?.hasPrefix(S.appPath + "/embedded") == true }?.remedy?
            .contains("ABCDE12345.com.example.sample, not ABCDE12345.*") == true)
        #expect(!allowed.findings.contains { $0.severity == .error && $0.code.hasPrefix("APP_ID") })
    }

    /// A profile another project made (isign's tests, in `../shared`): a full wildcard, expired,
    /// of another team, with an expired certificate; the generated profiles above cover each fact.
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func isignsWildcardProfileEmbedded() throws {
        let report = try S.inspect(S.app(app: try IsignFixture.bytes("test.mobileprovision")))
        let wildcard = try #require(report.findings("APP_ID_WILDCARD").first)
        #expect(wildcard.message.contains("'RDC-Dev'"))
        #expect(wildcard.message.contains("ISIGNTESTS.*"))
        #expect(report.findings("PROFILE_EXPIRED").first?.message.contains("2017-11-28T22:57:49Z") == true)
        // The app's profile is team ISIGNTESTS, the extensions' ABCDE12345.
        let team = try #require(report.findings("TEAM_MISMATCH").first)
        #expect(team.message.contains("ISIGNTESTS"))
        #expect(team.message.contains(S.sharePath) && team.message.contains(S.widgetPath))
        #expect(report.findings("PROFILE_CERTIFICATE_EXPIRED").first?.message.contains("isign_tests") == true)
    }

    @Test func expiredAndExpiring() throws {
        let expired = try S.inspect(S.app(app: S.fixture(.expired)))
        let finding = try #require(expired.findings("PROFILE_EXPIRED").first)
        #expect(finding.severity == .error)
        #expect(finding.message.contains("2024-01-01T00:00:00Z"))
        // The moment it was judged at is the report's `judgedAt`, never in a message (issue 18.6).
        #expect(!finding.message.contains("2026-06-01T00:00:00Z"))
        #expect(expired.judgedAt.map(ReportJSON.timestamp) == "2026-06-01T00:00:00Z")
        #expect(finding.message.contains("'Sample App Expired'"))

        // 17 days before every profile's expiration.
        let soon = try S.inspect(S.app(), options: CheckOptions(evaluationDate: S.date("2035-12-15T00:00:00Z")))
        let expiring = soon.findings("PROFILE_EXPIRING")
        #expect(expiring.count == 3)
        #expect(expiring.allSatisfy { $0.severity == .warning && $0.message.contains("in 17 days") })
        #expect(soon.findings("PROFILE_EXPIRED").isEmpty)

        // 31 days before is not yet "expiring"; the expiration instant itself is expired.
        #expect(try S.inspect(S.app(), options: CheckOptions(evaluationDate: S.date("2035-12-01T00:00:00Z")))
            .findings("PROFILE_EXPIRING").isEmpty)
        #expect(try S.inspect(S.app(), options: CheckOptions(evaluationDate: S.date("2036-01-01T00:00:00Z")))
            .findings("PROFILE_EXPIRED").count == 3)
    }

    @Test func profilesOfDifferentTeams() throws {
        let report = try S.inspect(S.app(app: S.fixture(.otherTeam)))
        let findings = report.findings("TEAM_MISMATCH")
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.severity == .error)
        #expect(finding.message.contains("the app's team is ZYXWV98765"))
        #expect(finding.message.contains("\(S.sharePath) has team ABCDE12345"))
        #expect(finding.message.contains("\(S.widgetPath) has team ABCDE12345"))
    }

    @Test func extensionIdentifiersMustStartWithTheApps() throws {
        var builder = S.app()
        builder.addExtension("Stray", bundleIdentifier: "com.other.stray", profile: S.fixture(.partialWildcard))
        let report = try S.inspect(builder, options: CheckOptions(allowWildcard: true, evaluationDate: S.now))
        let findings = report.findings("EXTENSION_ID_NOT_PREFIXED")
        #expect(findings.map(\.path) == ["Payload/Sample.app/PlugIns/Stray.appex"])
        let finding = try #require(findings.first)
        #expect(finding.severity == .error)
        #expect(finding.message.contains("com.other.stray") && finding.message.contains("com.example.sample"))
        #expect(finding.remedy?.contains("com.example.sample.Stray") == true)
        // Its wildcard profile does not match com.other.stray either.
        #expect(report.findings("APP_ID_MISMATCH").map(\.path) == ["Payload/Sample.app/PlugIns/Stray.appex"])
    }

    @Test func aLookalikePrefixIsNotEnough() throws {
        var builder = S.app()
        // "com.example.samplextra" starts with "com.example.sample" but not with "com.example.sample.".
        builder.addExtension("Extra", bundleIdentifier: "com.example.samplextra", profile: S.fixture(.partialWildcard))
        let report = try S.inspect(builder, options: CheckOptions(allowWildcard: true, evaluationDate: S.now))
        #expect(report.findings("EXTENSION_ID_NOT_PREFIXED").map(\.path) == ["Payload/Sample.app/PlugIns/Extra.appex"])
    }

    @Test(arguments: [
        ("garbage", Array("not a profile".utf8)),
        ("truncated", Array(ProfileScenario.fixture(.app).prefix(1_000))),
        ("empty", [UInt8]()),
        ("bare plist", Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict/></plist>".utf8)),
    ])
    func anUnreadableEmbeddedProfileIsAFindingNotACrash(_ name: String, _ bytes: [UInt8]) throws {
        let report = try S.inspect(S.app(share: bytes))
        let unreadable = report.findings("PROFILE_UNREADABLE")
        #expect(unreadable.count == 1, "\(name)")
        let finding = try #require(unreadable.first)
        #expect(finding.severity == .error)
        #expect(finding.path == S.sharePath + "/embedded.mobileprovision")
        #expect(finding.message.contains("[PROFILE_"), "\(finding.message)")
        #expect(report.findings("PROFILE_MISSING").isEmpty)
        #expect(report.profiles.count == 2)
    }

    @Test func berProfilesAndLegacyPrefixesAreReadAndMatched() throws {
        let report = try S.inspect(S.app(app: S.fixture(.berIndefinite), share: nil, widget: nil))
        #expect(report.findings("APP_ID_MISMATCH").isEmpty)
        #expect(report.profile(for: S.appPath)?.appIdentifier == "ABCDE12345.com.example.sample")
        let legacy = try S.inspect(S.app(app: S.fixture(.legacyPrefix)))
        #expect(legacy.findings("APP_ID_MISMATCH").isEmpty)
        #expect(legacy.findings("TEAM_MISMATCH").isEmpty)
        #expect(legacy.profile(for: S.appPath)?.appIdentifier == "LEGACY9876.com.example.sample")
        #expect(legacy.profile(for: S.appPath)?.teamId == "ABCDE12345")
    }

    @Test func distributionKindsInTheReport() throws {
        for (fixture, kind) in [(ProfileBuilder.Fixture.adhoc, "adhoc"), (.enterprise, "enterprise"), (.appstore, "appstore")] {
            let report = try S.inspect(S.app(app: S.fixture(fixture)))
            #expect(report.profile(for: S.appPath)?.kind?.rawValue == kind)
        }
    }

    @Test func aProfileForAnotherPlatformIsAWarning() throws {
        let report = try S.inspect(S.app(app: S.fixture(.macOS)))
        let finding = try #require(report.findings("PROFILE_NOT_IOS").first)
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("OSX"))
    }

    @Test func expiredDeveloperCertificates() throws {
        let report = try S.inspect(S.app(app: S.fixture(.expiredCertificate)))
        let finding = try #require(report.findings("PROFILE_CERTIFICATE_EXPIRED").first)
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("iPhone Distribution: Example Corp (ABCDE12345)"))
        #expect(finding.message.contains("0F0E0D0C"))
        #expect(finding.message.contains("2021-01-01T00:00:00Z"))
        #expect(try S.inspect(S.app()).findings("PROFILE_CERTIFICATE_EXPIRED").isEmpty)
    }

    @Test(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed: profiles cannot be signed here"))
    func profilesWithoutAReadableCertificate() throws {
        #expect(try S.inspect(S.app()).findings("PROFILE_CERTIFICATE_INVALID").isEmpty)
        var none = ProfileBuilder()
        none.developerCertificates = []
        let noCertificate = try #require(try S.inspect(S.app(app: try none.signed())).findings("PROFILE_CERTIFICATE_INVALID").first)
        #expect(noCertificate.severity == .warning)
        #expect(noCertificate.message.contains("lists no developer certificate"), "\(noCertificate.message)")
        #expect(noCertificate.path == S.appPath + "/embedded.mobileprovision")
        var garbage = ProfileBuilder()
        garbage.developerCertificates = [Array("not a certificate".utf8)]
        let unreadable = try #require(try S.inspect(S.app(app: try garbage.signed())).findings("PROFILE_CERTIFICATE_INVALID").first)
        #expect(!unreadable.message.contains("lists no developer certificate"), "\(unreadable.message)")
        #expect(unreadable.remedy == FindingCode.profileCertificateInvalid.remedy)
    }

    @Test func anAppClipNeedsAProfileOfItsOwn() throws {
        let clipID = "com.example.sample.Clip"
        var builder = S.app()
        builder.nested.append(.init(path: "AppClips/Clip.app", info: IPABuilder.infoPlist(name: "Clip", bundleIdentifier: clipID)))
        builder.nested[builder.nested.count - 1].profile = nil
        let report = try S.inspect(builder)
        let missing = try #require(report.findings("PROFILE_MISSING").first)
        #expect(missing.path == "Payload/Sample.app/AppClips/Clip.app")
        #expect(missing.message.contains(clipID), "\(missing.message)")
        #expect(report.findings("PROFILE_MISSING").count == 1)
        // Given its own profile, the clip is judged like any bundle: an app profile is a mismatch.
        builder.nested[builder.nested.count - 1].profile = S.fixture(.app)
        let mismatched = try S.inspect(builder)
        #expect(mismatched.findings("PROFILE_MISSING").isEmpty)
        #expect(mismatched.findings("APP_ID_MISMATCH").map(\.path) == ["Payload/Sample.app/AppClips/Clip.app"])
    }

    @Test func dataProtection() throws {
        #expect(try S.inspect(S.app()).findings("DATA_PROTECTION_NOT_ENABLED").isEmpty)
        let report = try S.inspect(S.app(app: S.fixture(.wildcard)))
        let finding = try #require(report.findings("DATA_PROTECTION_NOT_ENABLED").first)
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("com.apple.developer.default-data-protection"))
        #expect(finding.remedy?.contains("Enable Data Protection") == true)
        #expect(finding.remedy?.contains("regenerate the profile") == true)
        // Only the app's profile is judged: the share profile lacks nothing here, the widget's
        // partial wildcard lacks the key but is not the app.
        let extensions = try S.inspect(S.app(widget: S.fixture(.partialWildcard)), options: CheckOptions(allowWildcard: true, evaluationDate: S.now))
        #expect(extensions.findings("DATA_PROTECTION_NOT_ENABLED").isEmpty)
    }

    @Test(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed: profiles cannot be signed here"))
    func aWeakerDataProtectionClassIsInfo() throws {
        var builder = ProfileBuilder()
        builder.extraEntitlements = ["com.apple.developer.default-data-protection": "NSFileProtectionCompleteUntilFirstUserAuthentication"]
        let report = try S.inspect(S.app(app: try builder.signed()))
        let finding = try #require(report.findings("DATA_PROTECTION_NOT_ENABLED").first)
        #expect(finding.severity == .info)
        #expect(finding.message.contains("NSFileProtectionCompleteUntilFirstUserAuthentication"))
    }

    @Test func everyProfileCodeIsCatalogued() {
        for code in [
            "APP_ID_WILDCARD", "APP_ID_MISMATCH", "PROFILE_MISSING", "PROFILE_EXPIRED", "PROFILE_EXPIRING",
            "TEAM_MISMATCH", "EXTENSION_ID_NOT_PREFIXED", "PROFILE_UNREADABLE", "ENTITLEMENT_NOT_IN_PROFILE",
            "DATA_PROTECTION_NOT_ENABLED", "PROFILE_NOT_IOS",
        ] {
            #expect(FindingCode.named(code) != nil, "\(code)")
        }
        // Severities from docs/finding-codes.md.
        #expect(FindingCode.named("APP_ID_WILDCARD")?.severity == .error)
        #expect(FindingCode.named("PROFILE_EXPIRING")?.severity == .warning)
        #expect(FindingCode.named("TEAM_MISMATCH")?.severity == .error)
        let raw = FindingCode.all.map(\.rawValue)
        #expect(Set(raw).count == raw.count)
    }
}
