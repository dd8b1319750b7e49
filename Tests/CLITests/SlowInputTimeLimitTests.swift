import Foundation
import PropertyList
import Testing
import TestSupport

/// `--time-limit` inside the format parsers' loops (issue 19): a plist of hundreds of thousands of
/// objects (binary or XML) and a Mach-O of two million load commands each took seconds past a
/// one-second limit, which was only checked between the steps of a command. The deadline now
/// reaches the parsers (`WorkClock`), so each input is refused within a second of it.
@Suite struct SlowInputTimeLimitTests {
    // A quarter second: on a quiet machine the 100,000-dictionary XML plist parses in under a
    // second, so a one-second limit would not be reached and the test would prove nothing.
    static let limit = 0.25

    /// An Info.plist whose `Padding` array holds `count` one-key dictionaries.
    static func bigInfoPlist(_ count: Int, format: PropertyList.Format) throws -> [UInt8] {
        var info = IPABuilder.infoPlist(name: "Sample", bundleIdentifier: "com.example.sample")
        info["Padding"] = .array((0..<count).map { .dictionary(["k\($0)": .string("v")]) })
        return try PropertyList(root: .dictionary(info), format: format).serialized()
    }

    /// A thin arm64 executable with `count` 8-byte load commands of an unknown type (which a
    /// parser skips), the most the 16 MiB load-command limit allows at 2 Mi.
    static func manyLoadCommands(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        for value: UInt32 in [0xFEED_FACF, 0x0100_000C, 0, 2, UInt32(count), UInt32(count * 8), 0, 0] { u32(value) }
        bytes.reserveCapacity(32 + count * 8)
        for _ in 0..<count {
            u32(0x7FF0)
            u32(8)
        }
        return bytes
    }

    static func slowInput(_ kind: String) throws -> [UInt8] {
        var builder = IPABuilder()
        switch kind {
        case "binary plist": builder.rawInfoPlist = try bigInfoPlist(200_000, format: .binary)
        case "XML plist": builder.rawInfoPlist = try bigInfoPlist(100_000, format: .xml)
        default: builder.executable = manyLoadCommands(2 << 20)
        }
        return try builder.bytes()
    }

    @Test(arguments: ["binary plist", "XML plist", "Mach-O load commands"])
    func aSlowInputStopsWithinASecondOfTheTimeLimit(_ kind: String) throws {
        let scratch = try ScratchDirectory("slow-input")
        let bytes = try Self.slowInput(kind)
        let input = try scratch.write("Slow.ipa", bytes)
        for command in [["inspect", input], ["check", input]] {
            let run = try TimeLimitRun.ipawrap(command + ["--time-limit", "\(Self.limit)"])
            let result = run.result
            #expect(result.status == 65, "\(kind), \(command[0]): \(result.stderr)")
            #expect(result.stderr.hasPrefix("ipawrap: error[ARCHIVE_TIME_LIMIT]: \(input) took longer"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            // Before the parsers checked the deadline these took 3 to 10 s.
            run.expectWithin(limit: Self.limit, sanitized: ResourceLimitTests.sanitized, "\(kind), \(command[0])")
        }
        #expect(scratch.listing() == ["Slow.ipa"])
        #expect(try Fixtures.bytesAt(input) == bytes)
    }
}
