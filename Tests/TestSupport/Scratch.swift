import Foundation

/// A fresh temporary folder for one test, removed when the value goes away.
public final class ScratchDirectory {
    public let url: URL

    public init(_ label: String = "test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ipawrap-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    public var path: String { url.path }

    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes bytes to a file in the folder and returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let target = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: target)
        return target.path
    }

    /// Every file and folder below the scratch folder, relative, sorted (hidden ones included),
    /// to prove that a failed command left nothing behind.
    public func listing() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: url.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.sorted()
    }
}

/// Runs programs: the built `ipawrap` binary and independent oracles (python3, unzip, openssl).
public enum Command {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// The `ipawrap` binary built beside the running test bundle (or `IPAWRAP_BIN`).
    public static var ipawrapPath: String {
        if let override = ProcessInfo.processInfo.environment["IPAWRAP_BIN"] { return override }
        return builtProductPath("ipawrap")
    }

    /// An executable product of this package (e.g. `sample-generator`), built beside the running
    /// test bundle.
    public static func builtProductPath(_ name: String) -> String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0])
        var folder = bundle.deletingLastPathComponent()
        // swift test runs `<bin>/ipawrapPackageTests.xctest`; on macOS it is a bundle folder.
        if folder.lastPathComponent == "MacOS" {
            folder = folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        }
        return folder.appendingPathComponent(name).path
    }

    /// Runs `ipawrap`; the JSON it prints for `--json` and `--json-lines` must match the published
    /// schemas (`JSONSchemaOracle`), or this throws. The repository's Templates folder is its
    /// `IPAWRAP_TEMPLATES` unless `environment` says otherwise (an empty value: the search beside
    /// the executable).
    @discardableResult
    public static func ipawrap(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        var environment = environment
        if environment["IPAWRAP_TEMPLATES"] == nil { environment["IPAWRAP_TEMPLATES"] = RepositoryTemplates.path }
        let result = try run(ipawrapPath, arguments, environment: environment)
        try JSONSchemaOracle.validateOutput(of: arguments, result)
        return result
    }

    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], input: [UInt8]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input)) }
        try stdin.fileHandleForWriting.close()
        // Drain both pipes concurrently so a chatty child cannot block on a full pipe.
        let errorData = LockedBox(Data())
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorData.set(stderr.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData.get(), as: UTF8.self))
    }

    /// Whether a program is on PATH (oracles are skipped with a message when missing).
    public static func exists(_ program: String) -> Bool {
        (try? run("/bin/sh", ["-c", "command -v \(program) >/dev/null"]).status) == 0
    }
}

/// A value shared with one background closure.
final class LockedBox<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func get() -> Value { lock.withLock { value } }
}
