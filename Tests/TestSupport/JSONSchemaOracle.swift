import Foundation

/// Validates ipawrap's JSON against the JSON Schemas (draft 2020-12) it publishes in
/// `Templates/schema/`, with Python's `jsonschema` from the oracle environment. `Command.ipawrap`
/// runs every `--json` report and `--json-lines` record of the test suite through it, so the
/// schemas cannot drift from the code.
public enum JSONSchemaOracle {
    public enum Schema: String, Sendable, CaseIterable {
        /// `inspect`, `check` and `wrap --json`.
        case report = "report.schema.json"
        /// One line of `batch ... --json-lines`.
        case batchRecord = "batch-record.schema.json"
        /// What `--json` prints when the command fails (its `failure` is a batch record's too).
        case error = "error.schema.json"
    }

    public struct Violation: Error, CustomStringConvertible {
        public let description: String
    }

    /// The published schemas.
    public static let folder = Fixtures.packageRoot.appendingPathComponent("Templates/schema")

    /// Whether validation runs: always under `Scripts/test` (a missing package then fails),
    /// otherwise when the environment has `jsonschema`. Decided once per test process.
    public static let isEnabled: Bool = PythonOracle.canRun("jsonschema")

    /// Checks the schema itself against the draft 2020-12 meta-schema, then each document (the
    /// whole `text`, or each non-empty line of it); throws a `Violation` listing what is wrong.
    public static func validate(_ text: String, against schema: Schema, jsonLines: Bool = false) throws {
        do {
            _ = try PythonOracle.run(
                script, arguments: [folder.path, schema.rawValue, jsonLines ? "lines" : "document"],
                packages: ["jsonschema"], input: Array(text.utf8))
        } catch let failure as PythonOracle.Failure {
            throw Violation(description: "ipawrap's JSON does not match Templates/schema/\(schema.rawValue): \(failure)")
        }
    }

    /// What `Command.ipawrap` calls after every run: validates the JSON the arguments asked for.
    static func validateOutput(of arguments: [String], _ result: Command.Result) throws {
        guard isEnabled, let command = arguments.first, !result.stdout.isEmpty else { return }
        let json = arguments.contains("--json") || arguments.joined(separator: " ").contains("--report-format json")
        if command == "batch", arguments.contains("--json-lines") {
            try validate(result.stdout, against: .batchRecord, jsonLines: true)
        } else if json, [64, 65, 74].contains(result.status) {
            try validate(result.stdout, against: .error)
        } else if ["inspect", "check", "wrap"].contains(command), json {
            try validate(result.stdout, against: .report)
        }
    }

    private static let script = #"""
        import json, pathlib, sys
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource

        folder, name, mode = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
        schemas = {path.name: json.loads(path.read_text()) for path in folder.glob("*.schema.json")}
        for schema in schemas.values():
            Draft202012Validator.check_schema(schema)
        # The schemas refer to each other by file name ("report.schema.json").
        registry = Registry().with_resources((n, Resource.from_contents(s)) for n, s in schemas.items())
        validator = Draft202012Validator(schemas[name], registry=registry)
        text = sys.stdin.read()
        documents = [text] if mode == "document" else [line for line in text.splitlines() if line.strip()]
        problems = []
        for number, document in enumerate(documents, 1):
            for error in validator.iter_errors(json.loads(document)):
                where = "/".join(str(part) for part in error.absolute_path) or "(root)"
                problems.append(f"document {number}, {where}: {error.message}")
        if problems:
            sys.exit("\n".join(problems[:20]))
        print(len(documents))
        """#
}
