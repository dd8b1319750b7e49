/// One file, symlink or folder of a bundle, by its path relative to the bundle root.
public struct ResourceEntry: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case file
        case symlink(target: String)
        case directory
    }

    public var path: String
    public var kind: Kind

    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }
}

extension ResourceEntry {
    /// Each entry's kind by path, with the folders above every entry added: a bundle on disk has
    /// them even when an archive does not list them.
    static func kindsByPath(_ entries: [ResourceEntry]) -> [String: Kind] {
        var kinds: [String: Kind] = [:]
        for entry in entries {
            kinds[entry.path] = entry.kind
            var parent = entry.path[...]
            while let slash = parent.lastIndex(of: "/") {
                parent = parent[..<slash]
                if kinds[String(parent)] == nil { kinds[String(parent)] = .directory }
            }
        }
        return kinds
    }
}

/// What a rule set decides for one entry.
public struct ResourceDecision: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// Hashed (a file) or recorded by target (a symlink).
        case sealed
        /// Nested code: a bundle folder (a `nested` rule and a name with an extension), or a file
        /// under a `nested` rule, recorded by cdhash and designated requirement when it is code.
        case nested
        /// A rule with `omit` (or `false`) matched.
        case omitted
        /// Left out whatever the rules say: `_CodeSignature`, `CodeResources`, `_MASReceipt`,
        /// the main executable.
        case excluded
        /// No rule matched.
        case unmatched
    }

    public let entry: ResourceEntry
    public let outcome: Outcome
    /// The winning rule says `optional`.
    public let isOptional: Bool
    /// The winning rule says `nested` (a symlink's decision never does).
    public let isNested: Bool

    public var path: String { entry.path }
}

/// Resource rules compiled for matching, evaluated as Apple's `ResourceBuilder` does: every rule
/// is a POSIX extended regular expression (the C library's `regcomp`/`regexec`) searched in the
/// bundle-relative path; of the rules that match, the highest weight wins. On a tie an `omit`
/// rule wins, then the earlier rule (Apple's order is its dictionary's hash order, which the
/// isign fixture's Xcode 7 rules show resolving `^` against `^Info\.plist$` as an omission).
public struct ResourceRuleSet: Sendable {
    public let rules: [ResourceRule]
    private let compiled: [POSIXRegularExpression]

    /// More rules than any real CodeResources (codesign writes ten).
    public static let maximumRules = 1024

    public init(_ rules: [ResourceRule]) throws(CodeSignatureError) {
        guard rules.count <= Self.maximumRules else {
            throw CodeSignatureError(.resourceRule, "\(rules.count) resource rules are more than the limit of \(Self.maximumRules)")
        }
        var compiled: [POSIXRegularExpression] = []
        for rule in rules { compiled.append(try POSIXRegularExpression(rule.pattern)) }
        self.rules = rules
        self.compiled = compiled
    }

    /// The rule that decides `path`, or nil when none matches.
    public func rule(for path: String) -> ResourceRule? {
        var best: ResourceRule?
        for (rule, expression) in zip(rules, compiled) where expression.matches(path) {
            guard let current = best else {
                best = rule
                continue
            }
            if rule.effectiveWeight > current.effectiveWeight
                || (rule.effectiveWeight == current.effectiveWeight && rule.omits && !current.omits)
            {
                best = rule
            }
        }
        return best
    }

    /// The paths a signer leaves out of the seal whatever its rules say (Apple's
    /// `BundleDiskRep::adjustResources`): the signature folder, a legacy `CodeResources` link,
    /// the store receipt folder and the main executable.
    public static func isExcluded(_ path: String, mainExecutable: String?) -> Bool {
        path == "_CodeSignature" || path == "CodeResources" || path == "_MASReceipt" || path == mainExecutable
    }

    /// Decides every entry as Apple's resource scan would walk the bundle: folders excluded or
    /// taken as nested bundles hide what is inside them; symlinks are never nested code; a
    /// `.DS_Store` symlink is an error. Folders appear in the result only when excluded or
    /// nested. Parent folders need not be listed. Decisions come in path order.
    public func decide(_ entries: [ResourceEntry], mainExecutable: String?) throws(CodeSignatureError) -> [ResourceDecision] {
        let kinds = ResourceEntry.kindsByPath(entries)
        // Shallow folders first, so a hidden folder hides everything below it.
        let folders = kinds.filter { $0.value == .directory }.keys.sorted {
            ($0.utf8.count(where: { $0 == UInt8(ascii: "/") }), $0) < ($1.utf8.count(where: { $0 == UInt8(ascii: "/") }), $1)
        }
        var hidden = Set<String>()
        var decisions: [ResourceDecision] = []
        func isHidden(_ path: String) -> Bool {
            var parent = path[...]
            while let slash = parent.lastIndex(of: "/") {
                parent = parent[..<slash]
                if hidden.contains(String(parent)) { return true }
            }
            return false
        }
        for folder in folders where !isHidden(folder) {
            let entry = ResourceEntry(path: folder, kind: .directory)
            if Self.isExcluded(folder, mainExecutable: mainExecutable) {
                hidden.insert(folder)
                decisions.append(ResourceDecision(entry: entry, outcome: .excluded, isOptional: false, isNested: false))
            } else if let rule = rule(for: folder), rule.isNested, !rule.omits,
                folder.split(separator: "/").last?.contains(".") == true
            {
                hidden.insert(folder)
                decisions.append(ResourceDecision(entry: entry, outcome: .nested, isOptional: rule.isOptional, isNested: true))
            }
        }
        for (path, kind) in kinds where kind != .directory && !isHidden(path) {
            let entry = ResourceEntry(path: path, kind: kind)
            let name = path.split(separator: "/").last.map(String.init) ?? path
            if case .symlink = kind, name.lowercased() == ".ds_store" {
                throw CodeSignatureError(.codeResources, "\(path) is a symbolic link named .DS_Store, which codesign refuses to seal")
            }
            guard !Self.isExcluded(path, mainExecutable: mainExecutable) else {
                decisions.append(ResourceDecision(entry: entry, outcome: .excluded, isOptional: false, isNested: false))
                continue
            }
            guard let rule = rule(for: path) else {
                decisions.append(ResourceDecision(entry: entry, outcome: .unmatched, isOptional: false, isNested: false))
                continue
            }
            let nested = rule.isNested && kind == .file
            let outcome: ResourceDecision.Outcome = rule.omits ? .omitted : nested ? .nested : .sealed
            decisions.append(ResourceDecision(entry: entry, outcome: outcome, isOptional: rule.isOptional, isNested: nested))
        }
        return decisions.sorted { $0.path.utf16.lexicographicallyPrecedes($1.path.utf16) }
    }
}
