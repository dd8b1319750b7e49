extension FindingCode {
    public static let iconNotFound = FindingCode(
        "ICON_NOT_FOUND", .error,
        summary: "no app icon was found by the Info.plist keys, the fallback files or the asset catalog",
        remedy: "Add an app icon: list PNG files under CFBundleIcons > CFBundlePrimaryIcon > CFBundleIconFiles, "
            + "ship Icon.png in the app folder, or set CFBundleIconName to an icon set in Assets.car.",
        wrappingRule: true)

    public static let iconReferenceMissing = FindingCode(
        "ICON_REFERENCE_MISSING", .warning,
        summary: "Info.plist names an icon file that is not in the app bundle",
        remedy: "Ship the named PNG in the app folder, or remove the name from Info.plist; names may omit "
            + ".png and the @2x, @3x, ~ipad and ~iphone suffixes.")

    public static let iconUnreadable = FindingCode(
        "ICON_UNREADABLE", .warning,
        summary: "the chosen icon file exists but cannot be decoded (not a PNG, or a damaged one)",
        remedy: "Replace the icon file with a valid PNG (Xcode's CgBI-optimised PNGs are fine).")

    public static let iconCodes: [FindingCode] = [iconNotFound, iconReferenceMissing, iconUnreadable]
}
