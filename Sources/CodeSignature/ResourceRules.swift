import FormatSupport

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

/// A bundle's entries by path, answering what is at a path (a folder also when only the names
/// below it imply it, as on disk) without listing every folder: a deep name costs its length,
/// not its length times its depth.
struct ResourceIndex {
    /// The entries as given, by path.
    let kinds: [String: ResourceEntry.Kind]
    /// Their paths, sorted by bytes, to find the names below a folder.
    private let sorted: [String]

    init(_ entries: [ResourceEntry]) {
        var kinds: [String: ResourceEntry.Kind] = [:]
        for entry in entries { kinds[entry.path] = entry.kind }
        self.kinds = kinds
        sorted = kinds.keys.sorted { $0.precedesInUTF8Order($1) }
    }

    /// The kind at `path`: an entry's, else a folder when some entry lies below it.
    func kind(of path: String) -> ResourceEntry.Kind? {
        if let kind = kinds[path] { return kind }
        let prefix = path + "/"
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].precedesInUTF8Order(prefix) { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low].hasPrefix(prefix) ? .directory : nil
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
    ///
    /// Only folders that can hide anything are looked at: the top-level ones (the names Apple
    /// excludes) and, where a rule nests, those whose name has an extension. So the work is linear
    /// in the names' bytes however deep they go (`clock` counts it).
    public func decide(
        _ entries: [ResourceEntry], mainExecutable: String?, clock: WorkClock = .unlimited
    ) throws(CodeSignatureError) -> [ResourceDecision] {
        var clock = clock
        let index = ResourceIndex(entries)
        let nests = rules.contains { $0.isNested && !$0.omits }
        /// The folders above (and, for a folder, at) `path` that can hide what they hold.
        func candidateFolders(of path: String, including itself: Bool) -> [Substring] {
            var found: [Substring] = []
            var start = path.startIndex
            var depth = 0
            while start < path.endIndex {
                let end = path[start...].firstIndex(of: "/") ?? path.endIndex
                guard end < path.endIndex || itself else { break }
                if depth == 0 || (nests && path[start..<end].contains(".")) { found.append(path[..<end]) }
                depth += 1
                start = end < path.endIndex ? path.index(after: end) : end
            }
            return found
        }
        var folders = Set<String>()
        for entry in entries {
            if clock.isExpired(after: entry.path.utf8.count + 1) { throw Self.timeLimit(clock) }
            for folder in candidateFolders(of: entry.path, including: entry.kind == .directory) { folders.insert(String(folder)) }
        }
        // Shallow folders first, so a hidden folder hides everything below it.
        let ordered = folders.map { (depth: $0.utf8.count(where: { $0 == UInt8(ascii: "/") }), path: $0) }
            .sorted { $0.depth != $1.depth ? $0.depth < $1.depth : $0.path.precedesInUTF8Order($1.path) }
            .map(\.path)
        var hidden = Set<Substring>()
        func isHidden(_ path: String, itself: Bool) -> Bool {
            !hidden.isEmpty && candidateFolders(of: path, including: itself).contains { hidden.contains($0) }
        }
        var decisions: [ResourceDecision] = []
        for folder in ordered {
            if clock.isExpired(after: folder.utf8.count + 1) { throw Self.timeLimit(clock) }
            guard !isHidden(folder, itself: false) else { continue }
            let entry = ResourceEntry(path: folder, kind: .directory)
            if Self.isExcluded(folder, mainExecutable: mainExecutable) {
                hidden.insert(folder[...])
                decisions.append(ResourceDecision(entry: entry, outcome: .excluded, isOptional: false, isNested: false))
            } else if nests, let rule = rule(for: folder), rule.isNested, !rule.omits,
                folder.split(separator: "/").last?.contains(".") == true
            {
                hidden.insert(folder[...])
                decisions.append(ResourceDecision(entry: entry, outcome: .nested, isOptional: rule.isOptional, isNested: true))
            }
        }
        for (path, kind) in index.kinds where kind != .directory {
            if clock.isExpired(after: path.utf8.count + 1) { throw Self.timeLimit(clock) }
            guard !isHidden(path, itself: false) else { continue }
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
        return decisions.sorted { $0.path.precedesInUTF16Order($1.path) }
    }

    static func timeLimit(_ clock: WorkClock) -> CodeSignatureError {
        CodeSignatureError(.timeLimit, clock.timeLimitMessage)
    }
}
