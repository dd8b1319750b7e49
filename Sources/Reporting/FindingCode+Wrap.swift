extension FindingCode {
    public static let alreadyWrapped = FindingCode(
        "ALREADY_WRAPPED", .error,
        summary: "the app already carries an MDX policy bundle (MDXPolicy.bundle), so wrapping again needs --rewrap",
        remedy: "Wrap the original, unwrapped app, or pass --rewrap to replace the existing policy bundle.",
        wrappingRule: true)

    public static let signatureInvalidated = FindingCode(
        "SIGNATURE_INVALIDATED", .warning,
        summary: "the app was signed and wrapping changed its sealed contents, so the signature no longer matches",
        remedy: "Re-sign it before installing or uploading it: wrap with --sign --identity (or run ipawrap sign on "
            + "the output), with a distribution certificate and a profile whose App ID matches.")

    public static let policyModeDiffers = FindingCode(
        "POLICY_MODE_DIFFERS", .warning,
        summary: "--mode asks for a different app mode than the policy template declares",
        remedy: "Use the template made for that mode (premium or general), or drop --mode to keep the template's mode.")

    public static let wrapCodes: [FindingCode] = [alreadyWrapped, signatureInvalidated, policyModeDiffers]
}
