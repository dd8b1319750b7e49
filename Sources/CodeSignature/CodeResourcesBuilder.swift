import FormatSupport

/// What a signer or verifier must learn about one bundle entry to seal or check it.
public struct ResourceRequest: Sendable, Hashable {
    public enum Need: Sendable, Hashable {
        /// The file's digests of these types.
        case digests([HashType])
        /// The nested code's cdhash and designated requirement (text), and the digests of these
        /// types (a Mach-O file is also in the version 1 seal by SHA-1; a file that turns out not
        /// to be code is sealed by its digests).
        case nestedCode(digests: [HashType])
    }

    public let path: String
    public let need: Need
}

/// The answer to a `ResourceRequest`.
public struct ResourceFacts: Sendable, Equatable {
    /// Nested code's identity in a seal.
    public struct NestedCode: Sendable, Equatable {
        public var cdhash: [UInt8]
        /// The designated requirement as text.
        public var requirement: String

        public init(cdhash: [UInt8], requirement: String) {
            self.cdhash = cdhash
            self.requirement = requirement
        }
    }

    public var digests: [HashType: [UInt8]]
    /// Set when the entry is code.
    public var nestedCode: NestedCode?

    public init(digests: [HashType: [UInt8]] = [:], nestedCode: NestedCode? = nil) {
        self.digests = digests
        self.nestedCode = nestedCode
    }

    public static func digests(_ digests: [HashType: [UInt8]]) -> ResourceFacts {
        ResourceFacts(digests: digests)
    }

    public static func nestedCode(cdhash: [UInt8], requirement: String, digests: [HashType: [UInt8]] = [:]) -> ResourceFacts {
        ResourceFacts(digests: digests, nestedCode: NestedCode(cdhash: cdhash, requirement: requirement))
    }
}

/// One way a bundle differs from its CodeResources seal.
public enum ResourceDiscrepancy: Sendable, Equatable, CustomStringConvertible {
    /// A sealed file's digest differs.
    case modified(path: String)
    /// A sealed, non-optional file is not in the bundle.
    case missing(path: String)
    /// A file the rules say must be sealed is not in the seal.
    case unsealed(path: String)
    /// A sealed symlink points elsewhere (`actual` nil: it is no longer a symlink).
    case symlinkChanged(path: String, sealed: String, actual: String?)
    /// Nested code's cdhash or designated requirement differs, or it is no longer code.
    case nestedCodeChanged(path: String)
    /// Sealed as one kind of entry (file, symlink, nested code), found as another.
    case kindChanged(path: String, sealed: String, actual: String)

    public var path: String {
        switch self {
        case .modified(let path), .missing(let path), .unsealed(let path), .nestedCodeChanged(let path): path
        case .symlinkChanged(let path, _, _), .kindChanged(let path, _, _): path
        }
    }

    public var description: String {
        switch self {
        case .modified(let path): "\(path) was modified"
        case .missing(let path): "\(path) is sealed but missing"
        case .unsealed(let path): "\(path) is not sealed"
        case .symlinkChanged(let path, let sealed, let actual):
            "\(path) was a symlink to \(sealed), now \(actual.map { "a symlink to \($0)" } ?? "not a symlink")"
        case .nestedCodeChanged(let path): "the nested code \(path) changed"
        case .kindChanged(let path, let sealed, let actual): "\(path) was sealed as a \(sealed) but is a \(actual)"
        }
    }
}

/// Builds the CodeResources a signer writes for a bundle: `files` from `rules` (SHA-1, regular
/// files only) and `files2` from `rules2` (`hashTypes` digests, symlinks, nested code), with
/// Apple's iOS rules by default.
///
/// Two steps, so the caller can hash entries however it streams them: `plan(for:…)` decides the
/// rules and says what to compute (`Plan.requests`), `build(_:facts:)` assembles the seal.
public struct CodeResourcesBuilder: Sendable {
    public var rules: [ResourceRule]
    public var rules2: [ResourceRule]
    /// Digests `files2` records per file: SHA-1 and SHA-256 (`hash`, `hash2`) as codesign writes
    /// for bundles that run on iOS before 11, SHA-256 alone after.
    public var hashTypes: [HashType]

    public init(
        rules: [ResourceRule] = ResourceRule.iOSRules, rules2: [ResourceRule] = ResourceRule.iOSRules2,
        hashTypes: [HashType] = [.sha1, .sha256]
    ) {
        self.rules = rules
        self.rules2 = rules2
        self.hashTypes = hashTypes
    }

    /// What both rule sets decide for a bundle's entries, and what must be computed for them: the
    /// rules are applied once for `requests` and `build` alike.
    public struct Plan: Sendable {
        let version1: [ResourceDecision]
        let version2: [ResourceDecision]
        /// Files' digests and nested code's cdhash to compute, in path order.
        public let requests: [ResourceRequest]
    }

    /// The rules' decisions for `entries` and the requests they make.
    public func plan(
        for entries: [ResourceEntry], mainExecutable: String?, clock: WorkClock = .unlimited
    ) throws(CodeSignatureError) -> Plan {
        let (version1, version2) = try decisions(entries, mainExecutable: mainExecutable, clock: clock)
        var needs: [String: Set<HashType>] = [:]
        var nested = Set<String>()
        for decision in version1 where decision.entry.kind == .file && (decision.outcome == .sealed || decision.outcome == .nested) {
            needs[decision.path, default: []].insert(.sha1)
        }
        for decision in version2 {
            switch (decision.outcome, decision.entry.kind) {
            case (.nested, _): nested.insert(decision.path)
            case (.sealed, .file): needs[decision.path, default: []].formUnion(hashTypes)
            default: break
            }
        }
        var requests: [ResourceRequest] = []
        for path in Set(needs.keys).union(nested).sorted(by: { $0.precedesInUTF16Order($1) }) {
            let types = (needs[path] ?? []).union(nested.contains(path) ? Set(hashTypes) : []).sorted()
            requests.append(ResourceRequest(path: path, need: nested.contains(path) ? .nestedCode(digests: types) : .digests(types)))
        }
        return Plan(version1: version1, version2: version2, requests: requests)
    }

    /// The seal `plan` decided, given the answers to its requests by path.
    public func build(_ plan: Plan, facts: [String: ResourceFacts]) throws(CodeSignatureError) -> CodeResources {
        let (version1, version2) = (plan.version1, plan.version2)
        func digests(_ path: String, _ types: [HashType]) throws(CodeSignatureError) -> [HashType: [UInt8]] {
            let known = facts[path]?.digests ?? [:]
            var chosen: [HashType: [UInt8]] = [:]
            for type in types {
                guard let digest = known[type], digest.count == type.digestSize else {
                    throw CodeSignatureError(.codeResources, "no \(type) digest was given for \(path)")
                }
                chosen[type] = digest
            }
            return chosen
        }
        var files: [CodeResources.Seal] = []
        for decision in version1 where decision.entry.kind == .file && (decision.outcome == .sealed || decision.outcome == .nested) {
            // codesign writes the simple form only when the rule sets no flag.
            let plain = !decision.isOptional && !decision.isNested
            files.append(
                CodeResources.Seal(
                    path: decision.path, content: .file(try digests(decision.path, [.sha1])),
                    optional: plain ? nil : decision.isOptional))
        }
        var files2: [CodeResources.Seal] = []
        for decision in version2 {
            let content: CodeResources.Seal.Content
            switch (decision.outcome, decision.entry.kind) {
            case (.nested, _):
                if let code = facts[decision.path]?.nestedCode {
                    content = .nestedCode(cdhash: code.cdhash, requirement: code.requirement)
                } else if decision.entry.kind == .file {
                    content = .file(try digests(decision.path, hashTypes))
                } else {
                    throw CodeSignatureError(.codeResources, "no cdhash was given for the nested bundle \(decision.path)")
                }
            case (.sealed, .symlink(let target)):
                content = .symlink(target: target)
            case (.sealed, _):
                content = .file(try digests(decision.path, hashTypes))
            default:
                continue
            }
            files2.append(CodeResources.Seal(path: decision.path, content: content, optional: decision.isOptional ? true : nil))
        }
        return CodeResources(files: files, files2: files2, rules: rules, rules2: rules2)
    }

    private func decisions(_ entries: [ResourceEntry], mainExecutable: String?, clock: WorkClock) throws(CodeSignatureError)
        -> (version1: [ResourceDecision], version2: [ResourceDecision])
    {
        // The two rule sets are independent, each compiling its own patterns: one core each,
        // while the caller's other core is idle.
        let sets = [rules, rules2]
        let decided: [[ResourceDecision]]
        do {
            decided = try ConcurrentJobs.run(count: sets.count, workers: sets.count, setUp: {}) { _, index in
                try ResourceRuleSet(sets[index]).decide(entries, mainExecutable: mainExecutable, clock: clock)
            }
        } catch let error as CodeSignatureError {
            throw error
        } catch {
            // Not reached: `decide` throws only CodeSignatureError.
            throw CodeSignatureError(.codeResources, "\(error)")
        }
        return (decided[0], decided[1])
    }
}

extension CodeResources {
    /// The seal a verifier checks (`files2` with `rules2`, else `files` with `rules`).
    private func activeSeal() throws(CodeSignatureError) -> (seals: [Seal], rules: ResourceRuleSet) {
        if let files2 {
            guard let rules2 else { throw CodeSignatureError(.codeResources, "CodeResources has files2 but no rules2") }
            return (files2, try ResourceRuleSet(rules2))
        }
        guard let files, let rules else {
            throw CodeSignatureError(.codeResources, "CodeResources has neither files2 and rules2 nor files and rules")
        }
        return (files, try ResourceRuleSet(rules))
    }

    /// The strongest digest type of a file seal that this reader can compute.
    private static func strongestType(_ hashes: [HashType: [UInt8]]) -> HashType? {
        [HashType.sha384, .sha256, .sha256Truncated, .sha1].first { hashes[$0] != nil }
    }

    /// Whether a sealed designated requirement names the one nested code carries. Both are
    /// requirement-language text; runs of white space are one space. An empty side (a seal
    /// without one, code with no explicit designated requirement) is not compared.
    static func sameRequirement(_ sealed: String, _ actual: String) -> Bool {
        func normalized(_ text: String) -> String {
            text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " ")
        }
        let (left, right) = (normalized(sealed), normalized(actual))
        return left.isEmpty || right.isEmpty || left == right
    }

    /// What a verifier must compute to compare `entries` with this seal: the strongest sealed
    /// digest of each sealed file present, and the cdhash of nested code.
    public func verificationRequests(for entries: [ResourceEntry]) throws(CodeSignatureError) -> [ResourceRequest] {
        let (seals, _) = try activeSeal()
        let index = ResourceIndex(entries)
        var requests: [ResourceRequest] = []
        for seal in seals {
            switch (seal.content, index.kind(of: seal.path)) {
            case (.file(let hashes), .file?):
                if let type = Self.strongestType(hashes) { requests.append(ResourceRequest(path: seal.path, need: .digests([type]))) }
            case (.nestedCode, .file?), (.nestedCode, .directory?):
                requests.append(ResourceRequest(path: seal.path, need: .nestedCode(digests: [])))
            default:
                break
            }
        }
        return requests
    }

    /// How `entries` differ from this seal, by Apple's rules: every sealed path is checked
    /// (digest, symlink target, nested cdhash and designated requirement; missing unless
    /// optional), and every entry the
    /// seal's own rules would seal must be in it. In path order.
    public func discrepancies(
        for entries: [ResourceEntry], mainExecutable: String?, facts: [String: ResourceFacts], clock: WorkClock = .unlimited
    ) throws(CodeSignatureError) -> [ResourceDiscrepancy] {
        let (seals, rules) = try activeSeal()
        let index = ResourceIndex(entries)
        func kindName(_ kind: ResourceEntry.Kind) -> String {
            switch kind {
            case .file: "file"
            case .symlink: "symlink"
            case .directory: "folder"
            }
        }
        var found: [ResourceDiscrepancy] = []
        var sealed = Set<String>()
        for seal in seals {
            sealed.insert(seal.path)
            guard let kind = index.kind(of: seal.path) else {
                if !seal.isOptional { found.append(.missing(path: seal.path)) }
                continue
            }
            switch seal.content {
            case .file(let hashes):
                guard kind == .file else {
                    found.append(.kindChanged(path: seal.path, sealed: "file", actual: kindName(kind)))
                    continue
                }
                guard let type = Self.strongestType(hashes), let digest = facts[seal.path]?.digests[type] else {
                    throw CodeSignatureError(.codeResources, "no digest was given for \(seal.path)")
                }
                if digest != hashes[type] { found.append(.modified(path: seal.path)) }
            case .symlink(let target):
                guard case .symlink(let actual) = kind else {
                    found.append(.symlinkChanged(path: seal.path, sealed: target, actual: nil))
                    continue
                }
                if actual != target { found.append(.symlinkChanged(path: seal.path, sealed: target, actual: actual)) }
            case .nestedCode(let cdhash, let requirement):
                if case .symlink = kind {
                    found.append(.kindChanged(path: seal.path, sealed: "nested code", actual: "symlink"))
                } else if let actual = facts[seal.path]?.nestedCode {
                    if let cdhash, cdhash != actual.cdhash {
                        found.append(.nestedCodeChanged(path: seal.path))
                    } else if let requirement, !Self.sameRequirement(requirement, actual.requirement) {
                        found.append(.nestedCodeChanged(path: seal.path))
                    }
                } else {
                    found.append(.nestedCodeChanged(path: seal.path))
                }
            }
        }
        for decision in try rules.decide(entries, mainExecutable: mainExecutable, clock: clock)
        where (decision.outcome == .sealed || decision.outcome == .nested) && !sealed.contains(decision.path) {
            found.append(.unsealed(path: decision.path))
        }
        return found.sorted { $0.path.precedesInUTF16Order($1.path) }
    }
}
