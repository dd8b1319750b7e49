/// A version packed as `xxxx.yy.zz` nibbles (`major << 16 | minor << 8 | patch`), the encoding of
/// minimum OS and SDK versions and of dylib current/compatibility versions.
public struct MachOVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public init(major: UInt16, minor: UInt8 = 0, patch: UInt8 = 0) {
        self.rawValue = UInt32(major) << 16 | UInt32(minor) << 8 | UInt32(patch)
    }

    public var major: Int { Int(rawValue >> 16) }
    public var minor: Int { Int((rawValue >> 8) & 0xFF) }
    public var patch: Int { Int(rawValue & 0xFF) }

    /// `14.0`, or `16.4.1` when the patch is not zero (the form Xcode shows for deployment targets).
    public var description: String {
        patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)"
    }

    /// Always three components, `1226.10.1` or `1.0.0`, the form otool prints for dylib versions.
    public var threeComponentDescription: String { "\(major).\(minor).\(patch)" }

    public static func < (lhs: MachOVersion, rhs: MachOVersion) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// The platform a slice was built for (`LC_BUILD_VERSION.platform`, or implied by an
/// `LC_VERSION_MIN_*` command).
public struct MachOPlatform: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public static let macOS = MachOPlatform(rawValue: 1)
    public static let iOS = MachOPlatform(rawValue: 2)
    public static let tvOS = MachOPlatform(rawValue: 3)
    public static let watchOS = MachOPlatform(rawValue: 4)
    public static let bridgeOS = MachOPlatform(rawValue: 5)
    public static let macCatalyst = MachOPlatform(rawValue: 6)
    public static let iOSSimulator = MachOPlatform(rawValue: 7)
    public static let tvOSSimulator = MachOPlatform(rawValue: 8)
    public static let watchOSSimulator = MachOPlatform(rawValue: 9)
    public static let driverKit = MachOPlatform(rawValue: 10)
    public static let visionOS = MachOPlatform(rawValue: 11)
    public static let visionOSSimulator = MachOPlatform(rawValue: 12)

    public var name: String {
        switch rawValue {
        case 1: "macOS"
        case 2: "iOS"
        case 3: "tvOS"
        case 4: "watchOS"
        case 5: "bridgeOS"
        case 6: "Mac Catalyst"
        case 7: "iOS Simulator"
        case 8: "tvOS Simulator"
        case 9: "watchOS Simulator"
        case 10: "DriverKit"
        case 11: "visionOS"
        case 12: "visionOS Simulator"
        default: "platform \(rawValue)"
        }
    }

    public var description: String { name }
}
