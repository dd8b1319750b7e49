import Foundation
import Testing
import TestSupport

/// Paths are bytes (issue 27, class 8): every path reaches the kernel through `FileSystem`
/// (`Sources/FormatSupport/FileSystem.swift`), which hands it the bytes `PathEncoding` carries.
/// A direct `open(path)`, `stat(path)` or Foundation file call elsewhere would re-encode a name
/// that is not UTF-8 and name another file, so this reads every source file and fails on one.
@Suite struct FileSystemCallTests {
    /// A C call that takes a path, called directly (not `FileSystem.stat(`, `walked.open(`, a
    /// `func open(` or a `case symlink(`; `stat()` alone makes the structure).
    static let systemCall = try? NSRegularExpression(
        pattern: #"(?<![\w.])(?<!func )(?<!case )(?:Glibc\.)?(open|stat|lstat|opendir|realpath|rename|unlink|mkdir|rmdir|access|readlink|truncate|chmod|chown|utimensat|link|symlink|creat|fopen|statfs|statvfs)\((?!\))"#)
    /// Foundation's file calls, which encode a path as UTF-8 themselves (`temporaryDirectory`
    /// names no user path), and the C shims that take a path unless given `PathEncoding`'s bytes.
    static let foundationCall = try? NSRegularExpression(
        pattern: #"FileManager\.default\.(?!temporaryDirectory)|(?:Data|String|NSData|NSString)\(contentsOf(?:File)?:|FileHandle\(for|resolvingSymlinksInPath|write\(to: *URL|write\(toFile:|ipawrap_(?:open|link)_unnamed_file\(|ipawrap_exchange_paths\("#)

    /// The code of `line` (nil for a comment line), without a trailing comment.
    static func code(of line: Substring) -> String? {
        let trimmed = String(line.drop { $0 == " " })
        guard !trimmed.hasPrefix("//") else { return nil }
        return trimmed.components(separatedBy: " // ").first ?? trimmed
    }

    /// Each line of `text` (the file `name`) that makes a path call another way.
    static func directCalls(in text: String, file name: String) -> [String] {
        var found: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard let code = code(of: line), !code.contains("PathEncoding.withCString") else { continue }
            let text = code
            let range = NSRange(text.startIndex..., in: text)
            for expression in [systemCall, foundationCall].compactMap({ $0 })
            where expression.firstMatch(in: text, range: range) != nil {
                found.append("\(name):\(number + 1): \(text)")
                break
            }
        }
        return found
    }

    @Test func everyPathReachesTheKernelThroughFileSystem() throws {
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var problems: [String] = []
        var read = 0
        for case let file as URL in files where file.pathExtension == "swift" && !file.path.hasSuffix("FormatSupport/FileSystem.swift") {
            read += 1
            problems += Self.directCalls(in: try String(contentsOf: file, encoding: .utf8), file: file.lastPathComponent)
        }
        #expect(read > 200)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The scan finds each way a path call could be written, and passes the ones that are fine.
    @Test func theScanTellsDirectCallsFromFileSystemOnes() {
        let direct = """
            let fd = open(path, O_RDONLY)
            guard stat(path, &info) == 0 else { return }
            let fd = Glibc.open(path, O_RDONLY)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let unnamed = ipawrap_open_unnamed_file(directory, 0o666)
            if lstat(disk, &info) != 0 {}
            """
        let fine = """
            var info = stat()
            let fd = FileSystem.open(path, O_RDONLY)
            guard FileSystem.stat(path, &info) == 0 else { return }
            let source = try walked.open(path)
            func open(_ path: String) throws -> FileByteSource {
            case symlink(target: String)
            // a comment may say open(path)
            let unnamed = PathEncoding.withCString(directory) { ipawrap_open_unnamed_file($0, 0o666) }
            let temporary = FileManager.default.temporaryDirectory
            _ = fstat(descriptor, &info)
            """
        #expect(Self.directCalls(in: direct, file: "direct").count == 7)
        #expect(Self.directCalls(in: fine, file: "fine") == [])
    }
}
