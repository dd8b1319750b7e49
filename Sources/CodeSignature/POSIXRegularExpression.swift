#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX extended regular expression compiled by the C library (`regcomp` with `REG_EXTENDED |
/// REG_NOSUB`), the engine and flags Apple's `ResourceBuilder` matches resource rules with.
///
/// glibc's `regexec` locks the compiled pattern internally, so one value may be matched from
/// several threads.
final class POSIXRegularExpression: @unchecked Sendable {
    /// Longer patterns are refused; Apple's rules are a few dozen characters.
    static let maximumPatternLength = 1024

    let pattern: String
    /// On the heap so that concurrent matches need no Swift access to a stored property.
    private let compiled: UnsafeMutablePointer<regex_t>

    init(_ pattern: String) throws(CodeSignatureError) {
        self.pattern = pattern
        guard pattern.utf8.count <= Self.maximumPatternLength, !pattern.utf8.contains(0) else {
            throw CodeSignatureError(
                .resourceRule, "the resource rule pattern is longer than \(Self.maximumPatternLength) bytes or holds a NUL")
        }
        // Back-references make matching exponential in the path length; no real rule uses them.
        let bytes = Array(pattern.utf8)
        for (index, byte) in bytes.enumerated().dropLast() where byte == UInt8(ascii: "\\") {
            if (0x31...0x39).contains(bytes[index + 1]), !Self.isEscaped(bytes, index) {
                throw CodeSignatureError(.resourceRule, "the resource rule \"\(pattern)\" uses a back-reference")
            }
        }
        // Compiled into a local first: once every property is set, a throw would run deinit.
        let compiled = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
        compiled.initialize(to: regex_t())
        guard regcomp(compiled, pattern, REG_EXTENDED | REG_NOSUB) == 0 else {
            compiled.deallocate()
            throw CodeSignatureError(.resourceRule, "the resource rule \"\(pattern)\" is not a valid extended regular expression")
        }
        self.compiled = compiled
    }

    deinit {
        regfree(compiled)
        compiled.deallocate()
    }

    /// Whether the pattern matches anywhere in `text` (patterns anchor themselves with `^`).
    func matches(_ text: String) -> Bool {
        regexec(compiled, text, 0, nil, 0) == 0
    }

    /// Whether the backslash at `index` is itself escaped by an odd run of backslashes before it.
    private static func isEscaped(_ bytes: [UInt8], _ index: Int) -> Bool {
        var count = 0
        var at = index - 1
        while at >= 0, bytes[at] == UInt8(ascii: "\\") {
            count += 1
            at -= 1
        }
        return count % 2 == 1
    }
}
