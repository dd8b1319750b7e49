/// A CPU type and subtype pair as found in a fat arch entry or a Mach-O header, with the name
/// Apple's tools use for it (`arm64`, `armv7s`, `x86_64`…).
public struct MachOArchitecture: Sendable, Hashable, CustomStringConvertible {
    /// `cputype`; bit 24 (`CPU_ARCH_ABI64`) marks 64-bit ABIs.
    public let cpuType: Int32
    /// `cpusubtype` as stored, including the capability bits in the high byte (arm64e keeps its
    /// pointer-authentication ABI version there).
    public let cpuSubtype: Int32

    public init(cpuType: Int32, cpuSubtype: Int32) {
        self.cpuType = cpuType
        self.cpuSubtype = cpuSubtype
    }

    public static let arm = Int32(12)
    public static let arm64 = Int32(0x0100_000C)
    public static let arm64_32 = Int32(0x0200_000C)
    public static let x86 = Int32(7)
    public static let x86_64 = Int32(0x0100_0007)
    public static let powerPC = Int32(18)
    public static let powerPC64 = Int32(0x0100_0012)

    /// The subtype without the capability bits (`CPU_SUBTYPE_MASK`).
    public var maskedSubtype: Int32 { cpuSubtype & 0x00FF_FFFF }

    /// Whether the CPU type uses the 64-bit ABI.
    public var is64Bit: Bool { cpuType & 0x0100_0000 != 0 }

    /// The name lipo and otool print, or `cpu 0x… sub 0x…` for a pair they do not know.
    public var name: String {
        let sub = maskedSubtype
        switch cpuType {
        case Self.arm:
            let names: [Int32: String] = [
                5: "armv4t", 6: "armv6", 7: "armv5", 8: "xscale", 9: "armv7", 10: "armv7f",
                11: "armv7s", 12: "armv7k", 13: "armv8", 14: "armv6m", 15: "armv7m", 16: "armv7em",
            ]
            if sub == 0 { return "arm" }
            if let name = names[sub] { return name }
        case Self.arm64:
            switch sub {
            case 0: return "arm64"
            case 1: return "arm64v8"
            case 2: return "arm64e"
            default: break
            }
        case Self.arm64_32:
            if sub == 0 || sub == 1 { return "arm64_32" }
        case Self.x86:
            if sub == 3 { return "i386" }
        case Self.x86_64:
            if sub == 3 { return "x86_64" }
            if sub == 8 { return "x86_64h" }
        case Self.powerPC:
            if sub == 0 { return "ppc" }
        case Self.powerPC64:
            if sub == 0 { return "ppc64" }
        default:
            break
        }
        return "cpu 0x\(hex(UInt32(bitPattern: cpuType))) sub 0x\(hex(UInt32(bitPattern: cpuSubtype)))"
    }

    public var description: String { name }
}

func hex(_ value: UInt32) -> String {
    String(value, radix: 16, uppercase: true)
}

func hex(_ value: UInt64) -> String {
    String(value, radix: 16, uppercase: true)
}
