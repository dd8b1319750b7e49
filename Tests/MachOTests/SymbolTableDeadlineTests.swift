import FormatSupport
import Testing
@testable import MachO

/// Many `nlist` entries naming one long string cost time and memory quadratic in the table, not
/// linear (issue 19): the scan reads the time limit per symbol and per name byte, and the names
/// kept as strings stop at `SymbolTable.maximumNameBytes` (the rest count as unread).
@Suite struct SymbolTableDeadlineTests {
    /// `count` external defined `nlist_64` entries, every one naming string offset 1.
    static func entries(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in 0..<count {
            bytes += [1, 0, 0, 0]  // n_strx
            bytes += [0x0F, 1, 0, 0]  // N_SECT | N_EXT, section 1, no descriptor
            withUnsafeBytes(of: UInt64(0x1000 + index).littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// A table whose only name is `length` bytes long.
    static func strings(_ length: Int) -> [UInt8] {
        [0] + [UInt8](repeating: UInt8(ascii: "a"), count: length) + [0]
    }

    static func table(symbols: Int, nameLength: Int, clock: WorkClock = .unlimited) throws(MachOError) -> SymbolTable {
        let strings = strings(nameLength)
        return try SymbolTable(
            entries: entries(symbols), count: symbols, declaredCount: symbols, is64Bit: true, byteOrder: .little,
            strings: strings, declaredStringSize: strings.count, libraries: [], twoLevelNamespace: true, clock: clock)
    }

    @Test func namesSharingOneLongStringAreKeptUpToTheBound() throws {
        // 64 symbols naming one 256 KiB string: 16 MiB of names for a table of 256 KiB.
        let length = 256 << 10
        let table = try Self.table(symbols: 64, nameLength: length)
        let kept = SymbolTable.maximumNameBytes(stringTableBytes: length + 2) / length
        #expect(table.defined.count == kept)
        #expect(table.unreadNameCount == 64 - kept)
        #expect(table.isTruncated)
        #expect(table.defined.allSatisfy { $0.name.utf8.count == length })
        // An ordinary table is kept whole.
        let small = try Self.table(symbols: 64, nameLength: 40)
        #expect(small.defined.count == 64 && small.unreadNameCount == 0 && !small.isTruncated)
    }

    @Test func aPassedDeadlineStopsTheScan() throws {
        let passed = WorkClock(deadline: .now - .seconds(1), seconds: 1, file: "App.ipa")
        // Each symbol scans 64 KiB: the clock is read at the first one.
        #expect(throws: MachOError(.timeLimit, passed.timeLimitMessage)) {
            _ = try Self.table(symbols: 8, nameLength: 64 << 10, clock: passed)
        }
        #expect(try Self.table(symbols: 8, nameLength: 64 << 10).defined.count == 8)
    }
}
