import FormatSupport
import Foundation
import PropertyList

/// The one JSON configuration of ipawrap's output: keys sorted (the same value gives the same
/// bytes), slashes unescaped, dates as ISO 8601 in UTC to the second. Every `--json` output is
/// its pretty form; batch records (JSON Lines) its compact form, one line each.
public enum ReportJSON {
    /// Pretty for `--json` and `--out-dir` files, compact for JSON Lines.
    public enum Layout: Sendable {
        case pretty
        case compact
    }

    /// An encoder with this configuration.
    public static func encoder(_ layout: Layout = .pretty) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(timestamp(date))
        }
        encoder.outputFormatting = layout == .pretty
            ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decoder that reads what `encoder` writes.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = PropertyListDate(iso8601: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return Date(timeIntervalSince1970: date.secondsSince1970)
        }
        return decoder
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, in UTC, rounded down to the second: how every report writes a
    /// date, in JSON and in text.
    public static func timestamp(_ date: Date) -> String {
        PropertyListDate(secondsSince1970: date.timeIntervalSince1970).iso8601
    }

    /// `value` in the pretty form, without a final newline (as `print` adds one).
    public static func string(_ value: some Encodable) throws -> String {
        showingCarriedBytes(String(decoding: try encoder().encode(value), as: UTF8.self))
    }

    /// `value` in `layout`, ending in a newline: a file's contents or one JSON line.
    public static func bytes(_ value: some Encodable, _ layout: Layout = .pretty) throws -> [UInt8] {
        Array(showingCarriedBytes(String(decoding: try encoder(layout).encode(value), as: UTF8.self)).utf8) + [UInt8(ascii: "\n")]
    }

    /// JSON text with each byte a path carries that is not UTF-8 (`PathEncoding`) written as the
    /// text `\xFF`, as the text reports show it (its backslash escaped for JSON). The carried
    /// bytes' scalars can only stand inside JSON strings, so the document stays valid.
    static func showingCarriedBytes(_ json: String) -> String {
        PathEncoding.isUTF8(json) ? json : PathEncoding.displayed(json, backslash: "\\\\")
    }
}
