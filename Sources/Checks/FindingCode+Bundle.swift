extension FindingCode {
    public static let nestedBundleUnreadable = FindingCode(
        "BUNDLE_INFO_PLIST_INVALID", .warning,
        summary: "a nested bundle (framework, extension, watch app, app clip) has a missing or unreadable Info.plist",
        remedy: "Rebuild the bundle so its Info.plist is present and a valid property list.")

    static let bundleCodes: [FindingCode] = [nestedBundleUnreadable]
}
