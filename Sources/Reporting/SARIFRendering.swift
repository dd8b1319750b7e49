import Foundation

/// Renders reports as SARIF 2.1.0 (`--report-format sarif`), for code scanning: one run, one rule
/// per code of the finding catalogue (its summary as description, its remedy as help), one result
/// per finding, located at the archive path inside the IPA (an artifact nested in the IPA's), and
/// inputs that could not be read as error notifications of the invocation. A pure function of
/// its inputs; keys are sorted, so the same reports give the same bytes. `render(_:tool:)` passes the
/// catalogue (`FindingCode.all`).
public enum SARIFRendering {
    public static func render(_ subjects: [ReportSubject], tool: Report.Tool, catalogue: [FindingCode]) throws -> String {
        var rules = catalogue.map(Rule.init)
        var ruleIndex = Dictionary(catalogue.enumerated().map { ($1.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        var artifacts: [Artifact] = []
        var results: [Result] = []
        var notifications: [Notification] = []

        for subject in subjects {
            let inputIndex = artifacts.count
            artifacts.append(Artifact(location: Location(uri: uri(forFile: subject.path)), parentIndex: nil))
            var nested: [String: Int] = [:]
            // A failure is a notification of the invocation; a report made before it keeps its results.
            let (findings, failure) = (subject.outcome.findings, subject.outcome.failure)
            if let failure {
                notifications.append(Notification(
                    level: "error", message: Message(text: failure.message), descriptor: Descriptor(id: failure.code),
                    locations: [PhysicalLocationHolder(uri: uri(forFile: subject.path), index: inputIndex)]))
            }
            for finding in findings {
                let index: Int
                if let known = ruleIndex[finding.code] {
                    index = known
                } else {
                    // A code outside the catalogue given (a check's never is: `FindingCode.all` holds every
                    // detail's code): a rule of its own, from the typed code when there is one, so the
                    // log stays valid; a recorded code this build does not know has only its name.
                    index = rules.count
                    ruleIndex[finding.code] = index
                    rules.append(finding.findingCode.map(Rule.init)
                        ?? Rule(id: finding.code, summary: finding.code, remedy: finding.remedy, severity: finding.severity))
                }
                // Where the finding is: a file on disk by its own URI, an archive path as an artifact
                // nested in the input's, none (or an empty path) the input itself.
                let location: PhysicalLocationHolder
                switch finding.location {
                case .file(let path)? where !path.isEmpty:
                    location = PhysicalLocationHolder(uri: uri(forFile: path), index: nil)
                case .archive(let path)? where !path.isEmpty:
                    let artifact: Int
                    if let known = nested[path] {
                        artifact = known
                    } else {
                        artifact = artifacts.count
                        nested[path] = artifact
                        artifacts.append(Artifact(location: Location(uri: uri(forArchivePath: path)), parentIndex: inputIndex))
                    }
                    location = PhysicalLocationHolder(uri: uri(forArchivePath: path), index: artifact)
                default:
                    location = PhysicalLocationHolder(uri: uri(forFile: subject.path), index: inputIndex)
                }
                results.append(Result(
                    ruleId: finding.code, ruleIndex: index, level: level(finding.severity),
                    message: Message(text: "\(subject.name): \(finding.message)"), locations: [location],
                    properties: ResultProperties(remedy: finding.remedy, input: subject.name, installError: finding.installError)))
            }
        }

        let log = Log(runs: [Run(
            tool: ToolHolder(driver: Driver(name: tool.name, version: tool.version, rules: rules)),
            artifacts: artifacts, results: results,
            invocations: [Invocation(executionSuccessful: notifications.isEmpty, toolExecutionNotifications: notifications)])])
        return try ReportJSON.string(log)
    }

    static func level(_ severity: Severity) -> String {
        switch severity {
        case .error: "error"
        case .warning: "warning"
        case .info: "note"
        }
    }

    /// A path inside the IPA as a relative URI reference: every byte but the unreserved
    /// characters and `/` percent-encoded (a name may hold spaces, `%`, `#`, `:` or any Unicode).
    static func uri(forArchivePath path: String) -> String {
        percentEncoded(path)
    }

    /// A file on disk: relative paths as relative references, absolute ones as `file://` URIs.
    static func uri(forFile path: String) -> String {
        path.hasPrefix("/") ? "file://" + percentEncoded(path) : percentEncoded(path)
    }

    private static func percentEncoded(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "/"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += String(format: "%%%02X", byte)
            }
        }
        return output
    }

    // MARK: The SARIF objects ipawrap writes (nil properties are left out)

    private struct Log: Encodable {
        let schema = "https://json.schemastore.org/sarif-2.1.0.json"
        let version = "2.1.0"
        let runs: [Run]

        enum CodingKeys: String, CodingKey {
            case schema = "$schema", version, runs
        }
    }

    private struct Run: Encodable {
        let tool: ToolHolder
        let artifacts: [Artifact]
        let results: [Result]
        let invocations: [Invocation]
    }

    private struct ToolHolder: Encodable {
        let driver: Driver
    }

    private struct Driver: Encodable {
        let name: String
        let version: String
        let rules: [Rule]
    }

    private struct Rule: Encodable {
        let id: String
        let shortDescription: Message
        let help: Message?
        let defaultConfiguration: Configuration

        init(_ code: FindingCode) {
            self.init(id: code.rawValue, summary: code.summary, remedy: code.remedy, severity: code.severity)
        }

        init(id: String, summary: String, remedy: String?, severity: Severity) {
            self.id = id
            shortDescription = Message(text: summary)
            help = remedy.map(Message.init)
            defaultConfiguration = Configuration(level: SARIFRendering.level(severity))
        }
    }

    private struct Configuration: Encodable {
        let level: String
    }

    private struct Message: Encodable {
        let text: String
    }

    private struct Location: Encodable {
        let uri: String
    }

    private struct Artifact: Encodable {
        let location: Location
        let parentIndex: Int?
    }

    private struct ArtifactLocation: Encodable {
        let uri: String
        let index: Int?
    }

    private struct PhysicalLocation: Encodable {
        let artifactLocation: ArtifactLocation
    }

    /// A SARIF `location` holding only its physical location.
    private struct PhysicalLocationHolder: Encodable {
        let physicalLocation: PhysicalLocation

        init(uri: String, index: Int?) {
            physicalLocation = PhysicalLocation(artifactLocation: ArtifactLocation(uri: uri, index: index))
        }
    }

    private struct ResultProperties: Encodable {
        let remedy: String?
        let input: String
        /// The error a device would give: `{code, message}`.
        let installError: InstallError?
    }

    private struct Result: Encodable {
        let ruleId: String
        let ruleIndex: Int
        let level: String
        let message: Message
        let locations: [PhysicalLocationHolder]
        let properties: ResultProperties
    }

    private struct Descriptor: Encodable {
        let id: String
    }

    private struct Notification: Encodable {
        let level: String
        let message: Message
        let descriptor: Descriptor
        let locations: [PhysicalLocationHolder]
    }

    private struct Invocation: Encodable {
        let executionSuccessful: Bool
        let toolExecutionNotifications: [Notification]
    }
}
