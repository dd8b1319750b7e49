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
        // glibc copies what `+` and `{n,m}` repeat while it compiles: `a++++…` or `(a{99}){99}`
        // grow exponentially (fuzzing found 60 stacked `+` exhausting memory).
        guard Self.expandedSize(bytes) <= Self.maximumExpandedSize else {
            throw CodeSignatureError(
                .resourceRule,
                "the resource rule \"\(pattern)\" repeats too much (more than \(Self.maximumExpandedSize) terms once its repetitions are expanded)")
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

    /// Expanded patterns larger than this are refused; Apple's rules expand to a few dozen terms.
    static let maximumExpandedSize = 4096

    /// An upper bound on the terms glibc's compiler builds for `pattern`: each atom counts one,
    /// a group the sum of its contents, `+` doubles what it repeats and `{n,m}` multiplies it by
    /// its larger bound. Saturates just past the limit, so hostile counts cannot overflow.
    static func expandedSize(_ pattern: [UInt8]) -> Int {
        let cap = maximumExpandedSize + 1
        var groups: [Int] = [0]
        var last: Int?
        func add(_ size: Int) {
            groups[groups.count - 1] = min(cap, groups[groups.count - 1] + size)
        }
        /// Repeats the last atom `copies` times in all.
        func repeatLast(_ copies: Int) {
            guard let atom = last else { return }
            let grown = min(cap, atom * min(cap, copies))
            add(grown - atom)
            last = grown
        }
        var index = 0
        while index < pattern.count {
            let byte = pattern[index]
            index += 1
            switch byte {
            case UInt8(ascii: "("):
                groups.append(0)
                last = nil
            case UInt8(ascii: ")"):
                guard groups.count > 1, let inner = groups.popLast() else { continue }
                last = max(1, inner)
                add(last ?? 1)
            case UInt8(ascii: "|"):
                last = nil
            case UInt8(ascii: "+"):
                repeatLast(2)
            case UInt8(ascii: "*"), UInt8(ascii: "?"):
                break
            case UInt8(ascii: "{"):
                // {n}, {n,} or {n,m}: as many copies as the larger bound (one more when open).
                var bounds = [0]
                while index < pattern.count, pattern[index] != UInt8(ascii: "}") {
                    let digit = pattern[index]
                    if digit == UInt8(ascii: ",") {
                        bounds.append(0)
                    } else if (0x30...0x39).contains(digit), let current = bounds.last {
                        bounds[bounds.count - 1] = min(cap, current * 10 + Int(digit - 0x30))
                    }
                    index += 1
                }
                index += 1
                let open = bounds.count > 1 && bounds.last == 0
                repeatLast(max(1, (bounds.max() ?? 0) + (open ? 1 : 0)))
            case UInt8(ascii: "["):
                // A bracket expression is one atom; `]` first (after `^`) is a literal, and
                // `[:class:]`, `[.x.]`, `[=x=]` nest.
                if index < pattern.count, pattern[index] == UInt8(ascii: "^") { index += 1 }
                if index < pattern.count, pattern[index] == UInt8(ascii: "]") { index += 1 }
                while index < pattern.count, pattern[index] != UInt8(ascii: "]") {
                    if pattern[index] == UInt8(ascii: "["), index + 1 < pattern.count,
                        [UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "=")].contains(pattern[index + 1])
                    {
                        let close = pattern[index + 1]
                        index += 2
                        while index + 1 < pattern.count, !(pattern[index] == close && pattern[index + 1] == UInt8(ascii: "]")) {
                            index += 1
                        }
                        index += 2
                    } else {
                        index += 1
                    }
                }
                index += 1
                last = 1
                add(1)
            case UInt8(ascii: "\\"):
                index += 1
                last = 1
                add(1)
            default:
                last = 1
                add(1)
            }
        }
        return groups.reduce(0) { min(cap, $0 + $1) }
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
