import Foundation

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
        encoder.outputFormatting = layout == .pretty
            ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decoder that reads what `encoder` writes.
    public static func decoder() -> JSONDecoder {
        JSONDecoder()
    }

    /// `value` in the pretty form, without a final newline (as `print` adds one).
    public static func string(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }

    /// `value` in `layout`, ending in a newline: a file's contents or one JSON line.
    public static func bytes(_ value: some Encodable, _ layout: Layout = .pretty) throws -> [UInt8] {
        Array(try encoder(layout).encode(value)) + [UInt8(ascii: "\n")]
    }
}
