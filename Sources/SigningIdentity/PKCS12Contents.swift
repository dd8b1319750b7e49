import CLibcrypto

/// The private key and certificates of a PKCS #12 file, read as libcrypto's `PKCS12_parse` reads
/// them (the MAC, then each ContentInfo of the AuthenticatedSafe, then its SafeBags: the first
/// private key, every X.509 certificate, SafeContents nested in a bag), but one structure at a
/// time, so that every password-based key derivation is weighed against the budget before it
/// runs: `PKCS12_parse` would run a derivation of 2^31 − 1 iterations for minutes, unstoppable.
struct PKCS12Contents {
    /// The private key, as PKCS #8 DER.
    let key: [UInt8]
    /// Every X.509 certificate, DER, in the file's order.
    let certificates: [[UInt8]]

    /// SafeContents nested deeper than this in one another are refused (files nest none).
    static let maximumNesting = 8

    /// Reads `p12` with `password` (UTF-8 bytes, no NUL); runs inside the caller's
    /// `LibcryptoContext.run`, whose context holds the legacy provider when `hasLegacyProvider`.
    static func read(
        _ p12: OpaquePointer, password: [UInt8], hasLegacyProvider: Bool, budget: inout KeyDerivationBudget
    ) throws(SigningIdentityError) -> PKCS12Contents {
        let text: [CChar] = password.map { CChar(bitPattern: $0) } + [0]
        let mac = try macDerivation(p12, password: password)
        guard let safes = PKCS12_unpack_authsafes(p12) else {
            throw SigningIdentityError(.notPKCS12, "the file's contents (its AuthenticatedSafe) cannot be read")
        }
        defer { ipawrap_pkcs7_stack_free(safes) }

        // Every derivation the file shows before anything is decrypted, weighed at once: a file
        // over the budget costs nothing. (Keys inside encrypted contents are weighed as found.)
        var parts: [Part] = []
        defer { for case .plain(let bags) in parts { ipawrap_safebag_stack_free(bags) } }
        for index in 0..<ipawrap_pkcs7_stack_count(safes) {
            guard let contentInfo = ipawrap_pkcs7_stack_value(safes, index) else { continue }
            parts.append(try Part(contentInfo, number: Int(index) + 1))
        }
        var visible: [(KeyDerivation, String)] = mac.map { Array(repeating: ($0, "the MAC"), count: password.isEmpty ? 2 : 1) } ?? []
        for part in parts {
            switch part {
            case .encrypted(_, let derivation, let what): visible.append((derivation, what))
            case .plain(let bags): if let key = try firstShroudedKey(in: bags) { visible.append(key) }
            case .other: break
            }
        }
        try budget.check(visible)

        // The MAC. An empty password is stored either as no password or as an empty string; the
        // MAC says which, and which one the bags are then decrypted with.
        var usesNoPassword = password.isEmpty
        if let mac {
            try budget.spend(mac, on: "the MAC")
            if password.isEmpty {
                if PKCS12_verify_mac(p12, nil, 0) != 1 {
                    try budget.spend(mac, on: "the MAC")
                    guard PKCS12_verify_mac(p12, text, 0) == 1 else {
                        throw SigningIdentityError(.wrongPassword, "the file needs a password (an empty one does not open it)")
                    }
                    usesNoPassword = false
                }
            } else if PKCS12_verify_mac(p12, text, Int32(password.count)) != 1 {
                throw SigningIdentityError(.wrongPassword, "the password does not open the file (its MAC does not verify)")
            }
        }

        var walk = BagWalk(password: usesNoPassword ? nil : text, hasLegacyProvider: hasLegacyProvider)
        defer { EVP_PKEY_free(walk.key) }
        for part in parts {
            switch part {
            case .plain(let bags):
                try walk.read(bags, depth: 0, budget: &budget)
            case .encrypted(let contentInfo, let derivation, let what):
                try budget.spend(derivation, on: what)
                let bags = walk.withPassword { password, length in PKCS12_unpack_p7encdata(contentInfo, password, length) }
                guard let bags else { throw walk.decryptionFailed() }
                defer { ipawrap_safebag_stack_free(bags) }
                try walk.read(bags, depth: 0, budget: &budget)
            case .other:
                break
            }
        }
        guard let key = walk.key else { throw SigningIdentityError(.noPrivateKey, "the file holds no private key") }
        guard !walk.certificates.isEmpty else { throw SigningIdentityError(.noCertificate, "the file holds no certificate") }
        return PKCS12Contents(key: try SigningIdentity.pkcs8(of: key), certificates: walk.certificates)
    }

    /// The MAC's derivation, or nil for a file without a MAC (read only without a password: with
    /// one, a wrong password could not be told from damaged contents).
    private static func macDerivation(_ p12: OpaquePointer, password: [UInt8]) throws(SigningIdentityError) -> KeyDerivation? {
        guard PKCS12_mac_present(p12) == 1 else {
            guard password.isEmpty else {
                throw SigningIdentityError(
                    .decryptionFailed,
                    "the file has no MAC (openssl pkcs12 -nomac), so a password cannot be checked; export it again with a MAC")
            }
            return nil
        }
        var algorithm: UnsafePointer<X509_ALGOR>?
        var count: UnsafePointer<ASN1_INTEGER>?
        PKCS12_get0_mac(nil, &algorithm, nil, &count, p12)
        guard let algorithm, let der = LibcryptoBytes.der({ i2d_X509_ALGOR(algorithm, $0) }) else {
            throw SigningIdentityError(.notPKCS12, "the file's MAC names no algorithm")
        }
        // No count is one iteration (RFC 7292, MacData); one past 64 bits is over any limit.
        var iterations: Int64 = 1
        if let count, ASN1_INTEGER_get_int64(&iterations, count) != 1 { iterations = .max }
        return try KeyDerivation.mac(der, iterations: iterations)
    }

    /// The first PKCS #8 shrouded key bag of `bags` (the one `read` decrypts, unless a plain key
    /// comes first) and its derivation.
    private static func firstShroudedKey(in bags: OpaquePointer) throws(SigningIdentityError) -> (KeyDerivation, String)? {
        for index in 0..<ipawrap_safebag_stack_count(bags) {
            guard let bag = ipawrap_safebag_stack_value(bags, index) else { continue }
            switch PKCS12_SAFEBAG_get_nid(bag) {
            case NID_keyBag: return nil
            case NID_pkcs8ShroudedKeyBag: return (try BagWalk.keyDerivation(bag), "the private key's encryption")
            default: continue
            }
        }
        return nil
    }

    /// One ContentInfo of the AuthenticatedSafe.
    private enum Part {
        /// Data: its SafeBags, decoded (owned: freed by `read`).
        case plain(OpaquePointer)
        /// EncryptedData, not decrypted yet, with the derivation decrypting it runs.
        case encrypted(UnsafeMutablePointer<PKCS7>, KeyDerivation, String)
        /// Another type, which `PKCS12_parse` skips too.
        case other

        init(_ contentInfo: UnsafeMutablePointer<PKCS7>, number: Int) throws(SigningIdentityError) {
            switch ipawrap_pkcs7_type(contentInfo) {
            case NID_pkcs7_data:
                guard let bags = PKCS12_unpack_p7data(contentInfo) else {
                    throw SigningIdentityError(.notPKCS12, "part \(number) of the file's contents cannot be read")
                }
                self = .plain(bags)
            case NID_pkcs7_encrypted:
                let what = "the encryption of part \(number) of the file's contents"
                guard let algorithm = ipawrap_pkcs7_encryption(contentInfo),
                      let der = LibcryptoBytes.der({ i2d_X509_ALGOR(algorithm, $0) }) else {
                    throw SigningIdentityError(.notPKCS12, "\(what) names no algorithm")
                }
                self = .encrypted(contentInfo, try KeyDerivation.encryption(der, protecting: "part \(number) of the file's contents"), what)
            default:
                self = .other
            }
        }
    }
}

/// The SafeBags of a PKCS #12 file, read as `PKCS12_parse` reads them: the first private key
/// (plain or decrypted), every X.509 certificate, nested SafeContents.
private struct BagWalk {
    /// The password as libcrypto takes it (NUL-terminated), or nil for no password.
    let password: [CChar]?
    let hasLegacyProvider: Bool
    /// The first private key found (owned: freed by the caller).
    var key: OpaquePointer?
    var certificates: [[UInt8]] = []

    init(password: [CChar]?, hasLegacyProvider: Bool) {
        self.password = password
        self.hasLegacyProvider = hasLegacyProvider
    }

    /// Calls `body` with the password and its length as libcrypto's PKCS #12 calls take them
    /// (nil for no password; -1: NUL-terminated).
    func withPassword<Result>(_ body: (UnsafePointer<CChar>?, Int32) -> Result) -> Result {
        guard let password else { return body(nil, 0) }
        return password.withUnsafeBufferPointer { body($0.baseAddress, -1) }
    }

    /// What libcrypto's failure to decrypt means, with its own words.
    func decryptionFailed() -> SigningIdentityError {
        let legacy = hasLegacyProvider ? "" : "; libcrypto's legacy provider (RC2, 3DES) could not be loaded"
        return SigningIdentityError(
            .decryptionFailed, "libcrypto could not decrypt the file (\(LibcryptoContext.lastError()))\(legacy)")
    }

    /// The derivation decrypting a PKCS #8 shrouded key bag runs.
    static func keyDerivation(_ bag: OpaquePointer) throws(SigningIdentityError) -> KeyDerivation {
        var algorithm: UnsafePointer<X509_ALGOR>?
        guard let shrouded = PKCS12_SAFEBAG_get0_pkcs8(bag) else {
            throw SigningIdentityError(.notPKCS12, "the private key's bag holds no encrypted key")
        }
        X509_SIG_get0(shrouded, &algorithm, nil)
        guard let algorithm, let der = LibcryptoBytes.der({ i2d_X509_ALGOR(algorithm, $0) }) else {
            throw SigningIdentityError(.notPKCS12, "the private key's encryption names no algorithm")
        }
        return try KeyDerivation.encryption(der, protecting: "the private key")
    }

    mutating func read(_ bags: OpaquePointer, depth: Int, budget: inout KeyDerivationBudget) throws(SigningIdentityError) {
        for index in 0..<ipawrap_safebag_stack_count(bags) {
            guard let bag = ipawrap_safebag_stack_value(bags, index) else { continue }
            switch PKCS12_SAFEBAG_get_nid(bag) {
            case NID_keyBag where key == nil:
                guard let info = PKCS12_SAFEBAG_get0_p8inf(bag), let decoded = EVP_PKCS82PKEY(info) else { throw decryptionFailed() }
                key = decoded
            case NID_pkcs8ShroudedKeyBag where key == nil:
                try budget.spend(try Self.keyDerivation(bag), on: "the private key's encryption")
                let info = withPassword { password, length in PKCS12_decrypt_skey(bag, password, length) }
                guard let info else { throw decryptionFailed() }
                defer { PKCS8_PRIV_KEY_INFO_free(info) }
                guard let decoded = EVP_PKCS82PKEY(info) else { throw decryptionFailed() }
                key = decoded
            case NID_certBag where PKCS12_SAFEBAG_get_bag_nid(bag) == NID_x509Certificate:
                guard let certificate = PKCS12_SAFEBAG_get1_cert(bag) else { throw decryptionFailed() }
                defer { X509_free(certificate) }
                if let der = LibcryptoBytes.certificate(certificate) { certificates.append(der) }
            case NID_safeContentsBag:
                guard depth < PKCS12Contents.maximumNesting else {
                    throw SigningIdentityError(
                        .notPKCS12, "the file nests SafeContents more than \(PKCS12Contents.maximumNesting) deep")
                }
                if let inner = PKCS12_SAFEBAG_get0_safes(bag) {
                    try read(inner, depth: depth + 1, budget: &budget)
                }
            default:
                continue
            }
        }
    }
}
