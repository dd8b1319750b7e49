import PropertyList

/// `_CodeSignature/CodeResources`: the seal over a bundle's files that special slot −3 hashes.
///
/// An ordered model: `files` (the version 1 seal, SHA-1 only) and `files2` (version 2: SHA-1 and
/// SHA-256 digests, symlink targets, nested code by cdhash and designated requirement) in the
/// order they were read, with the `rules`/`rules2` that decided them. Written back as XML in
/// Core Foundation's layout, a file codesign wrote comes out byte for byte.
public struct CodeResources: Sendable, Equatable {
    /// What one path is sealed as.
    public struct Seal: Sendable, Equatable {
        public enum Content: Sendable, Equatable {
            /// A regular file's digests: `hash` (SHA-1), `hash2` (SHA-256), `hashN` (type N).
            case file([HashType: [UInt8]])
            /// A symbolic link and its target, sealed instead of what it points to.
            case symlink(target: String)
            /// Nested code (a bundle or Mach-O): its cdhash and designated requirement (text).
            case nestedCode(cdhash: [UInt8]?, requirement: String?)
        }

        public var path: String
        public var content: Content
        /// `optional` as written; nil when the key is absent.
        public var optional: Bool?

        public init(path: String, content: Content, optional: Bool? = nil) {
            self.path = path
            self.content = content
            self.optional = optional
        }

        /// The file may be missing.
        public var isOptional: Bool { optional ?? false }
    }

    /// The version 1 seal (`files`), nil when the key is absent.
    public var files: [Seal]?
    /// The version 2 seal (`files2`), nil when the key is absent.
    public var files2: [Seal]?
    public var rules: [ResourceRule]?
    public var rules2: [ResourceRule]?

    public init(files: [Seal]?, files2: [Seal]?, rules: [ResourceRule]?, rules2: [ResourceRule]?) {
        self.files = files
        self.files2 = files2
        self.rules = rules
        self.rules2 = rules2
    }

    /// The seal of `path` in `files2`, or in `files` when there is no version 2 seal.
    public func seal(for path: String) -> Seal? {
        (files2 ?? files)?.first { $0.path == path }
    }

    /// The seals of `files2` (or `files` when there is no version 2 seal) by path, for looking up
    /// many paths in time linear in the seals (the first seal of a path wins, as in `seal(for:)`).
    public func sealsByPath() -> [String: Seal] {
        Dictionary((files2 ?? files ?? []).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Reading

    /// Reads an XML (or binary) property list in CodeResources' shape; `plistLimits` bound the
    /// parse (its clock is the time limit of the input the file came from).
    public init(bytes: [UInt8], plistLimits: PropertyListLimits = .default) throws(CodeSignatureError) {
        let root: PropertyListValue
        do {
            root = try PropertyList(bytes: bytes, limits: plistLimits).root
        } catch {
            throw CodeSignatureError(.codeResources, "CodeResources is not a property list: \(error.description)")
        }
        guard let dictionary = root.dictionary else {
            throw CodeSignatureError(.codeResources, "CodeResources' root is \(root.typeName), not a dictionary")
        }
        for key in dictionary.keys where !["files", "files2", "rules", "rules2"].contains(key) {
            throw CodeSignatureError(.codeResources, "CodeResources has the unknown key \"\(key)\"")
        }
        func table(_ key: String) throws(CodeSignatureError) -> PropertyListDictionary? {
            guard let value = dictionary[key] else { return nil }
            guard let table = value.dictionary else {
                throw CodeSignatureError(.codeResources, "CodeResources' \(key) is \(value.typeName), not a dictionary")
            }
            return table
        }
        func seals(_ key: String) throws(CodeSignatureError) -> [Seal]? {
            guard let table = try table(key) else { return nil }
            var seals: [Seal] = []
            seals.reserveCapacity(table.count)
            for (path, value) in table {
                do {
                    seals.append(try Seal(path: path, value: value))
                } catch {
                    throw error.prefixed("\(key) entry \"\(path)\"")
                }
            }
            return seals
        }
        func rules(_ key: String) throws(CodeSignatureError) -> [ResourceRule]? {
            guard let table = try table(key) else { return nil }
            var rules: [ResourceRule] = []
            for (pattern, value) in table { rules.append(try ResourceRule(pattern: pattern, value: value)) }
            return rules
        }
        files = try seals("files")
        files2 = try seals("files2")
        self.rules = try rules("rules")
        rules2 = try rules("rules2")
    }

    // MARK: Writing

    /// The XML property list, keys in model order at each level and the fixed keys of each seal
    /// and rule sorted, as Core Foundation writes them.
    public func serialized() throws(CodeSignatureError) -> [UInt8] {
        var root = PropertyListDictionary()
        func table(_ pairs: [(String, PropertyListValue)]) -> PropertyListValue {
            var dictionary = PropertyListDictionary()
            for (key, value) in pairs { dictionary.append(value, forKey: key) }
            return .dictionary(dictionary)
        }
        if let files { root.append(table(files.map { ($0.path, $0.propertyListValue) }), forKey: "files") }
        if let files2 { root.append(table(files2.map { ($0.path, $0.propertyListValue) }), forKey: "files2") }
        if let rules { root.append(table(rules.map { ($0.pattern, $0.propertyListValue) }), forKey: "rules") }
        if let rules2 { root.append(table(rules2.map { ($0.pattern, $0.propertyListValue) }), forKey: "rules2") }
        do {
            return try PropertyList(root: .dictionary(root), format: .xml).xmlData()
        } catch {
            throw CodeSignatureError(.codeResources, "CodeResources cannot be written: \(error.description)")
        }
    }
}

extension CodeResources.Seal {
    init(path: String, value: PropertyListValue) throws(CodeSignatureError) {
        self.path = path
        switch value {
        case .data(let hash):
            content = .file([.sha1: hash])
            optional = nil
        case .dictionary(let dictionary):
            var hashes: [HashType: [UInt8]] = [:]
            var optional: Bool?
            var symlink: String?
            var cdhash: [UInt8]?
            var requirement: String?
            for (key, element) in dictionary {
                func wrongType(_ expected: String) -> CodeSignatureError {
                    CodeSignatureError(.codeResources, "\(key) is \(element.typeName), not \(expected)")
                }
                switch key {
                case "optional":
                    guard let flag = element.bool else { throw wrongType("a boolean") }
                    optional = flag
                case "symlink":
                    guard let target = element.string else { throw wrongType("a string") }
                    symlink = target
                case "cdhash":
                    guard let hash = element.data else { throw wrongType("data") }
                    cdhash = hash
                case "requirement":
                    guard let text = element.string else { throw wrongType("a string") }
                    requirement = text
                default:
                    guard let type = Self.hashType(forKey: key) else {
                        throw CodeSignatureError(.codeResources, "the key \"\(key)\" is not one CodeResources uses")
                    }
                    guard let hash = element.data else { throw wrongType("data") }
                    hashes[type] = hash
                }
            }
            self.optional = optional
            let kinds = [!hashes.isEmpty, symlink != nil, cdhash != nil || requirement != nil].filter { $0 }.count
            guard kinds == 1 else {
                throw CodeSignatureError(
                    .codeResources,
                    kinds == 0 ? "it holds no hash, symlink or nested code" : "it mixes hashes, a symlink and nested code")
            }
            if let symlink {
                content = .symlink(target: symlink)
            } else if cdhash != nil || requirement != nil {
                content = .nestedCode(cdhash: cdhash, requirement: requirement)
            } else {
                content = .file(hashes)
            }
        default:
            throw CodeSignatureError(.codeResources, "it is \(value.typeName), not data or a dictionary")
        }
    }

    /// `hash` is SHA-1; `hashN` is hash type N (`hash2` SHA-256).
    static func hashType(forKey key: String) -> HashType? {
        if key == "hash" { return .sha1 }
        guard key.hasPrefix("hash"), case let digits = key.dropFirst(4), !digits.isEmpty, !digits.hasPrefix("0"),
            digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = UInt8(digits), number >= 2
        else { return nil }
        return HashType(rawValue: number)
    }

    static func key(for type: HashType) -> String {
        type == .sha1 ? "hash" : "hash\(type.rawValue)"
    }

    /// Bare `<data>` for a SHA-1-only, non-optional file (codesign's "simple form"); otherwise a
    /// dictionary with sorted keys.
    var propertyListValue: PropertyListValue {
        var pairs: [(String, PropertyListValue)] = []
        switch content {
        case .file(let hashes):
            if optional == nil, hashes.count == 1, let sha1 = hashes[.sha1] { return .data(sha1) }
            for (type, hash) in hashes { pairs.append((Self.key(for: type), .data(hash))) }
        case .symlink(let target):
            pairs.append(("symlink", .string(target)))
        case .nestedCode(let cdhash, let requirement):
            if let cdhash { pairs.append(("cdhash", .data(cdhash))) }
            if let requirement { pairs.append(("requirement", .string(requirement))) }
        }
        if let optional { pairs.append(("optional", .bool(optional))) }
        return .dictionary(PropertyListDictionary(pairs).sortedByKey())
    }
}
