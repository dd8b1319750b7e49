extension FindingCode {
    public static let nestedBundleUnreadable = FindingCode(
        "BUNDLE_INFO_PLIST_INVALID", .warning,
        summary: "a nested bundle has a missing or unreadable Info.plist (an error for an extension, watch app or app "
            + "clip, which cannot be signed or installed without one)",
        remedy: "Rebuild the bundle so its Info.plist is present and a valid property list.")

    public static let bundleIdentifierInvalid = FindingCode(
        "BUNDLE_ID_INVALID", .error,
        summary: "a bundle's CFBundleIdentifier is missing, empty or not a string",
        remedy: "Set CFBundleIdentifier in the bundle's Info.plist to its reverse-DNS bundle ID and rebuild.")

    public static let executableMissing = FindingCode(
        "EXECUTABLE_MISSING", .error,
        summary: "a bundle's CFBundleExecutable names a file that is not in the bundle, or names nothing (the binary "
            + "checks then cannot run)",
        remedy: "Rebuild and re-export the app so every bundle carries the main executable its Info.plist names.")

    public static let executableInvalid = FindingCode(
        "EXECUTABLE_INVALID", .error,
        summary: "a bundle's CFBundleExecutable is empty, not a string, absolute, contains '..', points into "
            + "PlugIns/ or Frameworks/, or names (itself or through a symlink, in any case) a file the code signature "
            + "owns rather than seals: Info.plist, embedded.mobileprovision, _CodeSignature/…, CodeResources",
        remedy: "Set CFBundleExecutable to the plain file name of the bundle's own executable and rebuild.")

    public static let platformUnsupported = FindingCode(
        "PLATFORM_UNSUPPORTED", .error,
        summary: "the app is for tvOS, watchOS, visionOS or Mac Catalyst (app.platform); MDX wraps iOS and iPadOS apps only",
        remedy: "Wrap the iOS or iPadOS build of the app; apps for other platforms cannot be managed with MDX.",
        wrappingRule: true)

    public static let bundleHasNoCode = FindingCode(
        "BUNDLE_HAS_NO_CODE", .warning,
        summary: "a framework, test bundle or XPC service folder has no Info.plist naming an executable (an empty "
            + "Frameworks/X.framework/ of a trimmed build): it holds no code, so it is sealed as files of the bundle "
            + "around it and not signed itself",
        remedy: "Nothing to do if the folder is meant to be empty (a trimmed build); otherwise rebuild the app so the "
            + "bundle carries its Info.plist and executable.")

    public static let frameworkCodeMerged = FindingCode(
        "FRAMEWORK_CODE_MERGED", .info,
        summary: "a framework holds its resources but not the binary its Info.plist names, and no executable of the app "
            + "needs that binary from it (none loads it, or its binary is elsewhere in the app, as in ReexportedBinaries/ "
            + "of a debug build): what Xcode 15 and later embed for a mergeable library merged into the code using it; "
            + "its files are sealed by the bundle around it, its own signature left as it is",
        remedy: "Nothing to do. (A framework that some executable loads must carry its binary: that is EXECUTABLE_MISSING.)")

    public static let bundleCodes: [FindingCode] = [
        nestedBundleUnreadable, bundleIdentifierInvalid, executableMissing, executableInvalid, platformUnsupported,
        platformSimulator, bundleHasNoCode, frameworkCodeMerged,
    ]
}
