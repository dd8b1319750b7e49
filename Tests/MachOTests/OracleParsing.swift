/// Readers for the text `llvm-objdump --macho` and `llvm-nm -m` print, to compare with ours.
enum OracleParsing {
    struct Dylib: Equatable {
        var path: String
        var compatibilityVersion: String
        var currentVersion: String
        /// "weak", "reexport", "lazy", "upward" or "" for a plain load.
        var kind: String
    }

    /// `--dylibs-used` lines for one architecture:
    /// `\t/usr/lib/libSystem.B.dylib (compatibility version 1.0.0, current version 1226.10.1[, weak])`.
    static func dylibs(_ output: String) -> [Dylib] {
        output.split(separator: "\n").compactMap { line -> Dylib? in
            guard line.hasPrefix("\t"), let open = line.range(of: " (compatibility version ", options: .backwards)
            else { return nil }
            let path = String(line[line.index(after: line.startIndex)..<open.lowerBound])
            let fields = line[open.upperBound...].dropLast().components(separatedBy: ", ")
            guard fields.count >= 2 else { return nil }
            let current = fields[1].replacingOccurrences(of: "current version ", with: "")
            return Dylib(
                path: path, compatibilityVersion: fields[0], currentVersion: current,
                kind: fields.count > 2 ? fields[2] : "")
        }
    }

    /// Values of `--private-headers` lines that start with `key` (after indentation), in order.
    static func values(_ output: String, key: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(key + " ") else { return nil }
            return String(trimmed.dropFirst(key.count + 1)).trimmingCharacters(in: .whitespaces)
        }
    }

    /// `--private-headers` output split into load commands: the `cmd` name and each
    /// `key value` line of the command (sections included), first value per key.
    static func commands(_ output: String) -> [(name: String, fields: [String: String])] {
        var result: [(name: String, fields: [String: String])] = []
        for line in output.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("Load command ") {
                result.append(("", [:]))
                continue
            }
            guard !result.isEmpty, let space = trimmed.firstIndex(of: " ") else { continue }
            let key = String(trimmed[..<space])
            let value = trimmed[space...].trimmingCharacters(in: .whitespaces)
            if key == "cmd" { result[result.count - 1].name = value }
            if result[result.count - 1].fields[key] == nil { result[result.count - 1].fields[key] = value }
        }
        return result
    }

    /// `--section=SEG,SECT` output of a C-string section: `ADDRESS  string` per line.
    static func cStrings(_ output: String) -> [String] {
        output.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            guard let gap = line.range(of: "  "), line[..<gap.lowerBound].allSatisfy(\.isHexDigit),
                !line[..<gap.lowerBound].isEmpty
            else { return nil }
            return unescape(line[gap.upperBound...])
        }.filter { !$0.isEmpty }
    }

    /// llvm-objdump prints `"` as `\"`, a backslash as `\\`, and control characters as C escapes.
    private static func unescape(_ text: Substring) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                default: result.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    struct Symbols {
        var definedExternal: [String] = []
        var undefined: [(name: String, from: String?)] = []
    }

    /// `llvm-nm -m` lines: `ADDR (SEG,SECT) external NAME` or `(undefined) [weak] external NAME (from LIB)`.
    static func symbols(_ output: String) -> Symbols {
        var result = Symbols()
        for line in output.split(separator: "\n") {
            let tokens = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let external = tokens.firstIndex(of: "external"), external + 1 < tokens.count else { continue }
            let name = tokens[external + 1]
            if tokens.contains("(undefined)") {
                var from: String?
                if let index = tokens.firstIndex(of: "(from"), index + 1 < tokens.count {
                    from = String(tokens[index + 1].dropLast())
                }
                result.undefined.append((name, from))
            } else {
                result.definedExternal.append(name)
            }
        }
        return result
    }
}
