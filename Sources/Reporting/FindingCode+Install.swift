// What a device's installd or amfid refuses, judged before a device does (`verify --device/--os`,
// and the same rules in `check`, `sign` and `wrap`). Each code names the error a device gives;
// docs/install-checks.md lists the sources.
extension FindingCode {
    public static let installProfileExpired = FindingCode(
        "INSTALL_PROFILE_EXPIRED", .error,
        summary: "a signed bundle's embedded profile is past its expiration at the date judged (`--at` or now)",
        remedy: "Renew the profile in the Apple Developer portal and sign the app again with it.",
        installError: .noValidProfile)

    public static let installProfileTeamMismatch = FindingCode(
        "INSTALL_PROFILE_TEAM_MISMATCH", .error,
        summary: "a signed bundle's embedded profile is of another team than the code's signature",
        remedy: "Sign with an identity of the profile's team, or with that team's profile.",
        installError: .noValidProfile)

    public static let installDeviceNotProvisioned = FindingCode(
        "INSTALL_DEVICE_NOT_PROVISIONED", .error,
        summary: "a development or ad hoc profile does not list a device given with --device",
        remedy: "Add the device's UDID to the profile in the Apple Developer portal (Devices), regenerate the profile "
            + "and sign again; or sign with an enterprise profile.",
        installError: .noValidProfile)

    public static let installAppStoreProfile = FindingCode(
        "INSTALL_APP_STORE_PROFILE", .error,
        summary: "the app is signed with an App Store profile, which installs on no device (--device)",
        remedy: "Deliver it through the App Store or TestFlight, or sign with an ad hoc, development or enterprise profile "
            + "to install it on a device.",
        installError: .noValidProfile)

    public static let installProfileDevices = FindingCode(
        "INSTALL_PROFILE_DEVICES", .info,
        summary: "which devices the app's profile lets it install on: its kind and how many it lists",
        remedy: "Check with --device UDID that a device is among them.")

    public static let installOSTooOld = FindingCode(
        "INSTALL_OS_TOO_OLD", .error,
        summary: "the app's MinimumOSVersion is above the iOS version given with --os",
        remedy: "Update the device, or build the app with a lower deployment target.",
        installError: InstallError(
            "DeviceOSVersionTooLow", "The system version is lower than the minimum OS version specified for bundle."))

    public static let installNoARM64 = FindingCode(
        "INSTALL_NO_ARM64", .error,
        summary: "an app or extension executable has no arm64 slice, and iOS 11 and later (--os) run only 64-bit code",
        remedy: "Rebuild the app for arm64 (Xcode's standard architectures).",
        installError: InstallError("IncorrectArchitecture", "Failed to find matching arch for 32-bit Mach-O input file."))

    public static let installCapabilityUnmet = FindingCode(
        "INSTALL_CAPABILITY_UNMET", .error,
        summary: "Info.plist's UIRequiredDeviceCapabilities requires an architecture the app's executable does not hold",
        remedy: "Remove the capability from UIRequiredDeviceCapabilities, or build the executable for it.",
        installError: InstallError(
            "DeviceNotSupported", "The UIRequiredDeviceCapabilities key is set up in such a way that the app will not install "
                + "on the device."))

    public static let installWatchCompanionMismatch = FindingCode(
        "INSTALL_WATCH_COMPANION_MISMATCH", .error,
        summary: "a watch app's WKCompanionAppBundleIdentifier is not its companion app's bundle ID",
        remedy: "Set WKCompanionAppBundleIdentifier in the watch app's Info.plist to the iOS app's CFBundleIdentifier.",
        installError: InstallError(
            "InvalidCompanionAppBundleIdentifier",
            "The Watch app contained within this app has an incorrect value for the WKCompanionAppBundleIdentifier key in the "
                + "Watch app's Info.plist."))

    public static let installWatchKitAppInvalid = FindingCode(
        "INSTALL_WATCHKIT_APP_INVALID", .error,
        summary: "an app in Watch/ sets neither WKWatchKitApp nor WKApplication to true",
        remedy: "Set WKWatchKitApp (WatchKit 2 app with an extension) or WKApplication (single-target watch app) to true.",
        installError: InstallError(
            "InvalidWatchKitApp",
            "Found WatchKit 2.0 app but it does not have a WKWatchKitApp or WKApplication key set to true in its Info.plist"))

    public static let installExtensionPointMissing = FindingCode(
        "INSTALL_EXTENSION_POINT_MISSING", .error,
        summary: "an app extension's Info.plist names no extension point (NSExtension › NSExtensionPointIdentifier, or "
            + "EXAppExtensionAttributes › EXExtensionPointIdentifier)",
        remedy: "Rebuild the extension from its Xcode target, whose Info.plist names its extension point.",
        installError: InstallError(
            "ApplicationVerificationFailed", "Appex bundle does not define an NSExtension dictionary in its Info.plist."))

    public static let installBundleVersionMissing = FindingCode(
        "INSTALL_BUNDLE_VERSION_MISSING", .error,
        summary: "an app, extension, watch app or app clip has no usable CFBundleVersion",
        remedy: "Set CFBundleVersion (the build number) in the bundle's Info.plist.",
        installError: InstallError(
            "InvalidBundleVersion", "The application's Info.plist does not contain a valid CFBundleVersion."))

    /// A Simulator build (also the `bundle` area's, where `check` lists it).
    public static let platformSimulator = FindingCode(
        "PLATFORM_SIMULATOR", .error,
        summary: "the app is a Simulator build (DTPlatformName iphonesimulator, only Intel slices, or LC_BUILD_VERSION "
            + "platform 7), which no device installs",
        remedy: "Build for a device (Product > Archive in Xcode, or xcodebuild -sdk iphoneos) and wrap or sign that "
            + "build; a Simulator build cannot be made to install by signing it.",
        installError: InstallError("IncorrectArchitecture", "Failed to find matching arch for the device in the executable."))

    /// A nested app-like bundle whose ID is not under its container's (also the `profile` area's).
    public static let extensionIDNotPrefixed = FindingCode(
        "EXTENSION_ID_NOT_PREFIXED", .error,
        summary: "a nested bundle's identifier does not start with its containing app's identifier and a dot",
        remedy: "Set the nested bundle's CFBundleIdentifier to the app's identifier, a dot and a name, and use a "
            + "profile for that App ID.",
        installError: .extensionNotPrefixed)

    /// The codes only the install rules report (`PLATFORM_SIMULATOR` and `EXTENSION_ID_NOT_PREFIXED`
    /// are listed with their areas).
    public static let installCodes: [FindingCode] = [
        installProfileExpired, installProfileTeamMismatch, installDeviceNotProvisioned, installAppStoreProfile,
        installProfileDevices, installOSTooOld, installNoARM64, installCapabilityUnmet, installWatchCompanionMismatch,
        installWatchKitAppInvalid, installExtensionPointMissing, installBundleVersionMissing,
    ]
}

extension InstallError {
    /// `0xe800009e`: an extension's (or app clip's) bundle ID is not under its app's.
    public static let extensionNotPrefixed = InstallError(
        "0xe800009e",
        "This app contains an app extension with an illegal bundle identifier. App extension bundle identifiers must have a "
            + "prefix consisting of their containing application's bundle identifier followed by a '.'.")
    /// `0xe80000d9`: a watch app's bundle ID is not under its companion's.
    public static let watchAppNotPrefixed = InstallError(
        "0xe80000d9",
        "This app contains a WatchKit app with an invalid bundle identifier. The bundle identifier of a WatchKit app must "
            + "have a prefix consisting of the companion app's bundle identifier, followed by a '.'.")
}
