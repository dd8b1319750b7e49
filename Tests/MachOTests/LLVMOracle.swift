import Foundation
import TestSupport

/// `llvm-objdump` and `llvm-nm` from the Swift toolchain or the system, used as independent
/// readers of the same files. Tests that need them skip (with a message) when they are absent.
enum LLVMOracle {
    static let objdump = find("llvm-objdump")
    static let nm = find("llvm-nm")

    static var isAvailable: Bool { objdump != nil && nm != nil }

    private static func find(_ tool: String) -> String? {
        var candidates = ["/opt/swift/usr/bin/\(tool)"]
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { "\($0)/\(tool)" }
        candidates += (14...22).reversed().map { "/usr/lib/llvm-\($0)/bin/\(tool)" }
        // Only a build that understands Mach-O is useful: probe it on a fat executable.
        guard let scratch = try? ScratchDirectory("llvm-probe"),
            let probe = try? scratch.write("probe", XcodeShapedApp.bytes(XcodeShapedApp.appName))
        else { return nil }
        return withExtendedLifetime(scratch) {
            candidates.first { candidate in
                guard FileManager.default.isExecutableFile(atPath: candidate) else { return false }
                let arguments =
                    tool == "llvm-nm" ? ["--arch=arm64", probe] : ["--macho", "--dylibs-used", "--arch=arm64", probe]
                guard let output = try? run(candidate, arguments) else { return false }
                return output.status == 0 && !output.stdout.isEmpty
            }
        }
    }

    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting so a full pipe cannot block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs `llvm-objdump ARGUMENTS FILE` on bytes written to a temporary file.
    static func objdump(_ arguments: [String], bytes: [UInt8]) throws -> Output? {
        guard let objdump else { return nil }
        return try withTemporaryFile(bytes) { try run(objdump, arguments + [$0]) }
    }

    static func nm(_ arguments: [String], bytes: [UInt8]) throws -> Output? {
        guard let nm else { return nil }
        return try withTemporaryFile(bytes) { try run(nm, arguments + [$0]) }
    }

    static func withTemporaryFile<T>(_ bytes: [UInt8], _ body: (String) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ipawrap-macho-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url.path)
    }

    /// The `cmd` names of `--private-headers` output, in order, for every slice.
    static func loadCommandNames(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("cmd ") else { return nil }
            return String(trimmed.dropFirst(4)).trimmingCharacters(in: .whitespaces)
        }
    }
}
