import FormatSupport

/// Text for XML and HTML documents that ipawrap writes (the batch HTML page, JUnit reports).
public enum MarkupText {
    /// Text safe in element content and in quoted attribute values: the five markup characters
    /// as references, and characters that neither HTML nor XML 1.0 allow in a document (C0 and C1
    /// controls other than tab, LF and CR; noncharacters) as U+FFFD. Input strings (Info.plist
    /// values, archive names) are attacker-controlled, so nothing passes unescaped. A path's
    /// bytes that are not UTF-8 (`PathEncoding`) show as `\xFF`, as in the text reports.
    public static func escaped(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in PathEncoding.displayed(text).unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&#39;".unicodeScalars)
            case "\t", "\n", "\r": out.append(scalar)
            default:
                let value = scalar.value
                if value < 0x20 || (0x7F...0x9F).contains(value) || (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE {
                    out.append("\u{FFFD}")
                } else {
                    out.append(scalar)
                }
            }
        }
        return String(out)
    }
}
