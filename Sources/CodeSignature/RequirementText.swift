import FormatSupport

extension RequirementExpression {
    /// The expression as `codesign -d -r-` prints it (Apple's `Requirement::Dumper`):
    /// `identifier "com.example" and anchor apple generic and certificate leaf[subject.CN] = "…"`.
    /// `and` binds tighter than `or`; parentheses appear only where the tree needs them.
    public var text: String {
        var printer = RequirementPrinter()
        printer.expression(self, level: .top)
        // Apple's dumper drops one leading space (left by the generic-opcode forms).
        if printer.output.first == " " { printer.output.removeFirst() }
        return printer.output
    }
}

/// Apple's dumper, operand by operand.
struct RequirementPrinter {
    enum Level: Int, Comparable {
        case primary, and, or, top
        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    var output = ""

    mutating func expression(_ expression: RequirementExpression, level: Level) {
        switch expression {
        case .never: output += "never"
        case .always: output += "always"
        case .identifier(let value):
            output += "identifier "
            data(value)
        case .anchorApple: output += "anchor apple"
        case .anchorHash(let certificate, let hash):
            output += "certificate"
            slot(certificate)
            output += " = "
            hashData(hash)
        case .infoKeyValue(let key, let value):
            output += "info["
            data(key, dotOkay: true)
            output += "] = "
            data(value)
        case .and(let left, let right):
            binary(left, " and ", right, at: .and, level: level)
        case .or(let left, let right):
            binary(left, " or ", right, at: .or, level: level)
        case .cdhash(let hash):
            output += "cdhash "
            hashData(hash)
        case .not(let inner):
            output += "! "
            self.expression(inner, level: .primary)
        case .infoKeyField(let key, let operation):
            field("info", key, operation)
        case .certificateField(let certificate, let name, let operation):
            output += "certificate"
            slot(certificate)
            field("", name, operation)
        case .trustedCertificate(let certificate):
            // Apple's dumper prints no space before "trusted" here.
            output += "certificate"
            slot(certificate)
            output += "trusted"
        case .trustedCertificates: output += "anchor trusted"
        case .certificateGeneric(let certificate, let oid, let operation):
            certificateOID(certificate, "field.", oid, operation)
        case .anchorAppleGeneric: output += "anchor apple generic"
        case .entitlementField(let key, let operation):
            field("entitlement", key, operation)
        case .certificatePolicy(let certificate, let oid, let operation):
            certificateOID(certificate, "policy.", oid, operation)
        case .namedAnchor(let name):
            output += "anchor apple "
            data(name)
        case .namedCode(let name):
            output += "("
            data(name)
            output += ")"
        case .platform(let platform): output += "platform = \(platform)"
        case .notarized: output += "notarized"
        case .certificateFieldDate(let certificate, let oid, let operation):
            certificateOID(certificate, "timestamp.", oid, operation)
        case .legacyDeveloperID: output += "legacy"
        case .unknown(let opcode, _):
            let number = opcode & ~RequirementExpression.OpcodeFlag.mask
            if opcode & RequirementExpression.OpcodeFlag.genericFalse != 0 {
                output += " false /* opcode \(number) */"
            } else {
                output += " /* opcode \(number) */"
            }
        }
    }

    /// `prefix[key] <match>`, the key printed as a dotted name.
    private mutating func field(_ prefix: String, _ key: [UInt8], _ operation: RequirementMatch) {
        output += prefix + "["
        data(key, dotOkay: true)
        output += "]"
        match(operation)
    }

    private mutating func binary(
        _ left: RequirementExpression, _ joiner: String, _ right: RequirementExpression, at own: Level, level: Level
    ) {
        let parenthesised = level < own
        if parenthesised { output += "(" }
        expression(left, level: own)
        output += joiner
        expression(right, level: own)
        if parenthesised { output += ")" }
    }

    private mutating func certificateOID(
        _ certificate: Int32, _ prefix: String, _ oid: [UInt8], _ operation: RequirementMatch
    ) {
        output += "certificate"
        slot(certificate)
        output += "[" + prefix + Self.oidText(oid) + "]"
        match(operation)
    }

    private mutating func slot(_ certificate: Int32) {
        switch certificate {
        case CertificateSlot.leaf: output += " leaf"
        case CertificateSlot.anchor: output += " root"
        default: output += " \(certificate)"
        }
    }

    private mutating func match(_ operation: RequirementMatch) {
        switch operation {
        case .exists: output += " /* exists */"
        case .absent: output += " absent "
        case .equal(let value): output += " = "; data(value)
        case .contains(let value): output += " ~ "; data(value)
        case .beginsWith(let value): output += " = "; data(value); output += "*"
        case .endsWith(let value): output += " = *"; data(value)
        case .lessThan(let value): output += " < "; data(value)
        case .greaterThan(let value): output += " > "; data(value)
        case .lessEqual(let value): output += " <= "; data(value)
        case .greaterEqual(let value): output += " >= "; data(value)
        case .on(let time): output += " = " + Self.timestamp(time)
        case .before(let time): output += " < " + Self.timestamp(time)
        case .after(let time): output += " > " + Self.timestamp(time)
        case .onOrBefore(let time): output += " <= " + Self.timestamp(time)
        case .onOrAfter(let time): output += " >= " + Self.timestamp(time)
        }
    }

    private mutating func hashData(_ bytes: [UInt8]) {
        output += "H\"" + Self.lowercaseHex(bytes) + "\""
    }

    /// Words of the requirement language: a bare value spelled like one is quoted.
    static let keywords: Set<String> = [
        "guest", "host", "designated", "library", "plugin", "or", "and", "always", "true", "never", "false",
        "identifier", "cdhash", "anchor", "apple", "generic", "certificate", "cert", "trusted", "info",
        "entitlement", "exists", "leaf", "root", "notarized", "legacy",
    ]

    /// A string value as Apple's dumper prints it: bare when it is letters and digits (and dots
    /// in keys) not starting with a digit and not a keyword; quoted, with `"` and `\` escaped,
    /// when it is otherwise printable; `0x…` hex when it holds a byte that is neither printable
    /// nor white space. Bytes from 0x80 are classed as the Latin-1 characters of those numbers,
    /// as macOS's C library does under a UTF-8 locale (so `é`'s bytes print, quoted).
    private mutating func data(_ bytes: [UInt8], dotOkay: Bool = false) {
        var needsQuotes = false
        for (index, byte) in bytes.enumerated() {
            switch Self.characterClass(byte) {
            case .alphanumeric:
                if index == 0, (0x30...0x39).contains(byte) { needsQuotes = true }
            case .printable where byte == UInt8(ascii: ".") && dotOkay:
                break
            case .printable:
                needsQuotes = true
            case .binary:
                output += "0x" + Self.lowercaseHex(bytes)
                return
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if !needsQuotes, !Self.keywords.contains(text) {
            output += text
            return
        }
        // The bytes go out as they are (UTF-8 text in practice).
        var escaped: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { escaped.append(UInt8(ascii: "\\")) }
            escaped.append(byte)
        }
        escaped.append(UInt8(ascii: "\""))
        output += String(decoding: escaped, as: UTF8.self)
    }

    enum CharacterClass { case alphanumeric, printable, binary }

    static func characterClass(_ byte: UInt8) -> CharacterClass {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: .alphanumeric
        case 0x21...0x7E, 0x09...0x0D, 0x20: .printable
        // Latin-1 letters, except × and ÷.
        case 0xC0...0xFF where byte != 0xD7 && byte != 0xF7: .alphanumeric
        case 0xA0...0xFF: .printable
        default: .binary
        }
    }

    static func lowercaseHex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Dotted decimal of an OID's DER content (`2A 86 48 …` is `1.2.840…`); malformed bytes
    /// print as hex.
    static func oidText(_ bytes: [UInt8]) -> String {
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var inArc = false
        for byte in bytes {
            guard value >> 57 == 0 else { return "0x" + lowercaseHex(bytes) }
            value = value << 7 | UInt64(byte & 0x7F)
            inArc = byte & 0x80 != 0
            if !inArc {
                arcs.append(value)
                value = 0
            }
        }
        guard let first = arcs.first, !inArc else { return "0x" + lowercaseHex(bytes) }
        let head: [UInt64] = first < 80 ? [first / 40, first % 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }

    /// `<2024-01-02 03:04:05 +0000>`: a `CFAbsoluteTime` as `CFDate`'s description prints it.
    static func timestamp(_ seconds: Int64) -> String {
        let (unix, overflow) = seconds.addingReportingOverflow(978_307_200)
        guard !overflow else { return "<\(seconds)>" }
        // Floor division that cannot overflow at the ends of Int64.
        let days = unix / 86_400 - (unix % 86_400 < 0 ? 1 : 0)
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = CivilDate.date(daysSince1970: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = year >= 0 && year < 1000 ? String(repeating: "0", count: 4 - "\(year)".count) + "\(year)" : "\(year)"
        return "<\(yearText)-\(two(month))-\(two(day)) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) +0000>"
    }
}
