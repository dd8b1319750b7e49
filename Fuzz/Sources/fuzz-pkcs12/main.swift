// Fuzzes the PKCS #12 reader: `SigningIdentity(pkcs12:password:clock:)` (libcrypto decodes the
// structures; SigningIdentity walks them, weighs every key derivation before it runs, decrypts,
// and hands the key and certificates to swift-crypto and swift-certificates), with the test
// identities' password and with none. Checks that:
// - every refusal is one of the reader's codes, and never an I/O one (the bytes are in memory);
// - a loaded identity's certificate holds its private key's public key, its chain leaves the
//   leaf out, and its key type is one code signing uses;
// - no input gets past the deadline unnoticed: loading under an expired clock either fails
//   before any derivation (the time limit, or a refusal found earlier) or needs no derivation.
import FormatSupport
import FuzzDriver
import SigningIdentity

let passwords: [[UInt8]] = [Array("ipawrap-test".utf8), []]
let codes = Set(SigningIdentityError.Reason.allCases.map(\.rawValue))

func fuzzOne(_ bytes: [UInt8]) {
    for password in passwords {
        do {
            let identity = try SigningIdentity(pkcs12: bytes, password: password)
            check(identity)
        } catch {
            precondition(codes.contains(error.code), "an unknown code \(error.code)")
            precondition(error.category == .invalidInput, "\(error.code) is not an input error: \(error)")
        }
    }
    // A deadline already past: nothing is derived after it.
    do {
        _ = try SigningIdentity(pkcs12: bytes, password: passwords[0], clock: WorkClock(seconds: 0, file: "fuzz.p12"))
    } catch {
        precondition(codes.contains(error.code), "an unknown code \(error.code)")
    }
}

func check(_ identity: SigningIdentity) {
    precondition(identity.privateKey.publicKey == identity.certificate.publicKey, "the leaf does not hold the private key's public key")
    precondition(!identity.chain.contains(identity.certificate), "the chain repeats the leaf")
    switch identity.keyType {
    case .rsa(let bits): precondition(bits >= 2048, "an RSA key of \(bits) bits was accepted")
    case .p256, .p384: break
    }
    _ = (identity.commonName, identity.teamIdentifier, identity.sha1Fingerprint.count)
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
