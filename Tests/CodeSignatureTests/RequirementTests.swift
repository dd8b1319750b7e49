import CodeSignature
import TestSupport
import Testing

/// The requirement language: every opcode written and read back, and printed as Apple's
/// `Requirement::Dumper` prints it.
@Suite struct RequirementTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let cases: [(RequirementExpression, String)] = [
        (.always, "always"),
        (.never, "never"),
        (.identifier(bytes("com.example.app")), "identifier \"com.example.app\""),
        // Letters and digits print bare, unless they start with a digit or are a keyword.
        (.identifier(bytes("bash")), "identifier bash"),
        (.identifier(bytes("2fa")), "identifier \"2fa\""),
        (.identifier(bytes("apple")), "identifier \"apple\""),
        (.identifier(bytes("say \"hi\\\"")), "identifier \"say \\\"hi\\\\\\\"\""),
        (.identifier([0x61, 0x00, 0x62]), "identifier 0x610062"),
        (.identifier(bytes("José")), "identifier \"José\""),
        (.anchorApple, "anchor apple"),
        (.anchorAppleGeneric, "anchor apple generic"),
        (.anchorHash(certificate: CertificateSlot.anchor, hash: [0xAB, 0x01]), "certificate root = H\"ab01\""),
        (.anchorHash(certificate: 2, hash: [0xFF]), "certificate 2 = H\"ff\""),
        (.cdhash([0x12, 0x34]), "cdhash H\"1234\""),
        (.infoKeyValue(key: bytes("CFBundleVersion"), value: bytes("1.0")), "info[CFBundleVersion] = \"1.0\""),
        (.infoKeyField(key: bytes("CFBundleShortVersionString"), .greaterEqual(bytes("2"))),
         "info[CFBundleShortVersionString] >= \"2\""),
        (.entitlementField(key: bytes("com.apple.security.app-sandbox"), .exists),
         "entitlement[\"com.apple.security.app-sandbox\"] /* exists */"),
        (.certificateField(certificate: CertificateSlot.leaf, field: bytes("subject.OU"), .equal(bytes("ABCDE12345"))),
         "certificate leaf[subject.OU] = ABCDE12345"),
        (.certificateField(certificate: -2, field: bytes("subject.CN"), .contains(bytes("Dev"))), "certificate -2[subject.CN] ~ Dev"),
        (.certificateField(certificate: 0, field: bytes("subject.CN"), .beginsWith(bytes("Apple "))),
         "certificate leaf[subject.CN] = \"Apple \"*"),
        (.certificateField(certificate: 0, field: bytes("subject.O"), .endsWith(bytes("Inc"))), "certificate leaf[subject.O] = *Inc"),
        (.certificateField(certificate: 0, field: bytes("a"), .lessThan(bytes("b"))), "certificate leaf[a] < b"),
        (.certificateField(certificate: 0, field: bytes("a"), .greaterThan(bytes("b"))), "certificate leaf[a] > b"),
        (.certificateField(certificate: 0, field: bytes("a"), .lessEqual(bytes("b"))), "certificate leaf[a] <= b"),
        // Apple's dumper leaves a space after "absent".
        (.certificateField(certificate: 0, field: bytes("a"), .absent), "certificate leaf[a] absent "),
        (.certificateGeneric(certificate: 1, oid: RequirementExpression.wwdrIntermediateMarker, .exists),
         "certificate 1[field.1.2.840.113635.100.6.2.1] /* exists */"),
        (.certificatePolicy(certificate: 0, oid: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x05, 0x01], .exists),
         "certificate leaf[policy.1.2.840.113635.100.5.1] /* exists */"),
        // CFAbsoluteTime counts from 2001-01-01 00:00:00 UTC.
        (.certificateFieldDate(certificate: 0, oid: [0x55, 0x1D, 0x18], .after(0)),
         "certificate leaf[timestamp.2.5.29.24] > <2001-01-01 00:00:00 +0000>"),
        (.certificateFieldDate(certificate: 0, oid: [0x55, 0x1D, 0x18], .onOrBefore(86_400 * 366 + 3_661)),
         "certificate leaf[timestamp.2.5.29.24] <= <2002-01-02 01:01:01 +0000>"),
        (.certificateFieldDate(certificate: 0, oid: [0x55, 0x1D, 0x18], .before(-1)),
         "certificate leaf[timestamp.2.5.29.24] < <2000-12-31 23:59:59 +0000>"),
        (.certificateGeneric(certificate: 0, oid: [0x2A, 0x86], .exists), "certificate leaf[field.0x2a86] /* exists */"),
        // At the ends of Int64 the stamp is printed as a number rather than overflow.
        (.certificateFieldDate(certificate: 0, oid: [0x55], .on(.max)), "certificate leaf[timestamp.2.5] = <9223372036854775807>"),
        (.certificateFieldDate(certificate: 0, oid: [0x55], .on(.min)), "certificate leaf[timestamp.2.5] = <-292277022626-01-27 08:29:52 +0000>"),
        (.trustedCertificate(1), "certificate 1trusted"),
        (.trustedCertificates, "anchor trusted"),
        (.namedAnchor(bytes("developer")), "anchor apple developer"),
        (.namedCode(bytes("subreq")), "(subreq)"),
        (.platform(2), "platform = 2"),
        (.notarized, "notarized"),
        (.legacyDeveloperID, "legacy"),
        (.unknown(opcode: 0x8000_0040, payload: [1, 2, 3]), "false /* opcode 64 */"),
        (.unknown(opcode: 0x4000_0041, payload: []), "/* opcode 65 */"),
        // `and` binds tighter than `or`; parentheses only where the tree needs them.
        (.and(.identifier(bytes("a")), .or(.anchorApple, .notarized)), "identifier a and (anchor apple or notarized)"),
        (.or(.and(.always, .never), .notarized), "always and never or notarized"),
        (.and(.and(.always, .never), .notarized), "always and never and notarized"),
        (.not(.and(.always, .never)), "! (always and never)"),
        (.not(.not(.anchorApple)), "! ! anchor apple"),
        (.or(.not(.or(.always, .never)), .legacyDeveloperID), "! (always or never) or legacy"),
    ]

    @Test(arguments: cases.indices)
    func printsAsCodesignAndRoundTrips(_ index: Int) throws {
        let (expression, text) = Self.cases[index]
        #expect(expression.text == text)
        let requirement = Requirement(expression)
        let bytes = try requirement.serialized()
        #expect(bytes.count % 4 == 0)
        #expect(try Requirement(bytes: bytes) == requirement)
        #expect(try Requirement(bytes: bytes).serialized() == bytes)
    }

    @Test func requirementSetsPrintEachType() throws {
        let set = RequirementSet([
            .init(type: .host, requirement: Requirement(.anchorApple)),
            .init(type: .designated, requirement: .developerIDDesignated(identifier: "com.example.tool", teamIdentifier: "ABCDE12345")),
            .init(type: RequirementType(rawValue: 9), requirement: Requirement(.never)),
        ])
        #expect(set.text == """
            host => anchor apple
            designated => identifier "com.example.tool" and anchor apple generic and certificate 1[field.1.2.840.113635.100.6.2.6] /* exists */ and certificate leaf[field.1.2.840.113635.100.6.1.13] /* exists */ and certificate leaf[subject.OU] = ABCDE12345
            /*unknown type*/ 9 => never

            """)
        let bytes = try set.serialized()
        #expect(try RequirementSet(bytes: bytes) == set)
        #expect(try RequirementSet(bytes: bytes).serialized() == bytes)
        // An empty set, as codesign writes for ad-hoc code: the 12-byte header alone.
        #expect(try RequirementSet().serialized() == [0xFA, 0xDE, 0x0C, 0x01, 0, 0, 0, 12, 0, 0, 0, 0])
        #expect(RequirementSet().text == "")
    }

    @Test func otherKindsAreKeptAsBytes() throws {
        let requirement = Requirement(form: .opaque(kind: 2, data: [0x30, 0x03, 0x02, 0x01, 0x01]))
        let bytes = try requirement.serialized()
        #expect(try Requirement(bytes: bytes) == requirement)
        #expect(requirement.expression == nil)
    }

    @Test func adHocDesignatedRequirementIsTheCdhash() {
        #expect(Requirement.adHocDesignated(cdhash: [0xDE, 0xAD]).text == "cdhash H\"dead\"")
        #expect(RequirementExpression.all([]) == .always)
    }
}

/// Requirement blobs that are malformed or hostile give `SIGNATURE_REQUIREMENT_INVALID`.
@Suite struct HostileRequirementTests {
    /// A requirement blob around `expression` words (big-endian u32s), kind 1.
    static func blob(_ words: [UInt32], extra: [UInt8] = []) -> [UInt8] {
        var body: [UInt8] = []
        for word in [1] + words { body += withUnsafeBytes(of: word.bigEndian, Array.init) }
        body += extra
        let length = UInt32(8 + body.count)
        return [0xFA, 0xDE, 0x0C, 0x00] + withUnsafeBytes(of: length.bigEndian, Array.init) + body
    }

    static func expectRefused(_ bytes: [UInt8], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try Requirement(bytes: bytes)
            Issue.record("\(what) was accepted", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == "SIGNATURE_REQUIREMENT_INVALID", "\(what)", sourceLocation: sourceLocation)
        }
    }

    @Test func malformedExpressionsAreRefused() {
        Self.expectRefused(Self.blob([2, 100]), "data longer than the blob")
        Self.expectRefused(Self.blob([2, 0xFFFF_FFFF]), "a 4 GiB data length")
        Self.expectRefused(Self.blob([2]), "an identifier with no length")
        Self.expectRefused(Self.blob([77]), "an unknown opcode without a skip flag")
        Self.expectRefused(Self.blob([11, 0, 1, 0x61_0000_00, 99]), "an unknown match operation")
        Self.expectRefused(Self.blob([1, 1]), "bytes after the expression")
        Self.expectRefused(Self.blob([6, 1]), "an and with one operand")
        Self.expectRefused([0xFA, 0xDE, 0x0C, 0x00, 0, 0, 0, 8], "no kind")
        Self.expectRefused([0xFA, 0xDE, 0x0C, 0x01, 0, 0, 0, 12, 0, 0, 0, 1] + [0] * 4, "the wrong magic")
    }

    /// Ten thousand nested `!`: refused at the depth limit, not a stack overflow.
    @Test func deepNestingIsRefused() {
        Self.expectRefused(Self.blob(Array(repeating: 9, count: 10_000) + [1]), "10,000 nested nots")
        Self.expectRefused(Self.blob(Array(repeating: 6, count: 300) + Array(repeating: 1, count: 301)), "300 nested ands")
        let atLimit = Array(repeating: UInt32(9), count: RequirementExpression.maximumDepth - 1) + [1]
        #expect(throws: Never.self) { try Requirement(bytes: Self.blob(atLimit)) }
    }

    /// A balanced tree of 131,071 terms is shallow but huge: refused by the term limit.
    @Test func hugeExpressionsAreRefused() {
        var words: [UInt32] = []
        func tree(_ depth: Int) {
            if depth == 0 {
                words.append(1)
            } else {
                words.append(6)
                tree(depth - 1)
                tree(depth - 1)
            }
        }
        tree(16)
        Self.expectRefused(Self.blob(words), "a 131,071-term expression")
    }

    /// A requirement set whose entry points back at the set's own header (a loop) or past its end.
    @Test func requirementSetsCannotLoop() {
        let inner = Self.blob([1])
        func set(offset: UInt32, count: UInt32 = 1) -> [UInt8] {
            let length = UInt32(20 + inner.count)
            return [0xFA, 0xDE, 0x0C, 0x01] + withUnsafeBytes(of: length.bigEndian, Array.init)
                + withUnsafeBytes(of: count.bigEndian, Array.init) + [0, 0, 0, 3] + withUnsafeBytes(of: offset.bigEndian, Array.init)
                + inner
        }
        #expect(throws: Never.self) { try RequirementSet(bytes: set(offset: 20)) }
        for (offset, count, what) in [(UInt32(0), UInt32(1), "pointing at itself"), (4, 1, "pointing into its header"),
                                      (1000, 1, "pointing past its end"), (20, 0x8000_0000, "listing 2^31 entries")] {
            do {
                _ = try RequirementSet(bytes: set(offset: offset, count: count))
                Issue.record("a set \(what) was accepted")
            } catch {
                #expect(error.code == "SIGNATURE_REQUIREMENT_INVALID", "\(what)")
            }
        }
    }

    @Test func writingRefusesWhatReadingWould() {
        var deep = RequirementExpression.always
        for _ in 0..<300 { deep = .not(deep) }
        #expect(throws: CodeSignatureError.self) { try Requirement(deep).serialized() }
        #expect(throws: CodeSignatureError.self) { try Requirement(.unknown(opcode: 5, payload: [])).serialized() }
    }
}

private func * (lhs: [UInt8], rhs: Int) -> [UInt8] {
    Array([[UInt8]](repeating: lhs, count: rhs).joined())
}
