/// Base64 as XML plists use it in `<data>`.
enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 6-bit value of each ASCII byte; 0xFF for bytes outside the alphabet, 0xFE for `=`.
    static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 128)
        for (value, byte) in alphabet.enumerated() {
            table[Int(byte)] = UInt8(value)
        }
        table[Int(UInt8(ascii: "="))] = 0xFE
        return table
    }()

    /// Decodes like Core Foundation's XML reader: ASCII bytes outside the alphabet (whitespace,
    /// line breaks) are skipped, `=` pads a group (concatenated padded chunks are accepted), and a
    /// trailing incomplete group is dropped. Returns nil on a non-ASCII byte or on an alphabet
    /// character after `=` inside one group.
    static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var accumulator: UInt32 = 0
        var filled = 0
        var padding = 0
        for byte in text {
            guard byte < 0x80 else { return nil }
            let value = decodeTable[Int(byte)]
            if value == 0xFF { continue }
            if value == 0xFE {
                padding += 1
                accumulator <<= 6
                filled += 1
            } else {
                guard padding == 0 else { return nil }
                accumulator = accumulator << 6 | UInt32(value)
                filled += 1
            }
            if filled == 4 {
                guard padding <= 2 else { return nil }
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                if padding < 2 { output.append(UInt8(truncatingIfNeeded: accumulator >> 8)) }
                if padding < 1 { output.append(UInt8(truncatingIfNeeded: accumulator)) }
                accumulator = 0
                filled = 0
                padding = 0
            }
        }
        return output
    }

    /// Appends `data` in Core Foundation's `<data>` layout: lines of at most 76 columns counting
    /// the tab indent (8 columns per tab, at most 8 tabs), each line indented and ended by `\n`.
    static func appendLines(of data: [UInt8], indent: Int, to output: inout [UInt8]) {
        let tabs = min(indent, 8)
        let lineLimit = 76 - 8 * tabs
        var line: [UInt8] = []
        line.reserveCapacity(80)
        func flush() {
            output.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: tabs))
            output.append(contentsOf: line)
            output.append(UInt8(ascii: "\n"))
            line.removeAll(keepingCapacity: true)
        }
        var previous: UInt8 = 0
        for (position, byte) in data.enumerated() {
            switch position % 3 {
            case 0:
                line.append(alphabet[Int(byte >> 2)])
            case 1:
                line.append(alphabet[Int((previous << 4 | byte >> 4) & 0x3F)])
            default:
                line.append(alphabet[Int((previous << 2 | byte >> 6) & 0x3F)])
                line.append(alphabet[Int(byte & 0x3F)])
            }
            previous = byte
            if line.count >= lineLimit { flush() }
        }
        switch data.count % 3 {
        case 1:
            line.append(alphabet[Int((previous << 4) & 0x30)])
            line.append(UInt8(ascii: "="))
            line.append(UInt8(ascii: "="))
        case 2:
            line.append(alphabet[Int((previous << 2) & 0x3C)])
            line.append(UInt8(ascii: "="))
        default:
            break
        }
        if !line.isEmpty { flush() }
    }
}
