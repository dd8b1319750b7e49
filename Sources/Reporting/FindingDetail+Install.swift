import AppBundle
import Foundation

/// The facts of the install checks' findings (`verify --device/--os`, `check`, `sign`): what a
/// device's installd or amfid would refuse, and why.
public enum InstallDetail: Sendable, Hashable {
    /// `INSTALL_PROFILE_EXPIRED`: the embedded profile is past its expiration at the date judged.
    case profileExpired(bundle: String, profileName: String, expiration: Date)
    /// `INSTALL_PROFILE_TEAM_MISMATCH`: the profile is of another team than the signature.
    case profileTeamMismatch(bundle: String, profileName: String, profileTeam: String, signingTeam: String)
    /// `INSTALL_DEVICE_NOT_PROVISIONED`: development or ad hoc profile without these devices.
    case devicesNotProvisioned(bundle: String, profileName: String, kind: String, devices: [String], provisioned: Int)
    /// `INSTALL_APP_STORE_PROFILE`: an App Store profile installs on no device.
    case appStoreProfile(bundle: String, profileName: String)
    /// `INSTALL_PROFILE_DEVICES`: which devices the app's profile lets it install on.
    case profileDevices(bundle: String, profileName: String, kind: String, provisionsAll: Bool, count: Int)
    /// `INSTALL_OS_TOO_OLD`: `MinimumOSVersion` above the OS asked about.
    case osTooOld(bundle: String, minimum: String, os: String)
    /// `INSTALL_NO_ARM64`: an executable without 64-bit ARM code, on iOS 11 or later.
    case noARM64(executable: String, architectures: [String], os: String)
    /// `INSTALL_CAPABILITY_UNMET`: `UIRequiredDeviceCapabilities` asks for what the code is not.
    case capabilityUnmet(bundle: String, capability: String, architectures: [String])
    /// `INSTALL_WATCH_COMPANION_MISMATCH`: `WKCompanionAppBundleIdentifier` names another app.
    case watchCompanionMismatch(bundle: String, value: String?, container: String)
    /// `INSTALL_WATCHKIT_APP_INVALID`: a watch app marked neither `WKWatchKitApp` nor `WKApplication`.
    case watchKitAppInvalid(bundle: String)
    /// `INSTALL_EXTENSION_POINT_MISSING`: an extension with no extension point.
    case extensionPointMissing(bundle: String)
    /// `INSTALL_BUNDLE_VERSION_MISSING`: no usable `CFBundleVersion`.
    case bundleVersionMissing(bundle: String)

    /// The code these facts are reported under.
    public var code: FindingCode {
        switch self {
        case .profileExpired: .installProfileExpired
        case .profileTeamMismatch: .installProfileTeamMismatch
        case .devicesNotProvisioned: .installDeviceNotProvisioned
        case .appStoreProfile: .installAppStoreProfile
        case .profileDevices: .installProfileDevices
        case .osTooOld: .installOSTooOld
        case .noARM64: .installNoARM64
        case .capabilityUnmet: .installCapabilityUnmet
        case .watchCompanionMismatch: .installWatchCompanionMismatch
        case .watchKitAppInvalid: .installWatchKitAppInvalid
        case .extensionPointMissing: .installExtensionPointMissing
        case .bundleVersionMissing: .installBundleVersionMissing
        }
    }

    public var message: String {
        switch self {
        case .profileExpired(let bundle, let name, let expiration):
            "\(bundle): its embedded profile '\(name)' expired on \(ReportJSON.timestamp(expiration)); a device refuses the app"
        case .profileTeamMismatch(let bundle, let name, let profileTeam, let signingTeam):
            "\(bundle): its embedded profile '\(name)' is of team \(profileTeam), but the code is signed by team \(signingTeam)"
        case .devicesNotProvisioned(let bundle, let name, let kind, let devices, let provisioned):
            "\(bundle): the \(kind) profile '\(name)' does not list "
                + (devices.count == 1 ? "the device \(devices[0])" : "the devices " + devices.joined(separator: ", "))
                + " among its \(provisioned) provisioned device\(provisioned == 1 ? "" : "s")"
        case .appStoreProfile(let bundle, let name):
            "\(bundle) is signed with the App Store profile '\(name)', which installs on no device: only the App Store and "
                + "TestFlight deliver such a build"
        case .profileDevices(let bundle, let name, let kind, let provisionsAll, let count):
            "\(bundle): its \(kind) profile '\(name)' "
                + (provisionsAll ? "installs on any device (ProvisionsAllDevices)"
                    : kind == "appstore" ? "installs on no device (App Store and TestFlight only)"
                    : "installs on the \(count) device\(count == 1 ? "" : "s") it lists")
        case .osTooOld(let bundle, let minimum, let os):
            "\(bundle) needs iOS \(minimum) or later (MinimumOSVersion); iOS \(os) does not install it"
        case .noARM64(let executable, let architectures, let os):
            "\(executable) holds no 64-bit ARM code (\(architectures.joined(separator: ", "))); iOS \(os) runs only arm64 code"
        case .capabilityUnmet(let bundle, let capability, let architectures):
            "\(bundle): UIRequiredDeviceCapabilities requires \(capability), but its executable is "
                + architectures.joined(separator: ", ")
        case .watchCompanionMismatch(let bundle, let value, let container):
            "\(bundle): WKCompanionAppBundleIdentifier is " + (value.map { "'\($0)'" } ?? "missing")
                + ", not the companion app's bundle ID \(container)"
        case .watchKitAppInvalid(let bundle):
            "\(bundle) is a watch app whose Info.plist sets neither WKWatchKitApp nor WKApplication to true"
        case .extensionPointMissing(let bundle):
            "\(bundle) names no extension point: its Info.plist has no NSExtension dictionary with "
                + "NSExtensionPointIdentifier (nor EXAppExtensionAttributes with EXExtensionPointIdentifier)"
        case .bundleVersionMissing(let bundle):
            "\(bundle): its Info.plist has no usable CFBundleVersion"
        }
    }
}
