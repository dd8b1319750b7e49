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

/// One slice of an executable as the install rules see it: its architecture and the platform it
/// was built for.
public struct ExecutableSlice: Sendable, Equatable {
    public let architecture: MachOArchitecture
    /// `LC_BUILD_VERSION`'s platform (or the one `LC_VERSION_MIN_*` implies); nil when none.
    public let platform: MachOPlatform?

    public init(architecture: MachOArchitecture, platform: MachOPlatform?) {
        self.architecture = architecture
        self.platform = platform
    }

    /// The slices of a parsed executable.
    public static func of(_ file: MachOFile) -> [ExecutableSlice] {
        file.slices.map { ExecutableSlice(architecture: $0.architecture, platform: $0.buildVersion?.platform) }
    }

    /// Whether the slice is 64-bit ARM code (arm64, arm64e), what iOS 11 and later run.
    public var isARM64: Bool { architecture.cpuType == MachOArchitecture.arm64 }
}

/// Why an app is a Simulator build (`PLATFORM_SIMULATOR`), which no device installs: the first
/// evidence found, in this order, or nil for a device build.
public enum SimulatorBuild {
    public static func evidence(executable: MachOFile?, info: PropertyListDictionary?) -> String? {
        evidence(slices: executable.map(ExecutableSlice.of) ?? [], info: info)
    }

    public static func evidence(slices: [ExecutableSlice], info: PropertyListDictionary?) -> String? {
        if !slices.isEmpty {
            let platforms = slices.compactMap(\.platform)
            let simulators: Set<MachOPlatform> = [.iOSSimulator, .tvOSSimulator, .watchOSSimulator, .visionOSSimulator]
            if platforms.count == slices.count, let first = platforms.first, platforms.allSatisfy(simulators.contains) {
                return "its executable is built for the \(first.name) (LC_BUILD_VERSION platform \(first.rawValue))"
            }
            let intel: Set<Int32> = [MachOArchitecture.x86, MachOArchitecture.x86_64]
            if slices.allSatisfy({ intel.contains($0.architecture.cpuType) }) {
                let names = slices.map(\.architecture.name).joined(separator: ", ")
                return "its executable holds only Intel code (\(names)), which runs only in the Simulator"
            }
        }
        if let name = info?["DTPlatformName"]?.string, name.lowercased().hasSuffix("simulator") {
            return "its Info.plist's DTPlatformName is \(name)"
        }
        let supported = (info?["CFBundleSupportedPlatforms"]?.array ?? []).compactMap(\.string)
        if !supported.isEmpty, supported.allSatisfy({ $0.lowercased().hasSuffix("simulator") }) {
            return "its Info.plist's CFBundleSupportedPlatforms is \(supported.joined(separator: ", "))"
        }
        return nil
    }
}
