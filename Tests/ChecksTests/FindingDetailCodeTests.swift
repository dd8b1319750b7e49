import AppBundle
import Foundation
import Policy
import Reporting
import Testing
import ToolData

/// Every detail case names its code, and every code of the catalogue is named by a detail: a
/// check builds a finding from its facts alone, so a code missing from `FindingCode.all` (no SARIF
/// rule, no JUnit area, no row in docs/finding-codes.md) or one no detail reports would fail here.
@Suite struct FindingDetailCodeTests {
    static let date = Date(timeIntervalSince1970: 1_767_225_600)
    static let profile = ProfileReference(name: "P", file: "p.mobileprovision")
    static let code = CodeReference(path: "Payload/A.app/A")
    static let directory = CodeDirectoryReference(hashType: "SHA-256", slot: 0)
    static let ats = ATSSettings(allowsArbitraryLoads: true, scopedKeysPresent: [], scopedKeysEnabled: [])

    /// One value of every case of every area's detail.
    static func samples() throws -> [FindingDetail] {
        let toolkit = try ToolkitVersion(option: "20.9.0")
        let icon: [IconDetail] = [
            .referenceMissing(appPath: "A", source: .iconFiles, name: "I", candidates: []), .unreadable(path: "I", reason: "r"),
            .notFound(appPath: "A"),
        ]
        let bundle: [BundleDetail] = [
            .platformUnsupported(appPath: "A", platform: .tvOS), .nestedBundleUnreadable(bundlePath: "B", problem: "p"),
            .bundleIdentifierInvalid(bundlePath: "B", problem: "p"), .executableNotNamed(bundlePath: "B"),
            .executableFileMissing(bundlePath: "B", name: "n", path: "B/n"), .executableInvalid(bundlePath: "B", reason: "r"),
            .simulatorBuild(appPath: "A", evidence: "e"), .noCode(bundlePath: "B", kind: .framework, reason: "r"),
            .codeMerged(bundlePath: "B", name: "N"),
        ]
        let binary: [BinaryDetail] = [
            .encrypted(binaryPath: "A", architectures: ["arm64"]), .unreadable(binaryPath: "A", problems: ["p"]),
            .sdkStatic(binaryPath: "A", family: "MDX", classes: ["C"], toolkit: toolkit),
            .sdkVersionUnknown(frameworkPath: "F", family: "MDX", version: nil, toolkit: toolkit),
            .sdkVersionMismatch(frameworkPath: "F", family: "MDX", version: "1.0.0", toolkit: toolkit),
            .sdkVersionInconsistent(appPath: "A", family: "MDX", frameworks: []),
            .multipleManagementSDKs(appPath: "A", families: []), .intuneMultiIdentity(bundlePath: "B"),
            .privateSQLite(path: "A", evidence: []), .sqlcipher(path: "A", evidence: []),
            .opensslStatic(binaryPath: "A", symbols: [], banner: nil), .uiWebView(binaryPath: "A", library: "L"),
            .urlSessionBackground(binaryPath: "A", selectors: []), .crossPlatform(appPath: "A", framework: .flutter, evidence: []),
            .xamarin(appPath: "A", evidence: []),
            .appTransportSecurity(bundlePath: "B", settings: ats, minimumMajor: 12),
            .appTransportSecurity(
                bundlePath: "B",
                settings: ATSSettings(
                    allowsArbitraryLoads: true, scopedKeysPresent: ["NSAllowsLocalNetworking"],
                    scopedKeysEnabled: ["NSAllowsLocalNetworking"]),
                minimumMajor: 12),
        ]
        let profile: [ProfileDetail] = [
            .wildcardAppID(
                profile: Self.profile, bundlePath: nil, appID: "T.*", teamPrefix: "T", bundleIdentifier: nil, stem: nil,
                accepted: false, grantsPushNotifications: false),
            .expired(profile: Self.profile, bundlePath: nil, expiration: date),
            .expiring(profile: Self.profile, bundlePath: nil, expiration: date, days: 1),
            .notForIOS(profile: Self.profile, bundlePath: nil, platforms: ["tvOS"]),
            .certificatesExpired(profile: Self.profile, certificates: [], total: 1),
            .certificatesInvalid(profile: Self.profile, problems: []), .entitlementTypes(profile: Self.profile, problems: []),
            .appIDMismatch(
                bundlePath: "B", bundleIdentifier: "b", profile: Self.profile, appID: "T.a", wildcard: false,
                differsOnlyInCase: false, source: .option),
            .teamMismatch(appTeam: "T", others: []),
            .extensionIDNotPrefixed(
                bundlePath: "Payload/A.app/PlugIns/E.appex", bundleIdentifier: "e", kind: .appex, containerKind: .app,
                containerIdentifier: "a"),
            .optionShadowed(path: "p", bundleIdentifier: "b", givenPath: "g"),
            .optionUnmatched(bundleIdentifier: "b", path: "p", knownIdentifiers: []),
            .ambiguous(directory: nil, bundlePath: "B", bundleIdentifier: "b", chosen: Self.profile, alsoMatching: []),
            .embeddedUnreadable(path: "B/embedded.mobileprovision", bundlePath: "B", reason: "r", code: nil),
            .missing(bundlePath: "B", bundleIdentifier: nil, kind: .app, directory: nil, directoryProfileCount: 0),
            .signatureUnreadable(executablePath: "A", architecture: "arm64", reason: "r"),
            .signedEntitlementsUnreadable(executablePath: "A", reason: "r"),
            .entitlementsNotGranted(executablePath: "A", profile: Self.profile, entitlements: ["k"]),
            .dataProtectionWeaker(profile: Self.profile, appID: "T.a", key: "k", value: "v"),
            .dataProtectionNotGranted(profile: Self.profile, appID: "T.a", key: "k"),
        ]
        let wrapping: [WrappingDetail] = [
            .alreadyWrapped(appPath: "A", policyFolder: "P"), .signatureInvalidated(appPath: "A", policyFolder: "P", seal: .unreadable),
            .policyModeDiffers(requested: .premium, policyMode: .general, policyName: "n"),
        ]
        let signature: [SignatureDetail] = [
            .noExecutable(bundle: "B"), .unsigned(code: code), .noCodeResources(bundle: "B"),
            .unreadableMachO(file: "A", problem: "p"), .unreadableSignature(code: code, problem: "p"),
            .unreadableCodeResources(bundle: "B", problem: "p"), .uncheckableCodeResources(bundle: "B", errorCode: "E", problem: "p"),
            .pageCount(code: code, directory: directory, problem: "p"),
            .pagesDiffer(code: code, directory: directory, pages: [0], pageCount: 1),
            .specialSlotItemMissing(code: code, item: "i", hashType: "h"),
            .specialSlotUnbound(code: code, item: "i", hashType: "h", slot: 1),
            .codeLimitShort(code: code, directory: directory, codeLimit: 1, signatureOffset: 2),
            .entitlementEncodingsDiffer(code: code, keys: []), .unreadableEntitlements(code: code, encoding: "XML", problem: "p"),
            .unreadableProfile(bundle: "B", problem: "p"), .sealedExecutableMissing(bundle: "B"),
            .cdHashesMissing(code: code, count: 2), .specialSlotItemDiffers(code: code, item: "i", hashType: "h", slot: 1),
            .cmsUnreadable(code: code, errorCode: "E", problem: "p"),
            .cmsProblem(code: code, kind: .integrity, problem: "p"), .cmsProblem(code: code, kind: .chain, problem: "p"),
            .cmsProblem(code: code, kind: .validity, problem: "p"), .cdHashesNotListed(code: code, attribute: "CDHashes"),
            .sealDiffers(bundle: "B", kind: .changed, difference: "d"), .sealDiffers(bundle: "B", kind: .missing, difference: "d"),
            .sealDiffers(bundle: "B", kind: .unsealed, difference: "d"),
            .sealDiffers(bundle: "B", kind: .nestedCodeChanged, difference: "d"),
            .nestedCodeSwapped(bundle: "B", nested: "N", differences: []),
            .identifierMismatch(code: code, identifier: "i", bundleID: "b"), .teamMismatch(bundle: "B", team: "T", appTeam: nil),
            .adHoc(bundle: "B"), .certificateNotInProfile(bundle: "B", signer: "S"),
            .appIdentifierMismatch(bundle: "B", signed: "s", appID: "a", bundleID: nil, expected: nil),
            .entitlementNotGranted(bundle: "B", key: "k"),
            .entitlementType(code: code, key: "k", expected: "string", actual: "integer"),
        ]
        let install: [InstallDetail] = [
            .profileExpired(bundle: "B", profileName: "P", expiration: date),
            .profileTeamMismatch(bundle: "B", profileName: "P", profileTeam: "T", signingTeam: "U"),
            .devicesNotProvisioned(bundle: "B", profileName: "P", kind: "adhoc", devices: ["d"], provisioned: 0),
            .appStoreProfile(bundle: "B", profileName: "P"),
            .profileDevices(bundle: "B", profileName: "P", kind: "adhoc", provisionsAll: false, count: 1),
            .osTooOld(bundle: "B", minimum: "15.0", os: "12.0"), .noARM64(executable: "A", architectures: ["armv7"], os: "12.0"),
            .capabilityUnmet(bundle: "B", capability: "arm64", architectures: ["armv7"]),
            .watchCompanionMismatch(bundle: "B", value: nil, container: "c"), .watchKitAppInvalid(bundle: "B"),
            .extensionPointMissing(bundle: "B"), .bundleVersionMissing(bundle: "B"),
        ]
        return icon.map(FindingDetail.icon) + bundle.map(FindingDetail.bundle) + binary.map(FindingDetail.binary)
            + profile.map(FindingDetail.profile) + wrapping.map(FindingDetail.wrapping)
            + signature.map(FindingDetail.signature) + install.map(FindingDetail.install)
    }

    @Test func everyDetailNamesACatalogueCodeAndEveryCodeIsNamed() throws {
        let catalogue = Set(FindingCode.all.map(\.rawValue))
        let named = try Self.samples().compactMap(\.code)
        #expect(named.count == (try Self.samples().count))
        for code in named { #expect(catalogue.contains(code.rawValue), "\(code) is not in FindingCode.all") }
        #expect(Set(named.map(\.rawValue)) == catalogue)
    }

    @Test func aFindingTakesItsCodesSeverityRemedyAndDeviceErrorFromTheDetail() throws {
        for detail in try Self.samples() {
            let finding = Finding(detail)
            let code = try #require(detail.code)
            #expect(finding.code == code.rawValue && finding.findingCode == code)
            #expect(finding.severity == code.severity)
            #expect(finding.remedy != nil && finding.message == detail.message)
        }
    }

    @Test func theCodeFollowsFromTheFactsWhereOneCaseServesSeveral() {
        func binary(_ settings: ATSSettings, _ minimum: Int?) -> FindingCode {
            BinaryDetail.appTransportSecurity(bundlePath: "B", settings: settings, minimumMajor: minimum).code
        }
        let scoped = ATSSettings(allowsArbitraryLoads: true, scopedKeysPresent: ["NSAllowsLocalNetworking"], scopedKeysEnabled: ["NSAllowsLocalNetworking"])
        #expect(binary(Self.ats, 12) == .atsArbitraryLoads)
        // iOS 9 reads only NSAllowsArbitraryLoads: off there, so arbitrary loads; from iOS 10 only scoped.
        #expect(binary(scoped, 9) == .atsArbitraryLoads)
        #expect(binary(scoped, 12) == .atsWebContentOnly)
        #expect(scoped.lift(minimumMajor: 12) == .scoped)
        #expect(ATSSettings(allowsArbitraryLoads: false, scopedKeysPresent: [], scopedKeysEnabled: []).lift(minimumMajor: 12) == nil)
        #expect(SignatureDetail.cmsProblem(code: Self.code, kind: .chain, problem: "p").code == .signatureChainIncomplete)
        #expect(SignatureDetail.cmsProblem(code: Self.code, kind: .validity, problem: "p").code == .signatureCertificateExpired)
        #expect(SignatureDetail.sealDiffers(bundle: "B", kind: .missing, difference: "d").code == .signatureSealedFileMissing)
        #expect(SignatureDetail.sealDiffers(bundle: "B", kind: .unsealed, difference: "d").code == .signatureUnsealedFile)
    }

    @Test func remediesThatNeedFactsAreComputedFromThem() throws {
        let toolkit = try ToolkitVersion(option: "20.9.0")
        let mismatch = Finding(.binary(.sdkVersionMismatch(frameworkPath: "F", family: "MDX", version: "20.1.0", toolkit: toolkit)))
        #expect(mismatch.remedy == "Wrap the app with the MDX Toolkit 20.1.0, the SDK's version (--toolkit-version 20.1.0), "
            + "or have the vendor wrap it as an ISV app in Premium or General mode and ship it pre-wrapped.")
        func wildcard(_ identifier: String?, accepted: Bool) -> String? {
            Finding(.profile(.wildcardAppID(
                profile: Self.profile, bundlePath: "Payload/A.app", appID: "T.com.example.*", teamPrefix: "T",
                bundleIdentifier: identifier, stem: "com.example.", accepted: accepted, grantsPushNotifications: false))).remedy
        }
        #expect(wildcard("com.example.a", accepted: false) == "Register the explicit App ID T.com.example.a, create a profile "
            + "for it and pass it with --profile com.example.a=PATH or --profiles-dir.")
        #expect(wildcard("com.example.a", accepted: true) == "When re-signing, set application-identifier to T.com.example.a, "
            + "not T.com.example.*: iOS 14 and later reject the wildcard itself in a signature.")
        #expect(wildcard(nil, accepted: false) == FindingCode.appIDWildcard.remedy)
        func missing(_ identifier: String?) -> String? {
            Finding(.profile(.missing(
                bundlePath: "Payload/A.app/PlugIns/Share.appex", bundleIdentifier: identifier, kind: .appex, directory: nil,
                directoryProfileCount: 0))).remedy
        }
        #expect(missing("com.example.a.share") == "Pass --profile com.example.a.share=PATH, put the profile for App ID "
            + "TEAM.com.example.a.share in --profiles-dir, or embed it as Share.appex/embedded.mobileprovision.")
        #expect(missing(nil) == FindingCode.profileMissing.remedy)
        #expect(Finding(.profile(.dataProtectionNotGranted(profile: Self.profile, appID: "T.com.example.a", key: "k"))).remedy
            == "Enable Data Protection (Complete Protection) for the App ID T.com.example.a in the Apple Developer portal and "
            + "regenerate the profile.")
        func notPrefixed(_ path: String, _ kind: BundleKind) -> Finding {
            Finding(.profile(.extensionIDNotPrefixed(
                bundlePath: path, bundleIdentifier: "com.other", kind: kind, containerKind: .app, containerIdentifier: "com.example.a")))
        }
        let watch = notPrefixed("Payload/A.app/Watch/W.app", .watch)
        #expect(watch.remedy == "Set its CFBundleIdentifier to com.example.a.W (or another name under com.example.a.) and use a "
            + "profile for that App ID.")
        #expect(watch.installError == .watchAppNotPrefixed)
        #expect(notPrefixed("Payload/A.app/PlugIns/E.appex", .appex).installError == .extensionNotPrefixed)
    }
}
