import PNG

/// Where an icon was found, named as the report's `icon.source`.
public enum IconSource: String, Sendable, Codable, CaseIterable {
    case bundleIcons = "CFBundleIcons"
    case bundleIconsIPad = "CFBundleIcons~ipad"
    case primaryIcon = "CFBundlePrimaryIcon"
    case iconFiles = "CFBundleIconFiles"
    case iconFile = "CFBundleIconFile"
    case newsstandIcon = "UINewsstandIcon"
    case documentTypes = "CFBundleDocumentTypes"
    case fallback
    case assetCatalog
}

/// How the chosen icon is stored, named as the report's `icon.format`.
public enum IconFormat: String, Sendable, Codable {
    case png
    case cgbi
    case assetCatalog
}

/// The icon the rules chose.
public struct ResolvedIcon: Sendable {
    /// Archive path of the file; for an asset catalog, `…/Assets.car#<rendition name>`.
    public let path: String
    public let source: IconSource
    public let width: Int
    public let height: Int
    public let format: IconFormat
    /// The decoded rendition, for icons from an asset catalog (already decoded to size it).
    public let assetImage: RGBAImage?
}

/// A name in Info.plist that matched no file in the bundle root.
public struct MissingIconReference: Sendable, Equatable {
    public let name: String
    public let source: IconSource
    /// The file names that were looked for.
    public let candidates: [String]
}

/// An icon file or catalog that exists but could not be read.
public struct UnreadableIcon: Sendable, Equatable {
    public let path: String
    public let reason: String
}

/// The outcome of icon resolution, with every decision recorded so a user can see why an icon was
/// or was not picked.
public struct IconResolution: Sendable {
    public var icon: ResolvedIcon?
    /// Each location tried, in order, and what it gave.
    public var trace: [String] = []
    /// Names from locations that named only missing files (each is an `ICON_REFERENCE_MISSING`).
    public var missingReferences: [MissingIconReference] = []
    /// Files that exist but could not be decoded, from locations that gave nothing else; each
    /// file once, however many locations named it.
    public private(set) var unreadable: [UnreadableIcon] = []

    mutating func noteUnreadable(_ icon: UnreadableIcon) {
        if !unreadable.contains(where: { $0.path == icon.path }) { unreadable.append(icon) }
    }
}
