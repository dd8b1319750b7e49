import Foundation

/// Runs Python scripts with the oracle environment `Scripts/test` makes (`.build/oracle-venv`:
/// pinned `asn1crypto`, `cryptography`, `lief`, `jsonschema` from PyPI; see Scripts/lib/setup.sh).
///
/// `Scripts/test` sets `IPAWRAP_ORACLE_PYTHON` to its interpreter: then the oracle is required,
/// and a test whose package is missing fails with a message saying so. A plain `swift test`
/// finds the environment if an earlier `Scripts/test` made it, and otherwise skips those tests:
///
/// ```swift
/// @Test(.enabled(if: PythonOracle.canRun("asn1crypto"), "needs the Python oracle (Scripts/test makes it)"))
/// func attributesAgree() throws {
///     let output = try PythonOracle.run(script, arguments: [path], packages: ["asn1crypto"])
/// }
/// ```
public enum PythonOracle {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `IPAWRAP_ORACLE_PYTHON`, when set and not empty.
    private static var configured: String? {
        ProcessInfo.processInfo.environment["IPAWRAP_ORACLE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether `Scripts/test` asked for the oracle (so a missing package is a failure).
    public static var isRequired: Bool { configured != nil }

    /// The interpreter: `IPAWRAP_ORACLE_PYTHON`, else the package's `.build/oracle-venv`.
    public static var interpreter: String {
        configured ?? Fixtures.packageRoot.appendingPathComponent(".build/oracle-venv/bin/python3").path
    }

    /// Whether a test needing `packages` should run: always when required (it then fails
    /// clearly if they are missing), otherwise only when they import.
    public static func canRun(_ packages: String...) -> Bool {
        isRequired || missing(packages) == nil
    }

    /// The packages of `packages` the interpreter cannot import, as a sentence, or nil.
    public static func missing(_ packages: [String]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: interpreter) else {
            return "there is no Python oracle interpreter at \(interpreter); run Scripts/test, which creates it"
        }
        let probe = packages.map { "import \($0)" }.joined(separator: "; ")
        guard let result = try? Command.run(interpreter, ["-c", probe]), result.status == 0 else {
            return "the Python oracle environment (\(interpreter)) cannot import \(packages.joined(separator: ", ")); "
                + "add them to ORACLE_PYTHON_PACKAGES in Scripts/lib/setup.sh"
        }
        return nil
    }

    /// Runs `script` (Python source) with `arguments`; its stdout, or a `Failure` with its stderr.
    /// Checks first that `packages` import, so a missing one fails with that message.
    public static func run(
        _ script: String, arguments: [String] = [], packages: [String] = [], input: [UInt8]? = nil
    ) throws -> String {
        if let problem = missing(packages) { throw Failure(description: problem) }
        let result = try Command.run(interpreter, ["-c", script] + arguments, input: input)
        guard result.status == 0 else {
            throw Failure(description: "the Python oracle script failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }
}
