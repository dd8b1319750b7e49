/// `ipawrap verify`'s codes (`SignatureDetail`'s); `FindingCode.all` lists them as the "signature" area. An error is
/// a signature that will not hold on a device; a warning is worth knowing (an expired certificate
/// does not break a seal).
extension FindingCode {
    private static let resign = "Re-sign the app, innermost bundles first, with one identity and a matching profile."

    public static let signatureMissing = FindingCode(
        "SIGNATURE_MISSING", .error, summary: "a bundle or Mach-O has no code signature (or no _CodeSignature/CodeResources)",
        remedy: resign,
        installError: .noCodeSignature)
    public static let signatureMalformed = FindingCode(
        "SIGNATURE_MALFORMED", .error, summary: "a code signature cannot be read (its structure is broken or hostile)",
        remedy: resign,
        installError: .invalidSignature)
    public static let signaturePageHashMismatch = FindingCode(
        "SIGNATURE_PAGE_HASH_MISMATCH", .error, summary: "a code page of a Mach-O slice differs from its CodeDirectory hash",
        remedy: "The binary was modified after signing; " + resign,
        installError: .invalidSignature)
    public static let signatureSpecialSlotMismatch = FindingCode(
        "SIGNATURE_SPECIAL_SLOT_MISMATCH", .error,
        summary: "Info.plist, the requirements, CodeResources or the entitlements differ from the CodeDirectory's special slot",
        remedy: "The bundle's Info.plist or signature was modified after signing; " + resign,
        installError: .invalidSignature)
    public static let signatureSealBroken = FindingCode(
        "SIGNATURE_SEAL_BROKEN", .error, summary: "a sealed file's content or symlink target differs from CodeResources",
        remedy: "The file was modified after signing; restore it, or re-sign the app, innermost bundles first.",
        installError: .resourceChanged)
    public static let signatureSealedFileMissing = FindingCode(
        "SIGNATURE_SEALED_FILE_MISSING", .error, summary: "a file CodeResources seals is not in the bundle",
        remedy: "Restore the file, or re-sign the bundle so its seal matches what it holds.",
        installError: .resourceChanged)
    public static let signatureUnsealedFile = FindingCode(
        "SIGNATURE_UNSEALED_FILE", .error, summary: "a file the resource rules say must be sealed is not in CodeResources",
        remedy: "The file was added after signing; remove it or re-sign the bundle.",
        installError: .resourceChanged)
    public static let signatureNestedMismatch = FindingCode(
        "SIGNATURE_NESTED_MISMATCH", .error,
        summary: "nested code is not the code its parent's CodeResources seals: another cdhash or designated requirement, "
            + "or, sealed file by file, other files while it holds by itself",
        remedy: "The nested bundle or dylib was re-signed or changed alone; re-sign its parent bundles too.",
        installError: .resourceChanged)
    public static let signatureCMSInvalid = FindingCode(
        "SIGNATURE_CMS_INVALID", .error,
        summary: "the CMS signature does not verify (digest, signature, chain links or CDHashes attributes)",
        remedy: resign,
        installError: .invalidSignature)
    public static let signatureChainIncomplete = FindingCode(
        "SIGNATURE_CHAIN_INCOMPLETE", .warning, summary: "the CMS signature does not carry the chain up to a root",
        remedy: "Sign with an identity whose intermediate certificates are included (Apple's WWDR and root).")
    public static let signatureCertificateExpired = FindingCode(
        "SIGNATURE_CERT_EXPIRED", .warning, summary: "a certificate of the signing chain is expired (or not yet valid) at the date",
        remedy: "Re-sign with a current signing certificate before distributing the app.",
        installError: .identityNoLongerValid)
    public static let signatureCertificateNotInProfile = FindingCode(
        "SIGNATURE_CERT_NOT_IN_PROFILE", .error,
        summary: "the signing certificate is not among the embedded profile's DeveloperCertificates",
        remedy: "Sign with a certificate the profile lists, or embed a profile that lists it.",
        installError: .noValidProfile)
    public static let signatureEntitlementNotGranted = FindingCode(
        "SIGNATURE_ENTITLEMENT_NOT_GRANTED", .error, summary: "a signed entitlement is not granted by the embedded profile",
        remedy: "Remove the entitlement or use a profile that grants it, then re-sign.",
        installError: .invalidEntitlements)
    public static let signatureEntitlementType = FindingCode(
        "SIGNATURE_ENTITLEMENT_TYPE", .error,
        summary: "a signed entitlement Apple defines is not of its type (a string, a boolean, an array of strings)",
        remedy: "Re-sign with the entitlement written as Apple's type (application-identifier a string, get-task-allow a "
            + "boolean, keychain-access-groups an array of strings...).",
        installError: .invalidEntitlements)
    public static let signatureAppIDMismatch = FindingCode(
        "SIGNATURE_APP_ID_MISMATCH", .error,
        summary: "the signed application-identifier does not match the profile's or the bundle ID",
        remedy: "Re-sign with entitlements whose application-identifier is the profile's team prefix and the bundle ID.",
        installError: .invalidEntitlements)
    public static let signatureIdentifierMismatch = FindingCode(
        "SIGNATURE_IDENTIFIER_MISMATCH", .error, summary: "a CodeDirectory's identifier is not the bundle's CFBundleIdentifier",
        remedy: "Re-sign the bundle with its bundle ID as the signing identifier.",
        installError: .invalidSignature)
    public static let signatureTeamMismatch = FindingCode(
        "SIGNATURE_TEAM_MISMATCH", .error, summary: "bundles of one app are signed by different teams",
        remedy: "Re-sign every bundle with the same team's identity.",
        installError: .invalidSignature)
    public static let signatureAdHoc = FindingCode(
        "SIGNATURE_AD_HOC", .info, summary: "a bundle is signed ad hoc (no identity), so it installs only where ad-hoc code runs",
        remedy: "Sign with a distribution identity and profile before distributing the app.")

    /// Every code, in the order docs/finding-codes.md lists them.
    public static let signatureCodes: [FindingCode] = [
        signatureMissing, signatureMalformed, signaturePageHashMismatch, signatureSpecialSlotMismatch, signatureSealBroken,
        signatureSealedFileMissing, signatureUnsealedFile, signatureNestedMismatch, signatureCMSInvalid, signatureChainIncomplete,
        signatureCertificateExpired, signatureCertificateNotInProfile, signatureEntitlementNotGranted, signatureEntitlementType,
        signatureAppIDMismatch,
        signatureIdentifierMismatch, signatureTeamMismatch, signatureAdHoc,
    ]
}
