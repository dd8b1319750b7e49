import FormatSupport
import Foundation
@testable import SigningIdentity
import Testing
import TestSupport

/// Issue 27, class 4: every password-based key derivation of an identity file is weighed before
/// libcrypto runs it. A hostile count (2^31 − 1: minutes) is refused at once, whichever part
/// asks for it; a file at the documented maximum still loads; `--time-limit` stops loading.
struct KeyDerivationTests {
    static let password = SigningFixtures.password

    // MARK: Reading a derivation's cost

    static func oid(_ bytes: [UInt8]) -> [UInt8] { tlv(0x06, bytes) }
    static func integer(_ bytes: [UInt8]) -> [UInt8] { tlv(0x02, bytes) }
    static let pbes2: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0D]
    static let pbkdf2: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0C]
    static let aes256CBC = tlv(0x30, oid([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2A]) + tlv(0x04, [UInt8](repeating: 1, count: 16)))

    /// PBES2 with PBKDF2 of `iterations` (its INTEGER's content bytes), and `keyLength` if given.
    static func pbes2(iterations: [UInt8], keyLength: [UInt8]? = nil, kdf: [UInt8] = pbkdf2) -> [UInt8] {
        let parameters = tlv(0x04, [UInt8](repeating: 7, count: 8)) + integer(iterations) + (keyLength.map(integer) ?? [])
        return tlv(0x30, oid(pbes2) + tlv(0x30, tlv(0x30, oid(kdf) + tlv(0x30, parameters)) + aes256CBC))
    }

    static func pbe(_ last: [UInt8], iterations: [UInt8]) -> [UInt8] {
        tlv(0x30, oid(last) + tlv(0x30, tlv(0x04, [UInt8](repeating: 7, count: 8)) + integer(iterations)))
    }

    @Test func eachSchemeIsReadWithItsCost() throws {
        #expect(try KeyDerivation.encryption(Self.pbes2(iterations: [0x08, 0x00]), protecting: "x")
            == KeyDerivation(iterations: 2048, runs: 1))
        // PKCS #12's PBE (pbeWithSHAAnd3-KeyTripleDES-CBC) derives the key and the IV: twice.
        let tripleDES: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x01, 0x03]
        #expect(try KeyDerivation.encryption(Self.pbe(tripleDES, iterations: [0x08, 0x00]), protecting: "x")
            == KeyDerivation(iterations: 2048, runs: 2))
        // PBES1 (pbeWithSHA1AndDES-CBC) derives both at once.
        let pbes1: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0A]
        #expect(try KeyDerivation.encryption(Self.pbe(pbes1, iterations: [0x01, 0x00]), protecting: "x")
            == KeyDerivation(iterations: 256, runs: 1))
        // Counts past 64 bits saturate; a count that is not positive costs one iteration.
        let huge = try KeyDerivation.encryption(Self.pbes2(iterations: [0x01] + [UInt8](repeating: 0, count: 9)), protecting: "x")
        #expect(huge.iterations == .max && huge.cost == .max)
        let negative = try KeyDerivation.encryption(Self.pbes2(iterations: [0xFF]), protecting: "x")
        #expect(negative.iterations == 0 && negative.cost == 1)
        // A MAC: PKCS #12's KDF with the MacData's count, or PBMAC1's own PBKDF2 count.
        let sha256 = tlv(0x30, Self.oid([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]) + [0x05, 0x00])
        #expect(try KeyDerivation.mac(sha256, iterations: 2_147_483_647) == KeyDerivation(iterations: 2_147_483_647, runs: 1))
        let pbmac1 = tlv(0x30, Self.oid([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0E]) + tlv(0x30,
            tlv(0x30, Self.oid(Self.pbkdf2) + tlv(0x30, tlv(0x04, [7, 7]) + Self.integer([0x13, 0x88]) + Self.integer([0x20]))) + sha256))
        #expect(try KeyDerivation.mac(pbmac1, iterations: 1) == KeyDerivation(iterations: 5000, runs: 1))
    }

    @Test func whatCannotBeBoundedIsRefusedBeforeItRuns() {
        let scrypt: [UInt8] = [0x2B, 0x06, 0x01, 0x04, 0x01, 0xDA, 0x47, 0x04, 0x0B]
        let cases: [([UInt8], String)] = [
            (Self.pbes2(iterations: [0x08, 0x00], kdf: scrypt), "derives its key with scrypt"),
            (Self.pbes2(iterations: [0x08, 0x00], keyLength: [0x0F, 0x42, 0x40]), "a key of 1000000 bytes"),
            (Self.aes256CBC, "not one of PKCS #12's schemes"),
        ]
        for (der, words) in cases {
            do {
                _ = try KeyDerivation.encryption(der, protecting: "the private key")
                Issue.record("\(words) was accepted")
            } catch {
                #expect(error.code == "IDENTITY_KEY_DERIVATION_LIMIT")
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
        for damaged in [[], [0x30, 0x00], Array(Self.pbes2(iterations: [0x08, 0x00]).dropLast(3))] as [[UInt8]] {
            #expect(throws: SigningIdentityError.self) { try KeyDerivation.encryption(damaged, protecting: "x") }
        }
    }

    @Test func theBudgetBoundsEachDerivationAllTogetherAndTheDeadline() throws {
        let maximum = KeyDerivation(iterations: KeyDerivationBudget.maximumIterations, runs: 1)
        var budget = KeyDerivationBudget(clock: .unlimited)
        // A genuine file at the maximum: MAC twice (empty password), certificates and key by PKCS #12's PBE.
        try budget.check([(maximum, "the MAC"), (maximum, "the MAC"), (KeyDerivation(iterations: maximum.iterations, runs: 2), "a"),
                          (KeyDerivation(iterations: maximum.iterations, runs: 2), "b")])
        #expect(throws: SigningIdentityError.self) {
            try budget.check([(KeyDerivation(iterations: maximum.iterations + 1, runs: 1), "the MAC")])
        }
        #expect(throws: SigningIdentityError.self) { try budget.check(Array(repeating: (maximum, "a part"), count: 9)) }
        for _ in 0..<8 { try budget.spend(maximum, on: "a part") }
        #expect(throws: SigningIdentityError.self) { try budget.spend(KeyDerivation(iterations: 1, runs: 1), on: "a part") }
        var late = KeyDerivationBudget(clock: WorkClock(seconds: 0, file: "late.p12"))
        do {
            try late.spend(KeyDerivation(iterations: 1, runs: 1), on: "the MAC")
            Issue.record("a derivation started after the deadline")
        } catch {
            #expect(error.code == "ARCHIVE_TIME_LIMIT")
            #expect(error.message == "loading the identity took longer than the limit of 0 s; raise --time-limit if the file is genuine")
        }
    }

    // MARK: Real files, rewritten

    /// The rewriter itself: each committed .p12, rewritten unchanged with its MAC recomputed, is
    /// the same bytes (so its DER and its RFC 7292 MAC are right), and a changed count still opens
    /// in openssl with the password (its MAC verifies).
    @Test func theRewriterRoundTripsExactly() throws {
        let scratch = try ScratchDirectory("key-derivation")
        for form in [SigningFixtures.PKCS12.openssl, .keychain, .opensslLegacy, .ec] {
            let output = scratch.path(form.rawValue)
            try HostilePKCS12.write(from: form.path, to: output, password: Self.password, .init())
            #expect(try Fixtures.bytesAt(output) == (try form.bytes()), "\(form)")
        }
        let changed = scratch.path("changed.p12")
        try HostilePKCS12.write(from: SigningFixtures.PKCS12.openssl.path, to: changed, password: Self.password, .init(macIterations: 5000))
        let info = try Command.run("openssl", ["pkcs12", "-info", "-in", changed, "-passin", "pass:" + Self.password, "-noout"])
        #expect(info.status == 0 && info.stderr.contains("MAC: sha256, Iteration 5000"), "\(info.stderr)")
    }

    /// 2^31 − 1 iterations in any part of a real file (the MAC recomputed where the file must
    /// still open): refused with the part named, in milliseconds rather than minutes.
    @Test(arguments: [
        ("mac", SigningFixtures.PKCS12.openssl, HostilePKCS12.Rewrite(macIterations: 2_147_483_647, recomputesMAC: false),
         "the MAC asks for 2147483647 iterations"),
        ("encrypted", .openssl, .init(encryptedIterations: 2_147_483_647),
         "the encryption of part 1 of the file's contents asks for 2147483647 iterations"),
        ("key", .openssl, .init(keyIterations: 2_147_483_647), "the private key's encryption asks for 2147483647 iterations"),
        ("legacy-encrypted", .opensslLegacy, .init(encryptedIterations: 2_147_483_647),
         "the encryption of part 1 of the file's contents asks for 2147483647 iterations"),
        ("keychain-key", .keychain, .init(keyIterations: 2_147_483_647), "the private key's encryption asks for 2147483647 iterations"),
        ("many-parts", .openssl, .init(encryptedIterations: 1_000_000, extraEncryptedParts: 8),
         "the file asks for 9004096 iterations of key derivation in all over 11 derivations"),
    ] as [(String, SigningFixtures.PKCS12, HostilePKCS12.Rewrite, String)])
    func aHostileIterationCountIsRefusedBeforeItRuns(_ name: String, _ form: SigningFixtures.PKCS12, _ rewrite: HostilePKCS12.Rewrite, _ words: String) throws {
        let scratch = try ScratchDirectory("key-derivation")
        let path = scratch.path(name + ".p12")
        try HostilePKCS12.write(from: form.path, to: path, password: Self.password, rewrite)
        let start = Self.threadProcessorSeconds()
        do {
            _ = try SigningIdentity(pkcs12File: path, password: Array(Self.password.utf8))
            Issue.record("\(name) was read")
        } catch {
            #expect(error.code == "IDENTITY_KEY_DERIVATION_LIMIT", "\(error)")
            #expect(error.category == .invalidInput)
            #expect(error.description.hasPrefix(path + ": " + words), "\(error.description)")
        }
        // Nothing was derived: this thread's processor time stays far below the quarter second
        // one derivation at the maximum takes (2^31 − 1 iterations would take minutes).
        #expect(Self.threadProcessorSeconds() - start < 0.2, "\(name)")
    }

    /// The processor time this thread has used (libcrypto derives on the calling thread).
    static func threadProcessorSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A file openssl writes at the maximum count (`-iter 1000000`) still loads, and a deadline
    /// stops the loading between derivations.
    @Test(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed"))
    func aFileAtTheMaximumLoadsAndTheDeadlineStopsIt() throws {
        let scratch = try ScratchDirectory("key-derivation")
        let path = try SigningFixtures.writePKCS12(
            in: scratch, key: SigningFixtures.path("distribution.key.pem"), certificate: SigningFixtures.path("distribution.pem"),
            options: ["-iter", "1000000"])
        let identity = try SigningIdentity(pkcs12File: path, password: Array(Self.password.utf8))
        #expect(identity.commonName == "Apple Distribution: Example Corp (ABCDE12345)")
        do {
            _ = try SigningIdentity(pkcs12File: path, password: Array(Self.password.utf8), clock: WorkClock(seconds: 0, file: path))
            Issue.record("the deadline did not stop the loading")
        } catch {
            #expect(error.code == "ARCHIVE_TIME_LIMIT")
        }
    }

    /// A PKCS #8 encrypted PEM key is weighed the same way.
    @Test(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed"))
    func anEncryptedPEMKeyIsWeighedToo() throws {
        let scratch = try ScratchDirectory("key-derivation")
        let encrypted = scratch.path("key.pem")
        try SigningFixtures.openssl([
            "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-iter", "2048", "-in", SigningFixtures.path("distribution.key.pem"),
            "-passout", "pass:" + Self.password, "-out", encrypted,
        ])
        let identity = try SigningIdentity(
            certificateFile: SigningFixtures.path("distribution.pem"), keyFile: encrypted, password: Array(Self.password.utf8))
        #expect(identity.keyType == .rsa(bits: 2048))
        let hostile = scratch.path("hostile.pem")
        try HostilePKCS12.write(from: encrypted, to: hostile, password: Self.password, .init(keyIterations: 2_147_483_647))
        do {
            _ = try SigningIdentity(
                certificateFile: SigningFixtures.path("distribution.pem"), keyFile: hostile, password: Array(Self.password.utf8))
            Issue.record("the hostile key was read")
        } catch {
            #expect(error.code == "IDENTITY_KEY_DERIVATION_LIMIT")
            #expect(error.description.hasPrefix(hostile + ": the private key's encryption asks for 2147483647 iterations"), "\(error)")
        }
    }
}
