import PropertyList

/// One entry of `rules` or `rules2` in `_CodeSignature/CodeResources`: a POSIX extended regular
/// expression over bundle-relative paths and what to do with the files it matches.
///
/// The value is either a bare boolean (`true`: seal, `false`: omit) or a dictionary of `omit`,
/// `optional`, `nested`, `top` and `weight`. Keys are kept as written (absent stays absent, a
/// weight keeps its `<real>` or `<integer>` form) so a file reads and writes back unchanged.
public struct ResourceRule: Sendable, Equatable {
    public enum Weight: Sendable, Equatable {
        case real(Double)
        case integer(Int64)
    }

    public struct Options: Sendable, Equatable {
        public var omit: Bool?
        public var optional: Bool?
        public var nested: Bool?
        public var top: Bool?
        public var weight: Weight?

        public init(omit: Bool? = nil, optional: Bool? = nil, nested: Bool? = nil, top: Bool? = nil, weight: Weight? = nil) {
            self.omit = omit
            self.optional = optional
            self.nested = nested
            self.top = top
            self.weight = weight
        }
    }

    public enum Form: Sendable, Equatable {
        case bare(Bool)
        case options(Options)
    }

    public var pattern: String
    public var form: Form

    public init(_ pattern: String, _ form: Form) {
        self.pattern = pattern
        self.form = form
    }

    /// `pattern = true`.
    public static func seal(_ pattern: String) -> ResourceRule {
        ResourceRule(pattern, .bare(true))
    }

    /// A dictionary rule with the flags that are set and a `<real>` weight, as codesign writes.
    public static func rule(
        _ pattern: String, weight: Double? = nil, omit: Bool = false, optional: Bool = false, nested: Bool = false
    ) -> ResourceRule {
        ResourceRule(
            pattern,
            .options(
                Options(
                    omit: omit ? true : nil, optional: optional ? true : nil, nested: nested ? true : nil,
                    weight: weight.map { .real($0) })))
    }

    private var options: Options? {
        if case .options(let options) = form { return options }
        return nil
    }

    /// Matching files are left out of the seal.
    public var omits: Bool {
        switch form {
        case .bare(let include): !include
        case .options(let options): options.omit == true
        }
    }

    /// Matching files may be missing.
    public var isOptional: Bool { options?.optional == true }
    /// Matching bundles (directories with an extension) and Mach-O files are nested code.
    public var isNested: Bool { options?.nested == true }

    /// The weight Apple compares, an `unsigned int` (1 when absent; clamped).
    public var effectiveWeight: UInt32 {
        switch options?.weight {
        case nil: 1
        case .integer(let value): UInt32(clamping: value)
        case .real(let value): value.isNaN || value <= 0 ? 0 : value >= Double(UInt32.max) ? UInt32.max : UInt32(value)
        }
    }
}

extension ResourceRule {
    /// `rules` as codesign writes them for an iOS (flat) bundle, Apple's
    /// `BundleDiskRep::defaultResourceRules`; other signers write the same.
    public static let iOSRules: [ResourceRule] = [
        .seal("^.*"),
        .rule("^.*\\.lproj/", weight: 1000, optional: true),
        .rule("^.*\\.lproj/locversion.plist$", weight: 1100, omit: true),
        .rule("^Base\\.lproj/", weight: 1010),
        .seal("^version.plist$"),
    ]

    /// `rules2` as codesign writes them for an iOS bundle. Everything is sealed file by file
    /// (there is no `nested` rule), Info.plist is sealed by special slot −1 instead.
    public static let iOSRules2: [ResourceRule] = [
        .rule(".*\\.dSYM($|/)", weight: 11),
        .rule("^(.*/)?\\.DS_Store$", weight: 2000, omit: true),
        .seal("^.*"),
        .rule("^.*\\.lproj/", weight: 1000, optional: true),
        .rule("^.*\\.lproj/locversion.plist$", weight: 1100, omit: true),
        .rule("^Base\\.lproj/", weight: 1010),
        .rule("^Info\\.plist$", weight: 20, omit: true),
        .rule("^PkgInfo$", weight: 20, omit: true),
        .rule("^embedded\\.provisionprofile$", weight: 20),
        .rule("^version\\.plist$", weight: 20),
    ]

    // MARK: Property list

    init(pattern: String, value: PropertyListValue) throws(CodeSignatureError) {
        self.pattern = pattern
        switch value {
        case .bool(let flag):
            form = .bare(flag)
        case .dictionary(let dictionary):
            var options = Options()
            for (key, element) in dictionary {
                func flag() throws(CodeSignatureError) -> Bool {
                    guard let flag = element.bool else {
                        throw CodeSignatureError(.codeResources, "the rule \"\(pattern)\" has a \(element.typeName) for \(key), not a boolean")
                    }
                    return flag
                }
                switch key {
                case "omit": options.omit = try flag()
                case "optional": options.optional = try flag()
                case "nested": options.nested = try flag()
                case "top": options.top = try flag()
                case "weight":
                    switch element {
                    case .real(let value): options.weight = .real(value)
                    case .integer(let value):
                        guard let exact = value.int64 else {
                            throw CodeSignatureError(.codeResources, "the rule \"\(pattern)\" has a weight too large to read")
                        }
                        options.weight = .integer(exact)
                    default:
                        throw CodeSignatureError(.codeResources, "the rule \"\(pattern)\" has a \(element.typeName) weight")
                    }
                default:
                    throw CodeSignatureError(.codeResources, "the rule \"\(pattern)\" has the unknown key \"\(key)\"")
                }
            }
            form = .options(options)
        default:
            throw CodeSignatureError(.codeResources, "the rule \"\(pattern)\" is a \(value.typeName), not a boolean or a dictionary")
        }
    }

    var propertyListValue: PropertyListValue {
        switch form {
        case .bare(let flag):
            return .bool(flag)
        case .options(let options):
            // Core Foundation writes dictionary keys sorted.
            var dictionary = PropertyListDictionary()
            if let nested = options.nested { dictionary.append(.bool(nested), forKey: "nested") }
            if let omit = options.omit { dictionary.append(.bool(omit), forKey: "omit") }
            if let optional = options.optional { dictionary.append(.bool(optional), forKey: "optional") }
            if let top = options.top { dictionary.append(.bool(top), forKey: "top") }
            switch options.weight {
            case .real(let value)?: dictionary.append(.real(value), forKey: "weight")
            case .integer(let value)?: dictionary.append(.integer(PropertyListInteger(value)), forKey: "weight")
            case nil: break
            }
            return .dictionary(dictionary)
        }
    }
}
