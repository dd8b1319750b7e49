#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A path is bytes to the kernel: a Linux file name may hold any byte but NUL and `/`, UTF-8 or
/// not. A Swift `String` must be Unicode, and `CommandLine.arguments`, `String(cString:)` and
/// Foundation's file APIs replace bytes that are not UTF-8 with U+FFFD, so the file the user
/// named is lost (`\xFF\xFE.ipa` becomes `��.ipa`, which does not exist).
///
/// ipawrap carries a path in a `String` losslessly instead: valid UTF-8 as itself, and each byte
/// of a sequence that is not UTF-8 (always 0x80–0xFF) as the private-use scalar U+10FF00 + byte
/// (U+10FF80–U+10FFFF). A character that is itself in that range is carried as its four bytes,
/// so bytes → string → bytes is exact for every path. `FileSystem` turns a path back into its
/// bytes wherever it reaches the kernel; `displayed` shows the carried bytes as `\xFF`.
public enum PathEncoding {
    /// U+10FF00 + byte stands for a byte that is not part of valid UTF-8.
    static let escapeBase: UInt32 = 0x10FF00
    /// The lowest scalar that stands for a byte (0x80: every byte below is ASCII, always valid).
    static let firstEscape: UInt32 = escapeBase + 0x80

    /// The string that carries `bytes` (a file name, a path, an argument) losslessly.
    public static func string(_ bytes: some Collection<UInt8>) -> String {
        // The escaped range's scalars start with F4 8F BE or F4 8F BF: text without an F4 byte
        // is carried as itself.
        if !bytes.contains(0xF4), let text = String(validating: bytes, as: UTF8.self) { return text }
        let input = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var iterator = input.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        // How many bytes the parser has consumed (it may read ahead, but reports what it used).
        var position = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if scalar.value >= firstEscape {
                    for byte in encoded { scalars.append(escape(byte)) }
                } else {
                    scalars.append(scalar)
                }
                position += encoded.count
            case .error(let length):
                // A maximal run that forms no scalar: a lead or continuation byte and the
                // continuations after it, each 0x80 or more.
                for byte in input.dropFirst(position).prefix(length) { scalars.append(escape(byte)) }
                position += length
            case .emptyInput:
                return String(scalars)
            }
        }
    }

    /// The string that carries a NUL-terminated C path (from `readdir`, `realpath`, `argv`).
    public static func string(cString: UnsafePointer<CChar>) -> String {
        string(UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }

    /// The bytes `path` carries: the UTF-8 of its text, with each carried byte as itself.
    public static func bytes(_ path: String) -> [UInt8] {
        guard carriesBytes(path) else { return Array(path.utf8) }
        var result: [UInt8] = []
        result.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if scalar.value >= firstEscape {
                result.append(UInt8(truncatingIfNeeded: scalar.value - escapeBase))
            } else {
                result.append(contentsOf: UTF8.encode(scalar).map(Array.init) ?? [])
            }
        }
        return result
    }

    /// Calls `body` with `path`'s bytes as a NUL-terminated C string, for a system call.
    public static func withCString<Result>(
        _ path: String, _ body: (UnsafePointer<CChar>) throws -> Result
    ) rethrows -> Result {
        guard carriesBytes(path) else { return try path.withCString(body) }
        let terminated = bytes(path).map { CChar(bitPattern: $0) } + [0]
        return try terminated.withUnsafeBufferPointer { buffer in
            // A non-empty array always has a base address.
            guard let base = buffer.baseAddress else { return try "".withCString(body) }
            return try body(base)
        }
    }

    /// Whether `path` is text: it carries no byte that is not UTF-8 (and no character of the
    /// escape range), so it can be written where UTF-8 is required (a zip entry name).
    public static func isUTF8(_ path: String) -> Bool {
        !carriesBytes(path)
    }

    /// `path` for people: each carried byte shown as `\xFF` (with `backslash` for the backslash,
    /// `\\` inside JSON), everything else as it is.
    public static func displayed(_ path: String, backslash: String = "\\") -> String {
        guard carriesBytes(path) else { return path }
        var result = ""
        for scalar in path.unicodeScalars {
            if scalar.value >= firstEscape {
                result += backslash + hexDigits(UInt8(truncatingIfNeeded: scalar.value - escapeBase))
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `path` as plain text for a name that must be UTF-8 but is only a label (a file name in
    /// metadata): each carried byte becomes U+FFFD, as a lossy decoder would read it.
    public static func replacingCarriedBytes(_ path: String) -> String {
        String(decoding: bytes(path), as: UTF8.self)
    }

    /// The program's arguments (`argv` after the program name), each carried losslessly; Swift's
    /// `CommandLine.arguments` would have replaced bytes that are not UTF-8.
    public static func commandLineArguments() -> [String] {
        let count = Int(CommandLine.argc)
        guard count > 1 else { return [] }
        return (1..<count).map { index in
            CommandLine.unsafeArgv[index].map { string(cString: $0) } ?? ""
        }
    }

    /// The program as invoked (`argv[0]`), carried losslessly.
    public static func invokedProgram() -> String? {
        guard CommandLine.argc > 0, let pointer = CommandLine.unsafeArgv[0] else { return nil }
        return string(cString: pointer)
    }

    // MARK: Helpers

    private static func carriesBytes(_ path: String) -> Bool {
        // Every scalar of the escape range is encoded F4 8F BE xx or F4 8F BF xx.
        path.utf8.contains(0xF4) && path.unicodeScalars.contains { $0.value >= firstEscape }
    }

    /// The scalar that carries `byte` (0x80 or more; an ASCII byte is always itself).
    private static func escape(_ byte: UInt8) -> Unicode.Scalar {
        guard byte >= 0x80 else { return Unicode.Scalar(byte) }
        // escapeBase + a byte is at most U+10FFFF and never a surrogate: always a scalar.
        return Unicode.Scalar(escapeBase + UInt32(byte)) ?? "\u{FFFD}"
    }

    /// `xFF` for 0xFF.
    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }
}
