/// Why an input has no report: the error's stable code (e.g. `ARCHIVE_NOT_ZIP`) and one sentence
/// naming the file and what is wrong. The one failure type: a batch result, a SARIF or JUnit
/// subject and the `error` object `--json` prints when a command fails all carry it.
public struct InputFailure: Codable, Sendable, Equatable {
    public var code: String
    public var message: String
    /// A message of several lines (libxml2's, a schema's) line by line, for `--json`'s error
    /// object; nil otherwise, and then left out of the JSON.
    public var details: [String]?

    public init(code: String, message: String, details: [String]? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }
}
