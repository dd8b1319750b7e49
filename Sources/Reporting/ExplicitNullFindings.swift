/// Findings written with every key, `path` and `remedy` as `null` when absent: the form of
/// `verify --json`'s findings (docs/commands.md, `verify`), where the inspect/check report leaves those keys
/// out. One `Finding` type, two JSON forms; either form reads back as `[Finding]`.
@propertyWrapper
public struct ExplicitNullFindings: Codable, Sendable, Equatable {
    public var wrappedValue: [Finding]

    public init(wrappedValue: [Finding]) {
        self.wrappedValue = wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for finding in wrappedValue {
            try container.encode(EveryKey(finding: finding))
        }
    }

    public init(from decoder: any Decoder) throws {
        wrappedValue = try [Finding](from: decoder)
    }

    /// One finding's keys, the optional ones through `ExplicitNull`.
    private struct EveryKey: Encodable {
        let finding: Finding

        enum CodingKeys: String, CodingKey {
            case code, severity, message, path, remedy, installError
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(finding.code, forKey: .code)
            try container.encode(finding.severity, forKey: .severity)
            try container.encode(finding.message, forKey: .message)
            try container.encode(ExplicitNull(wrappedValue: finding.path), forKey: .path)
            try container.encode(ExplicitNull(wrappedValue: finding.remedy), forKey: .remedy)
            try container.encode(ExplicitNull(wrappedValue: finding.installError), forKey: .installError)
        }
    }
}
