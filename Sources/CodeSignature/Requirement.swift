import FormatSupport

/// What a requirement in a requirement set governs (`SecRequirementType`).
public struct RequirementType: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// What hosts may run this code.
    public static let host = RequirementType(rawValue: 1)
    /// What guests this code may run.
    public static let guest = RequirementType(rawValue: 2)
    /// The designated requirement: what "this code" means to the OS.
    public static let designated = RequirementType(rawValue: 3)
    /// What libraries this code may link.
    public static let library = RequirementType(rawValue: 4)
    /// What plug-ins this code may load.
    public static let plugin = RequirementType(rawValue: 5)

    /// The name `codesign -d -r-` prints, or nil for a type it does not know.
    public var name: String? {
        switch rawValue {
        case 1: "host"
        case 2: "guest"
        case 3: "designated"
        case 4: "library"
        case 5: "plugin"
        default: nil
        }
    }

    public var description: String { name ?? "type \(rawValue)" }
}

/// A requirement set (`0xFADE0C01`, slot 2): requirements indexed by type, laid out as a
/// SuperBlob. Signers write the designated requirement alone, or nothing (an empty set).
public struct RequirementSet: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var type: RequirementType
        public var requirement: Requirement

        public init(type: RequirementType, requirement: Requirement) {
            self.type = type
            self.requirement = requirement
        }
    }

    /// In index order.
    public var entries: [Entry]

    public init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    /// A set holding only the designated requirement, as codesign writes it.
    public init(designated: Requirement) {
        entries = [Entry(type: .designated, requirement: designated)]
    }

    public subscript(type: RequirementType) -> Requirement? {
        entries.first { $0.type == type }?.requirement
    }

    public var designated: Requirement? { self[.designated] }

    public init(bytes: [UInt8]) throws(CodeSignatureError) {
        let container = try SuperBlob(
            bytes: bytes, magic: BlobMagic.requirementSet, what: "requirement set", reason: .requirement)
        guard container.length == bytes.count else {
            throw CodeSignatureError(
                .requirement, "the requirement set says it is \(container.length) bytes long but is \(bytes.count)")
        }
        var entries: [Entry] = []
        for entry in container.entries {
            do {
                entries.append(Entry(type: RequirementType(rawValue: entry.type), requirement: try Requirement(bytes: entry.blob)))
            } catch {
                throw error.prefixed("the \(RequirementType(rawValue: entry.type)) requirement")
            }
        }
        self.entries = entries
    }

    public func serialized() throws(CodeSignatureError) -> [UInt8] {
        var container = SuperBlob(magic: BlobMagic.requirementSet, entries: [])
        for entry in entries {
            container.entries.append(SuperBlob.Entry(type: entry.type.rawValue, blob: try entry.requirement.serialized()))
        }
        do {
            return try container.serialized()
        } catch {
            throw CodeSignatureError(.requirement, error.message)
        }
    }

    /// The set as `codesign -d -r-` prints it: one `designated => …` line per requirement.
    public var text: String {
        entries.map { entry in
            let prefix = entry.type.name.map { "\($0) => " } ?? "/*unknown type*/ \(entry.type.rawValue) => "
            return prefix + entry.requirement.text + "\n"
        }.joined()
    }
}

/// One requirement (`0xFADE0C00`): an expression in Apple's code-requirement language, stored in
/// prefix order, or an opaque form this reader keeps as bytes.
public struct Requirement: Sendable, Hashable, CustomStringConvertible {
    /// `kind` 1: an expression.
    public static let expressionKind: UInt32 = 1

    public enum Form: Sendable, Hashable {
        case expression(RequirementExpression)
        /// Another `kind` (2 is a launch-constraint dictionary), kept as its bytes after the kind.
        case opaque(kind: UInt32, data: [UInt8])
    }

    public var form: Form

    public init(_ expression: RequirementExpression) {
        form = .expression(expression)
    }

    public init(form: Form) {
        self.form = form
    }

    public var expression: RequirementExpression? {
        if case .expression(let expression) = form { return expression }
        return nil
    }

    public init(bytes: [UInt8]) throws(CodeSignatureError) {
        try BlobFraming.check(bytes, magic: BlobMagic.requirement, what: "requirement", reason: .requirement)
        guard bytes.count >= 12 else {
            throw CodeSignatureError(.requirement, "the requirement is \(bytes.count) bytes, too short to hold its kind")
        }
        var reader = RequirementReader(bytes: bytes, position: 8)
        let kind = try reader.u32()
        guard kind == Self.expressionKind else {
            form = .opaque(kind: kind, data: Array(bytes.dropFirst(12)))
            return
        }
        let expression = try reader.expression(depth: 0)
        guard reader.position == bytes.count else {
            throw CodeSignatureError(
                .requirement, "\(bytes.count - reader.position) bytes follow the requirement's expression")
        }
        form = .expression(expression)
    }

    public func serialized() throws(CodeSignatureError) -> [UInt8] {
        var writer = BigEndianWriter()
        writer.u32(BlobMagic.requirement)
        writer.u32(0)
        switch form {
        case .expression(let expression):
            writer.u32(Self.expressionKind)
            try expression.write(to: &writer, depth: 0)
        case .opaque(let kind, let data):
            writer.u32(kind)
            writer.append(data)
        }
        guard writer.count <= Int(UInt32.max) else {
            throw CodeSignatureError(.requirement, "the requirement is too large for a blob")
        }
        var bytes = writer.bytes
        let length = UInt32(bytes.count)
        for index in 0..<4 { bytes[4 + index] = UInt8(truncatingIfNeeded: length >> UInt32(24 - 8 * index)) }
        return bytes
    }

    /// The requirement as `codesign -d -r-` prints it.
    public var text: String {
        switch form {
        case .expression(let expression): expression.text
        case .opaque(let kind, let data): "/* requirement of kind \(kind), \(data.count) bytes */"
        }
    }

    public var description: String { text }
}

/// Certificate positions in a requirement: 0 is the leaf, −1 the anchor (root), others count
/// from the leaf.
public enum CertificateSlot {
    public static let leaf: Int32 = 0
    public static let anchor: Int32 = -1
}

/// How a value is compared (`MatchOperation`).
public enum RequirementMatch: Sendable, Hashable {
    /// Present and not false (`/* exists */`).
    case exists
    case equal([UInt8])
    case contains([UInt8])
    case beginsWith([UInt8])
    case endsWith([UInt8])
    case lessThan([UInt8])
    case greaterThan([UInt8])
    case lessEqual([UInt8])
    case greaterEqual([UInt8])
    /// Timestamp comparisons, seconds since 2001-01-01 (`CFAbsoluteTime`).
    case on(Int64)
    case before(Int64)
    case after(Int64)
    case onOrBefore(Int64)
    case onOrAfter(Int64)
    case absent
}

/// A code-requirement expression (`requirement.h`'s `ExprOp`). Strings and data are bytes, as
/// stored; `text` prints them as codesign does.
public indirect enum RequirementExpression: Sendable, Hashable {
    /// `never` (opFalse).
    case never
    /// `always` (opTrue).
    case always
    /// `identifier "…"`: the signing identifier.
    case identifier([UInt8])
    /// `anchor apple`: signed by Apple as Apple's own code.
    case anchorApple
    /// `certificate <slot> = H"…"`: the certificate's SHA-1.
    case anchorHash(certificate: Int32, hash: [UInt8])
    /// `info[key] = value` (legacy form of `infoKeyField`).
    case infoKeyValue(key: [UInt8], value: [UInt8])
    case and(RequirementExpression, RequirementExpression)
    case or(RequirementExpression, RequirementExpression)
    /// `cdhash H"…"`.
    case cdhash([UInt8])
    case not(RequirementExpression)
    /// `info[key] <match>`.
    case infoKeyField(key: [UInt8], RequirementMatch)
    /// `certificate <slot>[field] <match>`, e.g. `certificate leaf[subject.CN] = "…"`.
    case certificateField(certificate: Int32, field: [UInt8], RequirementMatch)
    /// `certificate <slot> trusted`.
    case trustedCertificate(Int32)
    /// `anchor trusted`.
    case trustedCertificates
    /// `certificate <slot>[field.<OID>] <match>`: an extension by OID (DER content bytes).
    case certificateGeneric(certificate: Int32, oid: [UInt8], RequirementMatch)
    /// `anchor apple generic`: signed by Apple in any capacity.
    case anchorAppleGeneric
    /// `entitlement[key] <match>`.
    case entitlementField(key: [UInt8], RequirementMatch)
    /// `certificate <slot>[policy.<OID>] <match>`.
    case certificatePolicy(certificate: Int32, oid: [UInt8], RequirementMatch)
    /// `anchor apple <name>`.
    case namedAnchor([UInt8])
    /// `(<name>)`: a named sub-requirement.
    case namedCode([UInt8])
    /// `platform = n`.
    case platform(Int32)
    case notarized
    /// `certificate <slot>[timestamp.<OID>] <match>`.
    case certificateFieldDate(certificate: Int32, oid: [UInt8], RequirementMatch)
    /// `legacy`: meets the pre-notarization Developer ID policy.
    case legacyDeveloperID
    /// An opcode this reader does not know that carries the "generic false" or "generic skip"
    /// flag and so a length-prefixed payload evaluators may skip.
    case unknown(opcode: UInt32, payload: [UInt8])

    /// Deeper nesting is refused on reading and writing.
    public static let maximumDepth = 256
    /// More nodes than any real requirement (a designated requirement has about eight).
    public static let maximumNodes = 65_536

    /// Flags in an opcode's high byte.
    public enum OpcodeFlag {
        public static let mask: UInt32 = 0xFF00_0000
        /// Has a size field; an evaluator that does not know the opcode takes it as false.
        public static let genericFalse: UInt32 = 0x8000_0000
        /// Has a size field; an evaluator that does not know the opcode skips it.
        public static let genericSkip: UInt32 = 0x4000_0000
    }
}

// MARK: - Reading

/// Walks an expression in prefix order with every read bounds-checked.
struct RequirementReader {
    let bytes: [UInt8]
    var position: Int
    var nodes = 0

    init(bytes: [UInt8], position: Int) {
        self.bytes = bytes
        self.position = position
    }

    mutating func u32() throws(CodeSignatureError) -> UInt32 {
        guard position <= bytes.count - 4 else {
            throw CodeSignatureError(.requirement, "the requirement ends inside a field at offset \(position)")
        }
        let value = bytes[position..<(position + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        position += 4
        return value
    }

    mutating func i32() throws(CodeSignatureError) -> Int32 { Int32(bitPattern: try u32()) }

    mutating func i64() throws(CodeSignatureError) -> Int64 {
        Int64(bitPattern: UInt64(try u32()) << 32 | UInt64(try u32()))
    }

    /// A length-prefixed run of bytes, padded to a multiple of 4.
    mutating func data() throws(CodeSignatureError) -> [UInt8] {
        let length = Int(try u32())
        let padded = (length + 3) & ~3
        guard padded <= bytes.count - position else {
            throw CodeSignatureError(
                .requirement, "the requirement's \(length)-byte value at offset \(position) runs past its end")
        }
        let value = Array(bytes[position..<(position + length)])
        position += padded
        return value
    }

    mutating func match() throws(CodeSignatureError) -> RequirementMatch {
        let operation = try u32()
        switch operation {
        case 0: return .exists
        case 1: return .equal(try data())
        case 2: return .contains(try data())
        case 3: return .beginsWith(try data())
        case 4: return .endsWith(try data())
        case 5: return .lessThan(try data())
        case 6: return .greaterThan(try data())
        case 7: return .lessEqual(try data())
        case 8: return .greaterEqual(try data())
        case 9: return .on(try i64())
        case 10: return .before(try i64())
        case 11: return .after(try i64())
        case 12: return .onOrBefore(try i64())
        case 13: return .onOrAfter(try i64())
        case 14: return .absent
        default:
            throw CodeSignatureError(.requirement, "the requirement uses match operation \(operation), which does not exist")
        }
    }

    mutating func expression(depth: Int) throws(CodeSignatureError) -> RequirementExpression {
        guard depth < RequirementExpression.maximumDepth else {
            throw CodeSignatureError(
                .requirement, "the requirement nests deeper than \(RequirementExpression.maximumDepth) levels")
        }
        nodes += 1
        guard nodes <= RequirementExpression.maximumNodes else {
            throw CodeSignatureError(
                .requirement, "the requirement has more than \(RequirementExpression.maximumNodes) terms")
        }
        let opcode = try u32()
        switch opcode & ~RequirementExpression.OpcodeFlag.mask {
        case 0: return .never
        case 1: return .always
        case 2: return .identifier(try data())
        case 3: return .anchorApple
        case 4: return .anchorHash(certificate: try i32(), hash: try data())
        case 5: return .infoKeyValue(key: try data(), value: try data())
        case 6: return .and(try expression(depth: depth + 1), try expression(depth: depth + 1))
        case 7: return .or(try expression(depth: depth + 1), try expression(depth: depth + 1))
        case 8: return .cdhash(try data())
        case 9: return .not(try expression(depth: depth + 1))
        case 10: return .infoKeyField(key: try data(), try match())
        case 11: return .certificateField(certificate: try i32(), field: try data(), try match())
        case 12: return .trustedCertificate(try i32())
        case 13: return .trustedCertificates
        case 14: return .certificateGeneric(certificate: try i32(), oid: try data(), try match())
        case 15: return .anchorAppleGeneric
        case 16: return .entitlementField(key: try data(), try match())
        case 17: return .certificatePolicy(certificate: try i32(), oid: try data(), try match())
        case 18: return .namedAnchor(try data())
        case 19: return .namedCode(try data())
        case 20: return .platform(try i32())
        case 21: return .notarized
        case 22: return .certificateFieldDate(certificate: try i32(), oid: try data(), try match())
        case 23: return .legacyDeveloperID
        default:
            let flags = RequirementExpression.OpcodeFlag.self
            guard opcode & (flags.genericFalse | flags.genericSkip) != 0 else {
                throw CodeSignatureError(
                    .requirement, "the requirement uses opcode \(opcode & ~flags.mask), which this reader does not know")
            }
            return .unknown(opcode: opcode, payload: try data())
        }
    }
}

// MARK: - Writing

extension RequirementExpression {
    /// The opcode and operands in prefix order, data padded to 4 bytes with zeros.
    func write(to writer: inout BigEndianWriter, depth: Int) throws(CodeSignatureError) {
        guard depth < Self.maximumDepth else {
            throw CodeSignatureError(.requirement, "the requirement nests deeper than \(Self.maximumDepth) levels")
        }
        func data(_ bytes: [UInt8]) throws(CodeSignatureError) {
            guard bytes.count <= Int(UInt32.max) - 3 else {
                throw CodeSignatureError(.requirement, "a requirement value is too large")
            }
            writer.u32(UInt32(bytes.count))
            writer.append(bytes)
            writer.pad(toMultipleOf: 4)
        }
        func match(_ match: RequirementMatch) throws(CodeSignatureError) {
            switch match {
            case .exists: writer.u32(0)
            case .equal(let value): writer.u32(1); try data(value)
            case .contains(let value): writer.u32(2); try data(value)
            case .beginsWith(let value): writer.u32(3); try data(value)
            case .endsWith(let value): writer.u32(4); try data(value)
            case .lessThan(let value): writer.u32(5); try data(value)
            case .greaterThan(let value): writer.u32(6); try data(value)
            case .lessEqual(let value): writer.u32(7); try data(value)
            case .greaterEqual(let value): writer.u32(8); try data(value)
            case .on(let time): writer.u32(9); writer.u64(UInt64(bitPattern: time))
            case .before(let time): writer.u32(10); writer.u64(UInt64(bitPattern: time))
            case .after(let time): writer.u32(11); writer.u64(UInt64(bitPattern: time))
            case .onOrBefore(let time): writer.u32(12); writer.u64(UInt64(bitPattern: time))
            case .onOrAfter(let time): writer.u32(13); writer.u64(UInt64(bitPattern: time))
            case .absent: writer.u32(14)
            }
        }
        func slot(_ value: Int32) { writer.u32(UInt32(bitPattern: value)) }
        switch self {
        case .never: writer.u32(0)
        case .always: writer.u32(1)
        case .identifier(let value): writer.u32(2); try data(value)
        case .anchorApple: writer.u32(3)
        case .anchorHash(let certificate, let hash): writer.u32(4); slot(certificate); try data(hash)
        case .infoKeyValue(let key, let value): writer.u32(5); try data(key); try data(value)
        case .and(let left, let right):
            writer.u32(6)
            try left.write(to: &writer, depth: depth + 1)
            try right.write(to: &writer, depth: depth + 1)
        case .or(let left, let right):
            writer.u32(7)
            try left.write(to: &writer, depth: depth + 1)
            try right.write(to: &writer, depth: depth + 1)
        case .cdhash(let hash): writer.u32(8); try data(hash)
        case .not(let inner): writer.u32(9); try inner.write(to: &writer, depth: depth + 1)
        case .infoKeyField(let key, let operation): writer.u32(10); try data(key); try match(operation)
        case .certificateField(let certificate, let field, let operation):
            writer.u32(11); slot(certificate); try data(field); try match(operation)
        case .trustedCertificate(let certificate): writer.u32(12); slot(certificate)
        case .trustedCertificates: writer.u32(13)
        case .certificateGeneric(let certificate, let oid, let operation):
            writer.u32(14); slot(certificate); try data(oid); try match(operation)
        case .anchorAppleGeneric: writer.u32(15)
        case .entitlementField(let key, let operation): writer.u32(16); try data(key); try match(operation)
        case .certificatePolicy(let certificate, let oid, let operation):
            writer.u32(17); slot(certificate); try data(oid); try match(operation)
        case .namedAnchor(let name): writer.u32(18); try data(name)
        case .namedCode(let name): writer.u32(19); try data(name)
        case .platform(let platform): writer.u32(20); slot(platform)
        case .notarized: writer.u32(21)
        case .certificateFieldDate(let certificate, let oid, let operation):
            writer.u32(22); slot(certificate); try data(oid); try match(operation)
        case .legacyDeveloperID: writer.u32(23)
        case .unknown(let opcode, let payload):
            let flags = OpcodeFlag.self
            guard opcode & (flags.genericFalse | flags.genericSkip) != 0, opcode & ~flags.mask > 23 else {
                throw CodeSignatureError(
                    .requirement, "opcode 0x\(hex(opcode)) needs a generic flag and a number past the known opcodes")
            }
            writer.u32(opcode)
            try data(payload)
        }
    }
}
