/// Why an input has no report: the error's stable code (e.g. `ARCHIVE_NOT_ZIP`) and one sentence
/// naming the file and what is wrong. A batch result and a SARIF or JUnit subject carry the same.
public struct InputFailure: Codable, Sendable, Equatable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
