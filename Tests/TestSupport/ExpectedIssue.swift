/// One problem a policy fixture says it has: a code on a line, marked in the file by a comment
/// `<!-- expect:CODE -->` on that line.
public struct ExpectedIssue: Hashable, Sendable, CustomStringConvertible {
    public let code: String
    public let line: Int
    public var description: String { "\(code)@\(line)" }

    public init(code: String, line: Int) {
        self.code = code
        self.line = line
    }

    /// The `expect:CODE` markers of a fixture, with the lines they are on (UTF-16LE files decoded).
    public static func markers(in bytes: [UInt8]) -> Set<ExpectedIssue> {
        let text: String
        if bytes.starts(with: [0xFF, 0xFE]) {
            let units = stride(from: 2, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
            text = String(decoding: units, as: UTF16.self)
        } else {
            text = String(decoding: bytes, as: UTF8.self)
        }
        var result: Set<ExpectedIssue> = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = line[...]
            while let marker = rest.range(of: "expect:") {
                let code = rest[marker.upperBound...].prefix { $0.isUppercase || $0 == "_" || $0.isNumber }
                result.insert(ExpectedIssue(code: String(code), line: index + 1))
                rest = rest[marker.upperBound...]
            }
        }
        return result
    }
}
