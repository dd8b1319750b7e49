import Checks
import FormatSupport
import Foundation
import Reporting
import Testing
import TestSupport

/// Which profile each bundle gets: `--profile BUNDLE_ID=PATH`, `--profile PATH` (the app),
/// `--profiles-dir` by App ID (exact, then the longest wildcard, then `*`), then the embedded one.
struct ProfileAssignmentTests {
    typealias S = ProfileScenario

    /// fastlane #4642: a wildcard profile must not grab an extension that has an explicit one,
    /// whatever the file order.
    @Test func theFolderPrefersExactThenPartialThenFullWildcards() throws {
        let folder = try S.folder([
            "0-any.mobileprovision": S.fixture(.wildcard),
            "1-partial.mobileprovision": S.fixture(.partialWildcard),
            "2-app.mobileprovision": S.fixture(.app),
            "3-share.mobileprovision": S.fixture(.share),
            "notes.txt": Array("not a profile, not read".utf8),
        ])
        let report = try S.inspect(
            S.app(app: nil, share: nil, widget: nil),
            options: CheckOptions(profiles: try ProfileSet(directory: folder.path), allowWildcard: true, evaluationDate: S.now))
        #expect(report.profiles.map(\.source) == [.directory, .directory, .directory])
        #expect(report.profile(for: S.appPath)?.file == folder.path("2-app.mobileprovision"))
        #expect(report.profile(for: S.sharePath)?.file == folder.path("3-share.mobileprovision"))
        // No exact profile for the widget: the partial wildcard beats `*`.
        #expect(report.profile(for: S.widgetPath)?.file == folder.path("1-partial.mobileprovision"))
        #expect(report.profile(for: S.widgetPath)?.wildcard == true)
        #expect(report.findings("APP_ID_WILDCARD").map(\.path) == [folder.path("1-partial.mobileprovision")])
        #expect(report.findings("PROFILE_MISSING").isEmpty)
        #expect(report.findings("PROFILE_AMBIGUOUS").isEmpty)
    }

    @Test func theFolderWinsOverEmbeddedProfiles() throws {
        let folder = try S.folder(["share.mobileprovision": S.fixture(.share)])
        // The share extension embeds the wrong profile; the folder has the right one.
        let report = try S.inspect(
            S.app(share: S.fixture(.widget)), options: CheckOptions(profiles: try ProfileSet(directory: folder.path), evaluationDate: S.now))
        #expect(report.profile(for: S.sharePath)?.source == .directory)
        #expect(report.profile(for: S.appPath)?.source == .embedded)
        #expect(report.findings("APP_ID_MISMATCH").isEmpty)
    }

    @Test func aBundleTheFolderDoesNotCoverIsMissingAndTheMessageSaysWhereItLooked() throws {
        let folder = try S.folder(["app.mobileprovision": S.fixture(.app), "share.mobileprovision": S.fixture(.share)])
        let report = try S.inspect(
            S.app(app: nil, share: nil, widget: nil),
            options: CheckOptions(profiles: try ProfileSet(directory: folder.path), evaluationDate: S.now))
        let missing = try #require(report.findings("PROFILE_MISSING").first)
        #expect(report.findings("PROFILE_MISSING").count == 1)
        #expect(missing.path == S.widgetPath)
        #expect(missing.message.contains("none of the 2 profiles in \(folder.path)"))
    }

    @Test func equallyGoodMatchesPickTheOneExpiringLast() throws {
        let folder = try S.folder([
            "a-expired.mobileprovision": S.fixture(.expired),
            "b-current.mobileprovision": S.fixture(.app),
        ])
        let report = try S.inspect(
            S.app(app: nil), options: CheckOptions(profiles: try ProfileSet(directory: folder.path), evaluationDate: S.now))
        #expect(report.profile(for: S.appPath)?.file == folder.path("b-current.mobileprovision"))
        #expect(report.findings("PROFILE_EXPIRED").isEmpty)
        let ambiguous = try #require(report.findings("PROFILE_AMBIGUOUS").first)
        #expect(ambiguous.severity == .info)
        #expect(ambiguous.message.contains("used profile 'Sample App Development' (\(folder.path("b-current.mobileprovision")))"))
        #expect(ambiguous.message.contains("also matching: \(folder.path("a-expired.mobileprovision"))"))
    }

    @Test func amongEqualMatchesAnIOSProfileBeatsAnotherPlatform() throws {
        let folder = try S.folder(["a-macos.mobileprovision": S.fixture(.macOS), "b-app.mobileprovision": S.fixture(.app)])
        let report = try S.inspect(S.app(app: nil), options: CheckOptions(profiles: try ProfileSet(directory: folder.path), evaluationDate: S.now))
        #expect(report.profile(for: S.appPath)?.file == folder.path("b-app.mobileprovision"))
        #expect(report.findings("PROFILE_NOT_IOS").isEmpty)
    }

    @Test(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed: profiles cannot be signed here"))
    func amongEqualMatchesTheAppsTeamWins() throws {
        let otherTeam = try ProfileBuilder(bundlePattern: "*", team: "ZYXWV98765", teamName: "Other Company").signed()
        let folder = try S.folder([
            "a-other.mobileprovision": otherTeam, "b-ours.mobileprovision": S.fixture(.wildcard),
            "c-app.mobileprovision": S.fixture(.app),
        ])
        // The app's exact profile sets the team; the extensions' wildcards follow it, not file order.
        let report = try S.inspect(
            S.app(app: nil, share: nil, widget: nil),
            options: CheckOptions(profiles: try ProfileSet(directory: folder.path), allowWildcard: true, evaluationDate: S.now))
        #expect(report.profile(for: S.appPath)?.file == folder.path("c-app.mobileprovision"))
        #expect(report.profile(for: S.sharePath)?.file == folder.path("b-ours.mobileprovision"))
        #expect(report.profile(for: S.widgetPath)?.teamId == "ABCDE12345")
        #expect(report.findings("TEAM_MISMATCH").isEmpty)
    }

    @Test func profileOptions() throws {
        let folder = try S.folder(["app.mobileprovision": S.fixture(.app), "widget.mobileprovision": S.fixture(.widget)])
        let report = try S.inspect(
            S.app(app: S.fixture(.wildcard), widget: nil),
            options: CheckOptions(
                profiles: try ProfileSet(
                    appProfile: folder.path("app.mobileprovision"),
                    bundleProfiles: [S.widgetID: folder.path("widget.mobileprovision")]),
                evaluationDate: S.now))
        #expect(report.profile(for: S.appPath)?.source == .option)
        #expect(report.profile(for: S.appPath)?.file == folder.path("app.mobileprovision"))
        #expect(report.profile(for: S.widgetPath)?.source == .option)
        #expect(report.profile(for: S.sharePath)?.source == .embedded)
        #expect(report.profileFindings.isEmpty, "\(report.profileFindings)")
    }

    @Test func aBundleIDOptionForTheAppWinsOverThePlainOne() throws {
        let folder = try S.folder(["app.mobileprovision": S.fixture(.app), "wild.mobileprovision": S.fixture(.wildcard)])
        let report = try S.inspect(
            S.app(),
            options: CheckOptions(
                profiles: try ProfileSet(
                    appProfile: folder.path("wild.mobileprovision"), bundleProfiles: [S.appID: folder.path("app.mobileprovision")]),
                evaluationDate: S.now))
        #expect(report.profile(for: S.appPath)?.file == folder.path("app.mobileprovision"))
        #expect(report.findings("PROFILE_OPTION_UNUSED").first?.message.contains("wild.mobileprovision") == true)
    }

    @Test func anOptionNamingNoBundleIsAWarning() throws {
        let folder = try S.folder(["share.mobileprovision": S.fixture(.share)])
        let report = try S.inspect(
            S.app(),
            options: CheckOptions(
                profiles: try ProfileSet(bundleProfiles: ["com.example.sample.shar": folder.path("share.mobileprovision")]),
                evaluationDate: S.now))
        let finding = try #require(report.findings("PROFILE_OPTION_UNUSED").first)
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("com.example.sample.shar="))
        #expect(finding.message.contains(S.shareID))
    }

    @Test func optionFilesThatCannotBeReadAreIOErrors() throws {
        let folder = try S.folder(["garbage.mobileprovision": Array("garbage".utf8)])
        func error(_ load: () throws -> ProfileSet) -> (any CodedError)? {
            do {
                _ = try S.inspect(S.app(), options: CheckOptions(profiles: try load()))
                return nil
            } catch let error as any CodedError {
                return error
            } catch {
                return nil
            }
        }
        let missing = try #require(error { try ProfileSet(appProfile: folder.path("missing.mobileprovision")) })
        #expect(missing.category == .io)
        #expect(missing.code == "PROFILE_FILE_UNREADABLE")
        #expect(missing.description.contains("missing.mobileprovision"))

        let garbage = try #require(error { try ProfileSet(bundleProfiles: [S.shareID: folder.path("garbage.mobileprovision")]) })
        #expect(garbage.category == .invalidInput)
        #expect(garbage.code.hasPrefix("PROFILE_"))
        #expect(garbage.description.contains("garbage.mobileprovision"))

        let badFolder = try #require(error { try ProfileSet(directory: folder.path) })
        #expect(badFolder.category == .invalidInput)
        #expect(badFolder.description.contains("garbage.mobileprovision"))

        let noFolder = try #require(error { try ProfileSet(directory: folder.path("nope")) })
        #expect(noFolder.category == .io)
        let fileAsFolder = try #require(error { try ProfileSet(directory: folder.path("garbage.mobileprovision")) })
        #expect(fileAsFolder.category == .io)
    }

    @Test func frameworksNeedNoProfile() throws {
        var builder = S.app()
        builder.addFramework("Kit", bundleIdentifier: "com.vendor.kit")
        let report = try S.inspect(builder)
        #expect(report.findings("PROFILE_MISSING").isEmpty)
        #expect(report.findings("EXTENSION_ID_NOT_PREFIXED").isEmpty)
        #expect(report.profiles.count == 3)
    }

    @Test func watchAppsAndTheirExtensionsGetProfilesToo() throws {
        var builder = S.app()
        var watchInfo = IPABuilder.infoPlist(name: "Watch", bundleIdentifier: "com.example.sample.watchkitapp")
        watchInfo["WKCompanionAppBundleIdentifier"] = .string(S.appID)
        builder.nested.append(IPABuilder.Nested(path: "Watch/Watch.app", info: watchInfo, profile: nil))
        var extensionInfo = IPABuilder.infoPlist(name: "WatchExtension", bundleIdentifier: "com.example.other.watchkitextension", packageType: "XPC!")
        extensionInfo["NSExtension"] = ["NSExtensionPointIdentifier": "com.apple.watchkit"]
        builder.nested.append(IPABuilder.Nested(path: "Watch/Watch.app/PlugIns/WatchExtension.appex", info: extensionInfo))
        let report = try S.inspect(builder)
        #expect(report.findings("PROFILE_MISSING").compactMap(\.path).sorted() == [
            "Payload/Sample.app/Watch/Watch.app", "Payload/Sample.app/Watch/Watch.app/PlugIns/WatchExtension.appex",
        ])
        // The watch extension must start with the watch app's identifier.
        let prefix = try #require(report.findings("EXTENSION_ID_NOT_PREFIXED").first)
        #expect(prefix.path == "Payload/Sample.app/Watch/Watch.app/PlugIns/WatchExtension.appex")
        #expect(prefix.message.contains("com.example.sample.watchkitapp"))
    }
}
