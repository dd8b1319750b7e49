import CLibcrypto

/// A libcrypto library context of our own with the default and legacy providers (legacy holds
/// RC2-40, which Keychain Access still uses for certificate bags). It is made the calling
/// thread's default only while `run` runs, so the process default context is never changed,
/// and freed, providers first, when the value goes away.
final class LibcryptoContext {
    private let context: OpaquePointer
    private var providers: [OpaquePointer] = []
    /// Whether the legacy provider loaded (its module ships with libssl3; a minimal system may
    /// lack it, and then only modern PKCS #12 files read).
    private(set) var hasLegacyProvider = false

    init() throws(SigningIdentityError) {
        guard let context = OSSL_LIB_CTX_new() else {
            throw SigningIdentityError(.decryptionFailed, "libcrypto could not create a library context")
        }
        self.context = context
        if let provider = OSSL_PROVIDER_load(context, "default") { providers.append(provider) }
        if let provider = OSSL_PROVIDER_load(context, "legacy") {
            providers.append(provider)
            hasLegacyProvider = true
        }
        // A provider that failed to load leaves an error behind; what follows reports its own.
        ERR_clear_error()
    }

    deinit {
        for provider in providers.reversed() { OSSL_PROVIDER_unload(provider) }
        OSSL_LIB_CTX_free(context)
    }

    /// Runs `body` with this context as the thread's default, which libcrypto functions that take
    /// no context (`PKCS12_parse`, `d2i_PKCS12_bio`) use; restores the previous one after.
    func run<Result>(_ body: () throws(SigningIdentityError) -> Result) throws(SigningIdentityError) -> Result {
        let previous = OSSL_LIB_CTX_set0_default(context)
        defer {
            OSSL_LIB_CTX_set0_default(previous)
            ERR_clear_error()
        }
        return try body()
    }

    /// Reads a PEM private key (PKCS #8, PKCS #1, SEC1, encrypted or not) in this context. The
    /// password reaches libcrypto through a callback (never libcrypto's own terminal prompt,
    /// which a nil callback would start). This runs outside `run`: libcrypto registers its
    /// password wrapper's cleanup once, in the context that is the default at the time, and a
    /// context of ours would take it away when freed (leaking every later wrapper).
    func readPrivateKey(pem bio: OpaquePointer, password: [UInt8]?) -> OpaquePointer? {
        var secret = password ?? []
        return withUnsafeMutablePointer(to: &secret) { pointer in
            PEM_read_bio_PrivateKey_ex(bio, nil, { buffer, size, _, userData in
                guard let buffer, let userData else { return 0 }
                let password = userData.assumingMemoryBound(to: [UInt8].self).pointee
                guard password.count <= Int(size) else { return 0 }
                for (index, byte) in password.enumerated() { buffer[index] = CChar(bitPattern: byte) }
                return Int32(password.count)
            }, pointer, context, nil)
        }
    }

    /// The last libcrypto error on this thread as text, for messages (`"…: bad decrypt"`).
    static func lastError() -> String {
        let code = ERR_peek_last_error()
        guard code != 0 else { return "no libcrypto error recorded" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // "error:0308010C:digital envelope routines::unsupported" → "digital envelope routines: unsupported".
        let parts = text.split(separator: ":", omittingEmptySubsequences: true)
        return parts.count >= 3 ? parts.dropFirst(2).joined(separator: ": ") : text
    }
}

/// Memory libcrypto hands back, copied out and freed (cleared first: it may hold a key).
enum LibcryptoBytes {
    /// The DER `i2d` writes for an object, or nil when it fails.
    static func der(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32) -> [UInt8]? {
        var buffer: UnsafeMutablePointer<UInt8>?
        let length = encode(&buffer)
        guard length > 0, let buffer else { return nil }
        defer { CRYPTO_clear_free(buffer, Int(length), #fileID, #line) }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(length)))
    }

    /// A certificate's DER.
    static func certificate(_ x509: OpaquePointer) -> [UInt8]? {
        der { i2d_X509(x509, $0) }
    }

    /// A private key as unencrypted PKCS #8 DER (`PrivateKeyInfo`), the form swift-crypto imports.
    static func privateKey(_ key: OpaquePointer) -> [UInt8]? {
        guard let info = EVP_PKEY2PKCS8(key) else { return nil }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        return der { i2d_PKCS8_PRIV_KEY_INFO(info, $0) }
    }
}

/// A memory BIO over bytes that outlive it, for the duration of `body`; callers bound the size
/// (`SigningIdentity.maximumFileSize`), far below the BIO's `Int32` length.
func withMemoryBIO<Result>(
    _ bytes: [UInt8], _ body: (OpaquePointer) throws(SigningIdentityError) -> Result
) throws(SigningIdentityError) -> Result {
    // The BIO reads the bytes in place: it must not outlive this scope.
    let result: Swift.Result<Result, SigningIdentityError> = bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress, let length = Int32(exactly: buffer.count),
              let bio = BIO_new_mem_buf(base, length) else {
            return .failure(SigningIdentityError(.decryptionFailed, "libcrypto could not allocate a memory buffer"))
        }
        defer { BIO_free(bio) }
        do throws(SigningIdentityError) {
            return .success(try body(bio))
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}
