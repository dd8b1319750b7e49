/// `mach_header.filetype`: what kind of image a slice is.
public struct MachOFileType: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public static let object = MachOFileType(rawValue: 1)
    /// A main executable (`MH_EXECUTE`): the app binary or an extension's.
    public static let execute = MachOFileType(rawValue: 2)
    public static let dylinker = MachOFileType(rawValue: 7)
    /// A dynamic library, including the binary inside a `.framework` (`MH_DYLIB`).
    public static let dylib = MachOFileType(rawValue: 6)
    /// A loadable bundle (`MH_BUNDLE`), e.g. a plug-in loaded with `dlopen`.
    public static let bundle = MachOFileType(rawValue: 8)
    public static let dylibStub = MachOFileType(rawValue: 9)
    public static let dsym = MachOFileType(rawValue: 10)
    public static let kextBundle = MachOFileType(rawValue: 11)
    public static let fileset = MachOFileType(rawValue: 12)

    public var name: String {
        switch rawValue {
        case 1: "object"
        case 2: "execute"
        case 3: "fvmlib"
        case 4: "core"
        case 5: "preload"
        case 6: "dylib"
        case 7: "dylinker"
        case 8: "bundle"
        case 9: "dylib stub"
        case 10: "dsym"
        case 11: "kext bundle"
        case 12: "fileset"
        default: "filetype \(rawValue)"
        }
    }

    public var description: String { name }
}
