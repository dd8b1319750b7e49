import CLibcrypto
import CMS
import FormatSupport
import SwiftASN1
import X509

extension SigningIdentity {
    // MARK: PKCS #12

    /// Reads a PKCS #12 file: Keychain Access's (a 3DES key bag, an RC2-40 certificate bag, a
    /// SHA-1 MAC) and OpenSSL 3's (AES-256-CBC with PBKDF2 and a SHA-256 MAC by default, the
    /// Keychain algorithms with `-legacy`). An empty password opens files exported without one
    /// (as an absent or as an empty password, both of which exporters write). Every key
    /// derivation the file asks for is bounded before it runs (`KeyDerivationBudget`:
    /// `IDENTITY_KEY_DERIVATION_LIMIT`), and none starts after `clock`'s deadline.
    ///
    /// - Parameter password: the password's bytes (UTF-8), as the caller read them from a file or
    ///   the environment, never from the command line.
    public init(pkcs12 bytes: [UInt8], password: [UInt8], clock: WorkClock = .unlimited) throws(SigningIdentityError) {
        guard !bytes.isEmpty, bytes.count <= Self.maximumFileSize else {
            throw SigningIdentityError(
                .notPKCS12, bytes.isEmpty ? "the data is empty" : "the data is larger than \(Self.maximumFileSize) bytes")
        }
        guard !password.contains(0), password.count <= Self.maximumPasswordLength else {
            throw SigningIdentityError(
                .wrongPassword,
                password.contains(0) ? "the password contains a NUL byte, which no PKCS #12 password can"
                    : "the password is longer than \(Self.maximumPasswordLength) bytes")
        }
        let context = try LibcryptoContext()
        var budget = KeyDerivationBudget(clock: clock)
        let contents = try context.run { () throws(SigningIdentityError) in
            try withMemoryBIO(bytes) { bio throws(SigningIdentityError) in
                guard let p12 = d2i_PKCS12_bio(bio, nil) else {
                    throw SigningIdentityError(.notPKCS12, "the data is not a PKCS #12 (.p12) file")
                }
                defer { PKCS12_free(p12) }
                return try PKCS12Contents.read(p12, password: password, hasLegacyProvider: context.hasLegacyProvider, budget: &budget)
            }
        }
        try self.init(pkcs8: contents.key, certificates: contents.certificates)
    }

    /// Reads a PKCS #12 file from disk (see `init(pkcs12:password:clock:)`).
    public init(pkcs12File path: String, password: [UInt8], clock: WorkClock = .unlimited) throws(SigningIdentityError) {
        let bytes = try Self.contents(of: path, tooLarge: .notPKCS12)
        do {
            try self.init(pkcs12: bytes, password: password, clock: clock)
        } catch {
            throw error.inFile(path)
        }
    }

    // MARK: PEM

    /// Reads a certificate file (PEM, possibly with the chain after or before the leaf, or one
    /// DER certificate such as a `.cer` from the developer portal) and a PEM private key:
    /// PKCS #8 (`PRIVATE KEY`), PKCS #1 (`RSA PRIVATE KEY`) or SEC1 (`EC PRIVATE KEY`), or an
    /// encrypted one (`ENCRYPTED PRIVATE KEY`, or `Proc-Type: 4,ENCRYPTED`) with `password`. A
    /// PKCS #8 key's derivation is bounded before it runs, as a PKCS #12 file's are.
    public init(
        certificatePEM: [UInt8], keyPEM: [UInt8], password: [UInt8]? = nil, clock: WorkClock = .unlimited
    ) throws(SigningIdentityError) {
        guard certificatePEM.count <= Self.maximumFileSize else {
            throw SigningIdentityError(.certificateInvalid, "the certificate file is larger than \(Self.maximumFileSize) bytes")
        }
        guard !keyPEM.isEmpty, keyPEM.count <= Self.maximumFileSize else {
            throw SigningIdentityError(
                .keyInvalid, keyPEM.isEmpty ? "the key file is empty" : "the key file is larger than \(Self.maximumFileSize) bytes")
        }
        let certificates = try Self.certificates(certificatePEM)
        if let algorithm = try Self.encryptedKeyAlgorithm(keyPEM) {
            var budget = KeyDerivationBudget(clock: clock)
            try budget.spend(try KeyDerivation.encryption(algorithm, protecting: "the private key"), on: "the private key's encryption")
        }
        let context = try LibcryptoContext()
        let key = try withMemoryBIO(keyPEM) { bio throws(SigningIdentityError) in
            try Self.readPEMKey(bio, in: context, encrypted: Self.isEncryptedPEM(keyPEM), password: password)
        }
        try self.init(pkcs8: key, certificates: certificates)
    }

    /// Reads the two files of `init(certificatePEM:keyPEM:password:)` from disk.
    public init(
        certificateFile: String, keyFile: String, password: [UInt8]? = nil, clock: WorkClock = .unlimited
    ) throws(SigningIdentityError) {
        let certificate = try Self.contents(of: certificateFile, tooLarge: .certificateInvalid)
        let key = try Self.contents(of: keyFile, tooLarge: .keyInvalid)
        do {
            try self.init(certificatePEM: certificate, keyPEM: key, password: password, clock: clock)
        } catch {
            switch error.reason {
            case .certificateInvalid, .noCertificate: throw error.inFile(certificateFile)
            case .keyInvalid, .wrongPassword, .unsupportedKey, .keyDerivationLimit, .timeLimit: throw error.inFile(keyFile)
            default: throw error
            }
        }
    }

    /// The DER certificates of a PEM bundle, or of one DER certificate.
    private static func certificates(_ bytes: [UInt8]) throws(SigningIdentityError) -> [[UInt8]] {
        let marker = Array("-----BEGIN".utf8)
        guard bytes.indices.contains(where: { bytes[$0...].starts(with: marker) }) else {
            guard bytes.first == 0x30 else {
                throw SigningIdentityError(.certificateInvalid, "the certificate file is neither PEM nor a DER certificate")
            }
            return [bytes]
        }
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw SigningIdentityError(.certificateInvalid, "the certificate file is not readable PEM (\(error))")
        }
        let certificates = documents.filter { $0.discriminator == "CERTIFICATE" }.map(\.derBytes)
        guard !certificates.isEmpty else {
            throw SigningIdentityError(.noCertificate, "the certificate file holds no CERTIFICATE block")
        }
        return certificates
    }

    /// The `encryptionAlgorithm` (DER) of a PEM `ENCRYPTED PRIVATE KEY` (PKCS #8's
    /// `EncryptedPrivateKeyInfo`), or nil for any other key (`Proc-Type: 4,ENCRYPTED` keys derive
    /// with one MD5 iteration: nothing to bound). One whose algorithm cannot be read here is
    /// refused rather than handed to libcrypto unweighed.
    private static func encryptedKeyAlgorithm(_ bytes: [UInt8]) throws(SigningIdentityError) -> [UInt8]? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") else { return nil }
        guard let document = (try? PEMDocument.parseMultiple(pemString: text))?.first(where: { $0.discriminator == "ENCRYPTED PRIVATE KEY" }),
              let root = try? DER.parse(document.derBytes), case .constructed(let fields) = root.content,
              let algorithm = fields.first(where: { _ in true }) else {
            throw SigningIdentityError(.keyInvalid, "the encrypted private key's algorithm cannot be read")
        }
        return Array(algorithm.encodedBytes)
    }

    private static func isEncryptedPEM(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED")
    }

    /// A PEM private key as PKCS #8 DER.
    private static func readPEMKey(
        _ bio: OpaquePointer, in context: LibcryptoContext, encrypted: Bool, password: [UInt8]?
    ) throws(SigningIdentityError) -> [UInt8] {
        let key = context.readPrivateKey(pem: bio, password: password)
        guard let key else {
            if encrypted {
                throw SigningIdentityError(
                    .wrongPassword,
                    password == nil ? "the private key is encrypted: its password is needed"
                        : "the password does not decrypt the private key")
            }
            throw SigningIdentityError(
                .keyInvalid, "the key file is not a PEM private key (PKCS #8, PKCS #1 or SEC1): \(LibcryptoContext.lastError())")
        }
        defer {
            EVP_PKEY_free(key)
            ERR_clear_error()
        }
        return try pkcs8(of: key)
    }

    // MARK: Keys

    /// A libcrypto key as PKCS #8 DER, once its type is one code signing uses.
    static func pkcs8(of key: OpaquePointer) throws(SigningIdentityError) -> [UInt8] {
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA:
            let bits = EVP_PKEY_get_bits(key)
            guard bits >= 2048 else {
                throw SigningIdentityError(.unsupportedKey, "the RSA key has \(bits) bits; at least 2048 are needed")
            }
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else {
                throw SigningIdentityError(.unsupportedKey, "the EC key names no curve")
            }
            let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard curve == "prime256v1" || curve == "secp384r1" else {
                throw SigningIdentityError(.unsupportedKey, "the EC key is on the curve \(curve); P-256 or P-384 is needed")
            }
        default:
            throw SigningIdentityError(
                .unsupportedKey, "the key is not RSA or ECDSA (libcrypto type \(EVP_PKEY_get_base_id(key)))")
        }
        guard let der = LibcryptoBytes.privateKey(key) else {
            throw SigningIdentityError(.keyInvalid, "libcrypto could not export the key as PKCS #8")
        }
        return der
    }

    /// An identity from a PKCS #8 key and DER certificates, both from libcrypto.
    private init(pkcs8: [UInt8], certificates: [[UInt8]]) throws(SigningIdentityError) {
        let key: Certificate.PrivateKey
        do {
            key = try Certificate.PrivateKey(derBytes: pkcs8)
        } catch {
            throw SigningIdentityError(.unsupportedKey, "swift-crypto cannot use the private key (\(error))")
        }
        var parsed: [Certificate] = []
        for (index, der) in certificates.enumerated() {
            do {
                parsed.append(try Certificate(derEncoded: der))
            } catch {
                throw SigningIdentityError(.certificateInvalid, "certificate \(index + 1) \(CertificateDiagnosis.unreadable(der))")
            }
        }
        try self.init(privateKey: key, certificates: parsed)
    }
}
