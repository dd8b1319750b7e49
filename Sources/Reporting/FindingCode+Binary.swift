// Findings from the app's binaries and SDKs (BinaryChecks). Remedies follow the source documents:
// the MDX best practices for iOS apps (SDK/toolkit match, SQLite, SQLCipher, OpenSSL, NSURLSession,
// cross-platform frameworks), the Intune SDK guide (MultiIdentity) and the App Review notes on ATS.
extension FindingCode {
    public static let appEncrypted = FindingCode(
        "APP_ENCRYPTED", .error,
        summary: "a Mach-O slice of the app or a nested bundle is App Store (FairPlay) encrypted (cryptid 1)",
        remedy: "Use a build that is not App Store encrypted (an Xcode archive exported for enterprise or ad hoc "
            + "distribution, or the vendor's unencrypted build): an App Store download cannot be wrapped.")

    public static let sdkVersionMismatch = FindingCode(
        "SDK_VERSION_MISMATCH", .error,
        summary: "an embedded MDX SDK framework's version differs from the toolkit version (major.minor.patch)",
        remedy: "Wrap the app with the MDX Toolkit of the SDK's version (--toolkit-version), or have the vendor wrap it "
            + "as an ISV app in Premium or General mode and ship it pre-wrapped.",
        wrappingRule: true)

    public static let sdkVersionInconsistent = FindingCode(
        "SDK_VERSION_INCONSISTENT", .error,
        summary: "the MDX SDK frameworks in the app have different versions",
        remedy: "Rebuild the app with every MDX SDK framework from one SDK release, then wrap it with the toolkit of "
            + "that version.",
        wrappingRule: true)

    public static let sdkVersionUnknown = FindingCode(
        "SDK_VERSION_UNKNOWN", .warning,
        summary: "an MDX SDK framework has no readable CFBundleShortVersionString, so its match with the toolkit "
            + "cannot be checked",
        remedy: "Ask the vendor which MDX SDK version the framework is and wrap with the toolkit of that version "
            + "(--toolkit-version), or have the vendor ship the app pre-wrapped.")

    public static let sdkStaticUnversioned = FindingCode(
        "SDK_STATIC_UNVERSIONED", .warning,
        summary: "the MDX SDK is linked statically: its classes are in a binary, its version cannot be read",
        remedy: "Confirm with the vendor which MDX SDK version was linked and wrap with that toolkit "
            + "(--toolkit-version), or have the vendor ship the app pre-wrapped as an ISV Premium or General app.")

    public static let multipleManagementSDKs = FindingCode(
        "MULTIPLE_MANAGEMENT_SDKS", .warning,
        summary: "the app carries two management SDKs (e.g. MDX and Intune), so two layers manage it",
        remedy: "Ship the app with one management SDK, or have the vendor provide a build per management system: "
            + "two layers apply their policies (encryption, data sharing, network) on top of each other.")

    public static let intuneMultiIdentity = FindingCode(
        "INTUNE_MULTI_IDENTITY", .info,
        summary: "Info.plist sets IntuneMAMSettings › MultiIdentity: the app manages identities itself",
        remedy: "Make sure the app sets the identity (IntuneMAMPolicyManager setUIPolicyAccountId) before it shows an "
            + "account's data: with MultiIdentity the SDK leaves the process, UI and thread identities unset.")

    public static let privateSQLite = FindingCode(
        "PRIVATE_SQLITE", .warning,
        summary: "a binary links or embeds its own SQLite instead of Apple's /usr/lib/libsqlite3.dylib",
        remedy: "Use Apple's /usr/lib/libsqlite3.dylib: MDX encrypts only the databases of Apple's SQLite, so a "
            + "private copy's databases stay unencrypted.")

    public static let sqlcipherPresent = FindingCode(
        "SQLCIPHER_PRESENT", .warning,
        summary: "the app uses SQLCipher, which memory-maps its databases and cannot be used with MDX encryption",
        remedy: "Do not use SQLCipher in an app to be wrapped, or have the administrator exclude its database files "
            + "with the encryption-exclusions policy.")

    public static let opensslStatic = FindingCode(
        "OPENSSL_STATIC", .warning,
        summary: "a binary has OpenSSL linked in statically (libcrypto.a/libssl.a)",
        remedy: "Link OpenSSL as a dynamic framework instead of libcrypto.a/libssl.a: a static copy causes missing "
            + "and duplicate symbol errors when the app is linked with the MDX SDK.")

    public static let uiWebViewUsed = FindingCode(
        "UIWEBVIEW_USED", .warning,
        summary: "a binary uses UIWebView (_OBJC_CLASS_$_UIWebView)",
        remedy: "Replace UIWebView with WKWebView (or SFSafariViewController for browsing): UIWebView is deprecated "
            + "and App Store review rejects apps that use it.")

    public static let urlSessionBackground = FindingCode(
        "URLSESSION_BACKGROUND", .warning,
        summary: "a binary creates NSURLSession background sessions, which wrapped apps do not support",
        remedy: "Use default or ephemeral session configurations: NSURLSession background transfers "
            + "(backgroundSessionConfigurationWithIdentifier:) do not work in MDX-wrapped apps.")

    public static let crossPlatformFramework = FindingCode(
        "CROSS_PLATFORM_FRAMEWORK", .warning,
        summary: "the app is built with Flutter, React Native or Cordova, which MDX does not officially support",
        remedy: "Test the wrapped app thoroughly before release: among cross-platform frameworks only Xamarin is "
            + "officially supported.")

    public static let crossPlatformXamarin = FindingCode(
        "CROSS_PLATFORM_XAMARIN", .info,
        summary: "the app is built with Xamarin (.NET for iOS), a supported cross-platform framework",
        remedy: "No action needed: Xamarin apps are supported.")

    public static let atsArbitraryLoads = FindingCode(
        "ATS_ARBITRARY_LOADS", .warning,
        summary: "NSAllowsArbitraryLoads turns App Transport Security off for all connections on a supported iOS version",
        remedy: "Keep ATS on and use HTTPS, listing only servers that cannot under NSExceptionDomains: App Review asks "
            + "for a justification of NSAllowsArbitraryLoads.")

    public static let atsWebContentOnly = FindingCode(
        "ATS_WEB_CONTENT_ONLY", .info,
        summary: "ATS is lifted only for web content, media or the local network (iOS 10 and later); what each "
            + "supported iOS version does is in the message",
        remedy: "Load web content in WKWebView and media with AVFoundation, which these keys cover, and keep other "
            + "traffic on HTTPS.")

    public static let binaryUnreadable = FindingCode(
        "BINARY_UNREADABLE", .warning,
        summary: "a bundle's executable, or its symbols or strings, could not be read, so the binary checks skipped it",
        remedy: "Rebuild the binary; until it can be read, its encryption, SDKs and libraries cannot be checked.")

    public static let binaryCodes: [FindingCode] = [
        appEncrypted, sdkVersionMismatch, sdkVersionInconsistent, sdkVersionUnknown, sdkStaticUnversioned,
        multipleManagementSDKs, intuneMultiIdentity, privateSQLite, sqlcipherPresent, opensslStatic, uiWebViewUsed,
        urlSessionBackground, crossPlatformFramework, crossPlatformXamarin, atsArbitraryLoads, atsWebContentOnly,
        binaryUnreadable,
    ]
}
