import Reporting

extension FindingCode {
    public static let nestedBundleUnreadable = FindingCode(
        "BUNDLE_INFO_PLIST_INVALID", .warning,
        summary: "a nested bundle (framework, extension, watch app, app clip) has a missing or unreadable Info.plist",
        remedy: "Rebuild the bundle so its Info.plist is present and a valid property list.")

    public static let bundleIdentifierInvalid = FindingCode(
        "BUNDLE_ID_INVALID", .error,
        summary: "a bundle's CFBundleIdentifier is missing, empty or not a string",
        remedy: "Set CFBundleIdentifier in the bundle's Info.plist to its reverse-DNS bundle ID and rebuild.")

    public static let executableMissing = FindingCode(
        "EXECUTABLE_MISSING", .error,
        summary: "a bundle's CFBundleExecutable names a file that is not in the bundle, or names nothing",
        remedy: "Rebuild and re-export the app so every bundle carries the main executable its Info.plist names.")

    public static let executableInvalid = FindingCode(
        "EXECUTABLE_INVALID", .error,
        summary: "a bundle's CFBundleExecutable is empty, not a string, absolute, contains '..' or points into "
            + "PlugIns/ or Frameworks/",
        remedy: "Set CFBundleExecutable to the plain file name of the bundle's own executable and rebuild.")

    public static let platformUnsupported = FindingCode(
        "PLATFORM_UNSUPPORTED", .error,
        summary: "the app is for tvOS, watchOS, visionOS or Mac Catalyst (app.platform); MDX wraps iOS and iPadOS apps only",
        remedy: "Wrap the iOS or iPadOS build of the app; apps for other platforms cannot be managed with MDX.")

    static let bundleCodes: [FindingCode] = [
        nestedBundleUnreadable, bundleIdentifierInvalid, executableMissing, executableInvalid, platformUnsupported,
    ]
}
