extension FindingCode {
    public static let appIDWildcard = FindingCode(
        "APP_ID_WILDCARD", .error,
        summary: "a bundle's profile has a wildcard App ID (TEAM.* or TEAM.com.example.*); warning with --allow-wildcard",
        remedy: "Register an explicit App ID for the bundle ID, create a profile for it and pass it with "
            + "--profile BUNDLE_ID=PATH or --profiles-dir; --allow-wildcard accepts wildcards where your account allows them.",
        wrappingRule: true)

    public static let appIDMismatch = FindingCode(
        "APP_ID_MISMATCH", .error,
        summary: "the profile's App ID does not match the bundle's CFBundleIdentifier",
        remedy: "Use the profile made for this bundle ID (--profile BUNDLE_ID=PATH), or change CFBundleIdentifier to "
            + "match the App ID.")

    public static let profileMissing = FindingCode(
        "PROFILE_MISSING", .error,
        summary: "a bundle that must be signed (the app, an extension, a watch app, an app clip) has no profile",
        remedy: "Pass --profile BUNDLE_ID=PATH, put the bundle's profile in --profiles-dir, or embed it as "
            + "embedded.mobileprovision.")

    public static let profileUnreadable = FindingCode(
        "PROFILE_UNREADABLE", .error,
        summary: "a bundle's embedded.mobileprovision cannot be decoded (damaged, truncated or not a profile)",
        remedy: "Replace it with the profile downloaded from the Apple Developer portal, or pass one with --profile "
            + "or --profiles-dir.")

    public static let profileExpired = FindingCode(
        "PROFILE_EXPIRED", .error,
        summary: "a profile is past its expiration date (at --at DATE, or now)",
        remedy: "Renew the profile in the Apple Developer portal (or let Xcode regenerate it) and use the new file.")

    public static let profileExpiring = FindingCode(
        "PROFILE_EXPIRING", .warning,
        summary: "a profile expires within 30 days",
        remedy: "Renew the profile before it expires: apps signed with it stop launching on that date.")

    public static let teamMismatch = FindingCode(
        "TEAM_MISMATCH", .error,
        summary: "the bundles' profiles name different teams",
        remedy: "Sign the app and every extension, watch app and app clip with profiles of the same team.")

    public static let profileNotForIOS = FindingCode(
        "PROFILE_NOT_IOS", .warning,
        summary: "a profile's Platform does not include iOS",
        remedy: "Create an iOS provisioning profile for the App ID and use it instead.")

    public static let profileCertificateExpired = FindingCode(
        "PROFILE_CERTIFICATE_EXPIRED", .warning,
        summary: "developer certificates in a profile have expired (warning when all have, info when some have)",
        remedy: "Create a new signing certificate, add it to the profile in the Apple Developer portal and download "
            + "the profile again.")

    public static let profileCertificateInvalid = FindingCode(
        "PROFILE_CERTIFICATE_INVALID", .warning,
        summary: "a profile lists no developer certificate, or one that cannot be used: unreadable, or (the message "
            + "says which) with an RSA key under 2048 bits or an EC key on a curve other than P-256, P-384, P-521",
        remedy: "Regenerate the profile in the Apple Developer portal with the signing certificate selected.")

    public static let profileOptionUnused = FindingCode(
        "PROFILE_OPTION_UNUSED", .warning,
        summary: "--profile BUNDLE_ID=PATH names a bundle ID that no signed bundle in the archive has",
        remedy: "Check the bundle ID against the bundles `ipawrap inspect` lists.")

    public static let profileAmbiguous = FindingCode(
        "PROFILE_AMBIGUOUS", .info,
        summary: "several profiles in --profiles-dir match a bundle equally well by App ID; the preferred one was used",
        remedy: "Remove the profiles you do not mean to use from the folder, or pass the one you want with --profile.")

    public static let entitlementNotInProfile = FindingCode(
        "ENTITLEMENT_NOT_IN_PROFILE", .warning,
        summary: "an executable is signed with entitlements that its bundle's profile does not grant",
        remedy: "Enable the capabilities for the App ID and regenerate the profile, or re-sign without those "
            + "entitlements; iOS refuses to install an app whose entitlements its profile does not grant.")

    public static let signedEntitlementsUnreadable = FindingCode(
        "SIGNED_ENTITLEMENTS_UNREADABLE", .warning,
        summary: "an executable's code signature, or the entitlements in it, cannot be read",
        remedy: "Re-sign the bundle; codesign writes entitlements as an XML property list and as DER.")

    public static let dataProtectionNotEnabled = FindingCode(
        "DATA_PROTECTION_NOT_ENABLED", .warning,
        summary: "the app's profile does not grant com.apple.developer.default-data-protection (info when it grants "
            + "a class weaker than NSFileProtectionComplete)",
        remedy: "Enable Data Protection (Complete Protection) for the App ID in the Apple Developer portal and "
            + "regenerate the profile.")

    public static let profileEntitlementType = FindingCode(
        "PROFILE_ENTITLEMENT_TYPE", .error,
        summary: "the profile grants an entitlement Apple defines with a value of another type (an integer "
            + "application-identifier, a string keychain-access-groups...), which nothing can sign with",
        remedy: "Download the profile again from the Apple Developer portal; a profile with such values was edited or "
            + "damaged.")

    public static let profileCodes: [FindingCode] = [
        appIDWildcard, appIDMismatch, profileMissing, profileUnreadable, profileExpired, profileExpiring, teamMismatch,
        extensionIDNotPrefixed, profileNotForIOS, profileCertificateExpired, profileCertificateInvalid,
        profileOptionUnused, profileAmbiguous, entitlementNotInProfile, signedEntitlementsUnreadable,
        dataProtectionNotEnabled, profileEntitlementType,
    ]
}
