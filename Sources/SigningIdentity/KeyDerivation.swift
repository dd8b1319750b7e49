import FormatSupport
import SwiftASN1

/// One password-based key derivation an identity file asks libcrypto to run, read from its
/// `AlgorithmIdentifier` (DER) before it runs. Its cost is its iteration count, as many times
/// as it runs: PKCS #12's own scheme derives the key and the IV separately.
struct KeyDerivation: Equatable, Sendable {
    /// The iteration count as the file gives it (0 for a count that is not positive, which costs
    /// one iteration; `Int64.max` for one past 64 bits).
    var iterations: Int64
    /// How many derivations of `iterations` it runs.
    var runs: Int64

    /// Iterations in all.
    var cost: Int64 {
        let (product, overflow) = max(iterations, 1).multipliedReportingOverflow(by: runs)
        return overflow ? .max : product
    }

    // MARK: Reading

    private enum OID {
        static let pbes2: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 5, 13]
        static let pbkdf2: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 5, 12]
        static let pbmac1: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 5, 14]
        static let scrypt: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11_591, 4, 11]
        /// `pbeWithSHAAnd128BitRC4` … `pbeWithSHAAnd40BitRC2-CBC` (RFC 7292, appendix C).
        static let pkcs12PBE: [ASN1ObjectIdentifier] = (1...6).map { [1, 2, 840, 113_549, 1, 12, 1, $0] }
        /// PBES1: `pbeWithMD2AndDES-CBC` … `pbeWithSHA1AndRC2-CBC` (RFC 8018, appendix A.3).
        static let pbes1: [ASN1ObjectIdentifier] = [1, 4, 3, 6, 10, 11].map { [1, 2, 840, 113_549, 1, 5, $0] }
    }

    /// The largest PBKDF2 output a PKCS #12 file can need: the longest cipher key (AES-256-XTS's 64
    /// bytes). PBMAC1 names its key length; a larger one would make PBKDF2 run per 20 bytes of it.
    static let maximumKeyLength: Int64 = 64

    /// The derivation an encryption algorithm runs: PBES2 with PBKDF2, PKCS #12's PBE or PBES1.
    /// Anything else, scrypt included (whose cost is not one count), is refused: no exporter
    /// writes it, and its cost could not be bounded before it runs.
    /// - Parameter what: what the algorithm protects, for messages ("the private key").
    static func encryption(_ der: [UInt8], protecting what: String) throws(SigningIdentityError) -> KeyDerivation {
        let (identifier, parameters) = try algorithm(der, what)
        if identifier == OID.pbes2 {
            // PBES2-params ::= SEQUENCE { keyDerivationFunc AlgorithmIdentifier, encryptionScheme AlgorithmIdentifier }
            guard let parts = parameters.flatMap(children), parts.count == 2 else { throw malformed(what) }
            return try pbkdf2(parts[0], what)
        }
        if OID.pkcs12PBE.contains(identifier) || OID.pbes1.contains(identifier) {
            // PBEParameter ::= SEQUENCE { salt OCTET STRING, iterationCount INTEGER }
            guard let parts = parameters.flatMap(children), parts.count == 2 else { throw malformed(what) }
            return KeyDerivation(iterations: integer(parts[1]), runs: OID.pkcs12PBE.contains(identifier) ? 2 : 1)
        }
        throw SigningIdentityError(
            .keyDerivationLimit,
            "\(what) is encrypted with \(identifier), not one of PKCS #12's schemes (PBES2 with PBKDF2, PKCS #12 PBE); "
                + "its key derivation is not run")
    }

    /// The derivation a MAC runs: PKCS #12's KDF, `iterations` times (the MacData's count, 1 when
    /// absent), or PBMAC1's PBKDF2 (which names its own count).
    static func mac(_ der: [UInt8], iterations: Int64) throws(SigningIdentityError) -> KeyDerivation {
        let what = "the MAC"
        let (identifier, parameters) = try algorithm(der, what)
        guard identifier == OID.pbmac1 else { return KeyDerivation(iterations: iterations, runs: 1) }
        // PBMAC1-params ::= SEQUENCE { keyDerivationFunc AlgorithmIdentifier, messageAuthScheme AlgorithmIdentifier }
        guard let parts = parameters.flatMap(children), parts.count == 2 else { throw malformed(what) }
        return try pbkdf2(parts[0], what)
    }

    /// PBKDF2's derivation from its `AlgorithmIdentifier` node.
    private static func pbkdf2(_ node: ASN1Node, _ what: String) throws(SigningIdentityError) -> KeyDerivation {
        guard let parts = children(node), let first = parts.first, let identifier = try? ASN1ObjectIdentifier(derEncoded: first) else {
            throw malformed(what)
        }
        guard identifier == OID.pbkdf2 else {
            let name = identifier == OID.scrypt ? "scrypt" : "\(identifier)"
            throw SigningIdentityError(
                .keyDerivationLimit, "\(what) derives its key with \(name), not PBKDF2; its cost cannot be bounded, so it is not run")
        }
        // PBKDF2-params ::= SEQUENCE { salt, iterationCount INTEGER, keyLength INTEGER OPTIONAL, prf AlgorithmIdentifier DEFAULT }
        guard parts.count == 2, let fields = children(parts[1]), fields.count >= 2, fields[1].identifier == .integer else {
            throw malformed(what)
        }
        if fields.count >= 3, fields[2].identifier == .integer {
            let length = integer(fields[2])
            guard length <= maximumKeyLength else {
                throw SigningIdentityError(
                    .keyDerivationLimit,
                    "\(what) asks PBKDF2 for a key of \(length) bytes, more than the \(maximumKeyLength) any cipher or MAC uses")
            }
        }
        return KeyDerivation(iterations: integer(fields[1]), runs: 1)
    }

    private static func algorithm(_ der: [UInt8], _ what: String) throws(SigningIdentityError) -> (ASN1ObjectIdentifier, ASN1Node?) {
        guard let root = try? DER.parse(der), let parts = children(root), let first = parts.first,
              let identifier = try? ASN1ObjectIdentifier(derEncoded: first) else { throw malformed(what) }
        return (identifier, parts.dropFirst().first)
    }

    private static func children(_ node: ASN1Node) -> [ASN1Node]? {
        guard case .constructed(let nodes) = node.content else { return nil }
        return Array(nodes)
    }

    /// An INTEGER's value, saturating: 0 for a count that is not positive, `Int64.max` past 64 bits.
    private static func integer(_ node: ASN1Node) -> Int64 {
        guard node.identifier == .integer, case .primitive(let bytes) = node.content, let first = bytes.first,
              first & 0x80 == 0 else { return 0 }
        let magnitude = bytes.drop { $0 == 0 }
        guard magnitude.count <= 8 else { return .max }
        let value = magnitude.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value > UInt64(Int64.max) ? .max : Int64(value)
    }

    private static func malformed(_ what: String) -> SigningIdentityError {
        SigningIdentityError(.notPKCS12, "the parameters of \(what)'s encryption cannot be read")
    }
}

/// What the key derivations of one identity file may cost, all checked before each runs: each
/// at most `maximumIterations`, all together at most `maximumTotalIterations`, and none started
/// after the deadline (`--time-limit`). Keychain Access and `openssl pkcs12` write 2,048 for the
/// MAC and each encryption (Java's keytool 10,000), so a genuine file is far below both; a
/// hostile one (2^31 − 1 iterations: minutes of work) is refused before it costs anything.
struct KeyDerivationBudget {
    /// One derivation's iterations: 488 times what Keychain Access and openssl write, about a
    /// quarter of a second of PBKDF2-HMAC-SHA-256.
    static let maximumIterations: Int64 = 1_000_000
    /// Every derivation of a file together: enough for a genuine file whose every derivation is
    /// at `maximumIterations` (its MAC, twice for an empty password, and its certificates' and
    /// key's encryptions, each run twice by PKCS #12's PBE: 6,000,000), and no more than a few
    /// seconds of work.
    static let maximumTotalIterations: Int64 = 8_000_000

    var clock: WorkClock
    private(set) var spent: Int64 = 0

    init(clock: WorkClock) {
        self.clock = clock
    }

    /// Refuses `derivations` (of `whats`) when one or all of them together would pass the
    /// bounds: the derivations a file shows before anything is decrypted, checked at once.
    func check(_ derivations: [(KeyDerivation, String)]) throws(SigningIdentityError) {
        var total: Int64 = 0
        for (derivation, what) in derivations {
            try Self.checkOne(derivation, what)
            let (sum, overflow) = total.addingReportingOverflow(derivation.cost)
            total = overflow ? .max : sum
        }
        try checkTotal(total, count: derivations.count)
    }

    /// Accounts for `derivation` (of `what`), about to run: refused when it passes a bound, or
    /// when the deadline has passed.
    mutating func spend(_ derivation: KeyDerivation, on what: String) throws(SigningIdentityError) {
        try Self.checkOne(derivation, what)
        let (sum, overflow) = spent.addingReportingOverflow(derivation.cost)
        try checkTotal(overflow ? .max : sum, count: nil)
        spent = overflow ? .max : sum
        if clock.isPastDeadline {
            throw SigningIdentityError(
                .timeLimit,
                "loading the identity took longer than the limit of \(WorkClock.describe(seconds: clock.seconds)) s; "
                    + "raise --time-limit if the file is genuine")
        }
    }

    private static func checkOne(_ derivation: KeyDerivation, _ what: String) throws(SigningIdentityError) {
        guard derivation.iterations <= maximumIterations else {
            throw SigningIdentityError(
                .keyDerivationLimit,
                "\(what) asks for \(derivation.iterations) iterations of key derivation, above the limit of \(maximumIterations) "
                    + "(Keychain Access and openssl pkcs12 write 2048); export the identity again")
        }
    }

    private func checkTotal(_ total: Int64, count: Int?) throws(SigningIdentityError) {
        guard total <= Self.maximumTotalIterations else {
            let parts = count.map { " over \($0) derivations" } ?? ""
            throw SigningIdentityError(
                .keyDerivationLimit,
                "the file asks for \(total) iterations of key derivation in all\(parts), above the limit of "
                    + "\(Self.maximumTotalIterations); export the identity again")
        }
    }
}
