import FormatSupport
import XMLSupport

/// A valid policy file: its app mode and policies, with `--set` style overrides applied on top
/// and written back in the file's own layout.
///
/// ```swift
/// var template = try PolicyTemplate(bytes: xml, schema: schema)
/// try template.set(name: "DisableCamera", value: "true")
/// let embedded = try template.serialized()  // the file, with only that PolicyDefault changed
/// ```
public struct PolicyTemplate: Sendable {
    /// The ISV app mode the file declares (`PolicyMetadata/@AppMode`).
    public let mode: AppMode
    /// The policies in file order, with overrides applied to their defaults.
    public private(set) var policies: [Policy]

    /// The file as read.
    public let sourceBytes: [UInt8]
    /// Each policy's `PolicyDefault` element in `sourceBytes`, index-aligned with `policies`.
    private let defaultElements: [XMLSourceElement]
    /// The defaults as read, index-aligned with `policies`.
    private let originalDefaults: [String]
    private let indexByName: [String: Int]

    /// Parses and checks a policy file, throwing every problem found when it is not valid.
    public init(bytes: [UInt8], schema: XMLSchema) throws(PolicyValidationError) {
        let validation = PolicyDocument.validate(bytes, schema: schema)
        guard let template = validation.template else {
            throw PolicyValidationError(issues: validation.issues)
        }
        self = template
    }

    init(mode: AppMode, policies: [Policy], sourceBytes: [UInt8], defaultElements: [XMLSourceElement]) {
        self.mode = mode
        self.policies = policies
        self.sourceBytes = sourceBytes
        self.defaultElements = defaultElements
        self.originalDefaults = policies.map(\.defaultValue)
        var indexByName: [String: Int] = [:]
        for (index, policy) in policies.enumerated() { indexByName[policy.name] = index }
        self.indexByName = indexByName
    }

    /// Policy names in file order.
    public var names: [String] { policies.map(\.name) }

    /// The policy called `name` (exact, case-sensitive), if any.
    public func policy(named name: String) -> Policy? {
        indexByName[name].map { policies[$0] }
    }

    /// The names of policies whose default differs from the file's.
    public var changedNames: [String] {
        policies.indices.filter { policies[$0].defaultValue != originalDefaults[$0] }.map { policies[$0].name }
    }

    /// Sets the default of policy `name` to `value`, checked against the policy's type.
    public mutating func set(name: String, value: String) throws(PolicyOverrideError) {
        guard let index = indexByName[name] else {
            throw PolicyOverrideError(
                reason: .unknownName, name: name,
                suggestions: NameSuggestions.closest(to: name, among: names))
        }
        let policy = policies[index]
        if let problem = policy.type.problem(with: value) {
            throw PolicyOverrideError(
                reason: .invalidValue, name: name,
                detail: "\(problem) (the policy is a \(policy.type.typeName))")
        }
        policies[index].defaultValue = value
    }

    /// Applies overrides in order; a later one for the same policy wins. Stops at the first bad one.
    public mutating func apply(_ overrides: [PolicyOverride]) throws(PolicyOverrideError) {
        for override in overrides {
            try set(name: override.name, value: override.value)
        }
    }

    /// The policy XML with the current defaults: the file's bytes, with only the text of changed
    /// `PolicyDefault` elements replaced. Same template and overrides give the same bytes; with no
    /// changes they are the file's bytes exactly.
    public func serialized() throws(PolicySerializationError) -> [UInt8] {
        let edits = policies.indices
            .filter { policies[$0].defaultValue != originalDefaults[$0] }
            .map { XMLTextEdit(element: defaultElements[$0], text: policies[$0].defaultValue) }
        guard !edits.isEmpty else { return sourceBytes }
        let output: [UInt8]
        do {
            output = try XMLSourceEditor(bytes: sourceBytes).applying(edits)
        } catch {
            throw PolicySerializationError(message: error.message)
        }
        try verify(output)
        return output
    }

    /// Reads the output back and compares every default, so that a mistake of the in-place
    /// editor can never reach an app bundle.
    private func verify(_ output: [UInt8]) throws(PolicySerializationError) {
        let document: XMLDocument
        do {
            document = try XMLDocument(bytes: output, maximumSize: max(PolicyDocument.maximumSize, output.count))
        } catch {
            throw PolicySerializationError(message: "the edited policy XML does not parse: \(error.message)")
        }
        let written = document.root?.child(named: "Policies")?.children
            .filter { $0.name == "Policy" }
            .map { $0.child(named: "PolicyDefault")?.text } ?? []
        guard written == policies.map({ Optional($0.defaultValue) }) else {
            throw PolicySerializationError(message: "the edited policy XML does not read back with the values that were set")
        }
    }
}

/// The policy XML could not be written with the new values.
public struct PolicySerializationError: ReasonCodedError, Equatable {
    public enum Reason: String, ErrorReason, CaseIterable {
        case serialization = "POLICY_SERIALIZATION"
    }

    public let message: String

    public init(message: String) {
        self.message = message
    }

    public var reason: Reason { .serialization }
    public var description: String { message }
}
