import MachO
import PropertyList

/// The platform an app is built for, as the report's `app.platform` names it. MDX wrapping is for
/// iOS and iPadOS apps only.
public enum AppPlatform: String, Sendable, Codable, CaseIterable {
    case iOS = "iOS"
    case iPadOSOnly = "iPadOS-only"
    case tvOS = "tvOS"
    case watchOS = "watchOS"
    case visionOS = "visionOS"
    case macCatalyst = "Mac Catalyst"

    /// Whether the platform is one MDX can wrap (iOS, iPadOS).
    public var isWrappable: Bool { self == .iOS || self == .iPadOSOnly }

    /// The OS name before a version ("iOS 16.0+", "tvOS 17.0+").
    public var osName: String {
        switch self {
        case .iOS: "iOS"
        case .iPadOSOnly: "iPadOS"
        case .tvOS: "tvOS"
        case .watchOS: "watchOS"
        case .visionOS: "visionOS"
        case .macCatalyst: "Mac Catalyst"
        }
    }

    /// Decided from the executable's build version when it has one (`LC_BUILD_VERSION` or
    /// `LC_VERSION_MIN_*`), else from Info.plist (`DTPlatformName`, `CFBundleSupportedPlatforms`,
    /// `UIDeviceFamily`); an iOS app whose `UIDeviceFamily` is only iPad (2) is iPadOS-only.
    public static func judge(buildPlatform: MachOPlatform?, info: PropertyListDictionary?) -> AppPlatform {
        let families = Set((info?["UIDeviceFamily"]).map { value in
            (value.array ?? [value]).compactMap { $0.int ?? $0.string.flatMap { Int($0) } }
        } ?? [])
        let iOS: AppPlatform = families == [2] ? .iPadOSOnly : .iOS
        switch buildPlatform {
        case .tvOS?, .tvOSSimulator?: return .tvOS
        case .watchOS?, .watchOSSimulator?: return .watchOS
        case .visionOS?, .visionOSSimulator?: return .visionOS
        case .macCatalyst?: return .macCatalyst
        case .iOS?, .iOSSimulator?: return iOS
        default: break
        }
        let names = [info?["DTPlatformName"]?.string] + (info?["CFBundleSupportedPlatforms"]?.array ?? []).map(\.string)
        for name in names.compactMap({ $0?.lowercased() }) {
            if name.hasPrefix("appletv") { return .tvOS }
            if name.hasPrefix("watch") { return .watchOS }
            if name.hasPrefix("xr") { return .visionOS }
            if name.hasPrefix("iphone") { return iOS }
        }
        if families == [3] { return .tvOS }
        if families == [4] { return .watchOS }
        if families == [7] { return .visionOS }
        return iOS
    }
}
