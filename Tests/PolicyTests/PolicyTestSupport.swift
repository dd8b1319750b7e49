import Foundation
import Policy
import TestSupport
import ToolData
import XMLSupport

/// The repository's Templates folder and things read from it.
enum Repo {
    static let templates = Fixtures.packageRoot.appendingPathComponent("Templates", isDirectory: true)
    static let schemaPath = templates.appendingPathComponent("schema/policy_metadata.xsd").path

    static func directory() throws -> TemplateDirectory {
        try TemplateDirectory(at: templates)
    }

    static func schema() throws -> XMLSchema {
        try directory().loadSchema()
    }

    static func template(_ name: String) throws -> PolicyTemplate {
        try directory().loadPolicyTemplate(named: name)
    }

    static func templateBytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: templates.appendingPathComponent("policies/\(name).xml")))
    }
}

enum InvalidFixtures {
    static let folder = Fixtures.url("policy/invalid")

    /// Every fixture file name, sorted.
    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".xml") }
            .sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes("policy/invalid/\(name)")
    }

    /// The code the file is named for: the part before the first '.'.
    static func namedCode(_ name: String) -> String {
        String(name.prefix { $0 != "." })
    }

    /// The `expect:CODE` markers of a fixture, with the lines they are on.
    static func expectations(_ bytes: [UInt8]) -> Set<ExpectedIssue> {
        ExpectedIssue.markers(in: bytes)
    }
}

/// Debian's xmllint (libxml2-utils), an independent validator for the same schema.
enum Xmllint {
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("xmllint") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    static var isAvailable: Bool { executable != nil }

    struct Result {
        let status: Int32
        let output: String

        /// Lines xmllint reports schema violations on (`FILE:LINE: element X: Schemas validity error`).
        var violationLines: Set<Int> {
            var lines: Set<Int> = []
            for row in output.split(separator: "\n") where row.contains("Schemas validity error") {
                let fields = row.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                if fields.count == 3, let line = Int(fields[1]) { lines.insert(line) }
            }
            return lines
        }
    }

    /// `xmllint --noout --nonet --schema XSD FILE`.
    static func validate(_ file: URL) throws -> Result {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--noout", "--nonet", "--schema", Repo.schemaPath, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// Validates bytes by writing them to a temporary file first.
    static func validate(bytes: [UInt8]) throws -> Result {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("ipawrap-policy-\(UUID().uuidString).xml")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try validate(file)
    }
}
