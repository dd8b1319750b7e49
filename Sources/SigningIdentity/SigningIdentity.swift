import CMS
import Crypto
import FormatSupport
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// A signing identity: a certificate, its private key and the chain of issuers to carry in a
/// signature, loaded from a PKCS #12 file (as Keychain Access and `openssl pkcs12 -export`
/// write them) or from PEM files. libcrypto only decrypts and decodes the files; the key is
/// handed to swift-crypto (as PKCS #8), which does all the signing.
public struct SigningIdentity: CMSSigningIdentity {
    /// The key types code signing uses.
    public enum KeyType: Sendable, Equatable, CustomStringConvertible {
        case rsa(bits: Int)
        case p256
        case p384

        public var description: String {
            switch self {
            case .rsa(let bits): "RSA \(bits)"
            case .p256: "ECDSA P-256"
            case .p384: "ECDSA P-384"
            }
        }
    }

    /// Larger than any identity file (a .p12 with its chain is a few KiB).
    public static let maximumFileSize = 1 << 20
    /// Longer than any password an exporter accepts.
    public static let maximumPasswordLength = 4_096

    /// The leaf certificate: the one the private key belongs to.
    public let certificate: Certificate
    /// The issuers from the file that link to the leaf by name and signature, its issuer first;
    /// certificates that do not link are left out. Empty when the file holds the leaf alone
    /// (Keychain Access exports no chain) unless `completingChain(from:)` supplied it.
    public private(set) var chain: [Certificate]
    public let privateKey: Certificate.PrivateKey
    public let keyType: KeyType

    /// An identity from its parts: the leaf is the certificate of `certificates` whose public
    /// key is the private key's; the others are ordered into its chain.
    public init(privateKey: Certificate.PrivateKey, certificates: [Certificate]) throws(SigningIdentityError) {
        guard let keyType = Self.keyType(of: privateKey.publicKey) else {
            throw SigningIdentityError(
                .unsupportedKey, "the private key is \(privateKey), not RSA (2048 bits or more), ECDSA P-256 or P-384")
        }
        guard !certificates.isEmpty else {
            throw SigningIdentityError(.noCertificate, "there is no certificate beside the private key")
        }
        guard let leaf = certificates.first(where: { $0.publicKey == privateKey.publicKey }) else {
            let names = certificates.map(CMSSignedData.name).joined(separator: ", ")
            throw SigningIdentityError(.keyMismatch, "the private key does not belong to any certificate given (\(names))")
        }
        self.certificate = leaf
        self.chain = Array(CertificateChain(from: leaf, in: certificates.filter { $0 != leaf }).certificates.dropFirst())
        self.privateKey = privateKey
        self.keyType = keyType
    }

    /// This identity with its chain completed up to the root from `issuers` (DER; Apple's WWDR
    /// intermediate and root ship in Templates/certificates) where the file stopped short: Keychain
    /// Access exports the leaf alone, other tools the leaf and its intermediate. Xcode's signatures
    /// carry the whole chain, root included. An issuer is taken only when it names the certificate's
    /// issuer and its key verifies that certificate's signature (`CertificateChain`), so unrelated
    /// certificates never enter a signature; the file's own chain comes first, and a chain that
    /// already ends at a root is returned unchanged. Unreadable candidates are skipped.
    public func completingChain(from issuers: [[UInt8]]) -> SigningIdentity {
        if let last = chain.last, last.issuer == last.subject { return self }
        let candidates = chain + issuers.compactMap { try? Certificate(derEncoded: $0) }
        let linked = Array(CertificateChain(from: certificate, in: candidates).certificates.dropFirst())
        // Never fewer than the file carried (a chain of its own that the issuers cannot extend).
        guard linked.count > chain.count, Array(linked.prefix(chain.count)) == chain else { return self }
        var completed = self
        completed.chain = linked
        return completed
    }

    // MARK: What the certificate says

    /// The certificate's DER, as a profile's `DeveloperCertificates` lists it.
    public var certificateDER: [UInt8] {
        var serializer = DER.Serializer()
        // A certificate parsed from DER serializes back to its own bytes.
        try? serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// The subject's common name: `Apple Distribution: Example Corp (ABCDE12345)`.
    public var commonName: String? { attribute(.RDNAttributeType.commonName) }
    /// The subject's organizational unit: Apple's team ID.
    public var teamIdentifier: String? { attribute(.RDNAttributeType.organizationalUnitName) }

    /// The certificate's SHA-1 fingerprint in upper-case hex (what `codesign -s` accepts).
    public var sha1Fingerprint: String {
        Insecure.SHA1.hash(data: certificateDER).map { String(format: "%02X", $0) }.joined()
    }

    /// Why the certificate may not sign at `date` (expired, or not valid yet), or nil. Reported,
    /// not thrown: the signer decides.
    public func validityProblem(at date: Date) -> SigningIdentityError? {
        let name = CMSSignedData.name(certificate)
        if date < certificate.notValidBefore {
            return SigningIdentityError(
                .certificateNotYetValid, "the certificate \(name) is not valid before \(certificate.notValidBefore)")
        }
        if date > certificate.notValidAfter {
            return SigningIdentityError(.certificateExpired, "the certificate \(name) expired on \(certificate.notValidAfter)")
        }
        return nil
    }

    private func attribute(_ type: ASN1ObjectIdentifier) -> String? {
        for relative in certificate.subject {
            for attribute in relative where attribute.type == type {
                if let text = String(attribute.value) { return text }
            }
        }
        return nil
    }

    static func keyType(of key: Certificate.PublicKey) -> KeyType? {
        if P256.Signing.PublicKey(key) != nil { return .p256 }
        if P384.Signing.PublicKey(key) != nil { return .p384 }
        if let rsa = _RSA.Signing.PublicKey(key) { return .rsa(bits: rsa.keySizeInBits) }
        return nil
    }

    // MARK: Files

    /// Reads a whole identity file; unreadable is an I/O error, larger than any identity is
    /// `tooLarge`.
    static func contents(of path: String, tooLarge: SigningIdentityError.Reason) throws(SigningIdentityError) -> [UInt8] {
        let contents: [UInt8]?
        do {
            contents = try FileByteSource.contents(ofFile: path, limit: maximumFileSize)
        } catch {
            throw SigningIdentityError(.fileUnreadable, "cannot be read: \(error.detail)", file: path)
        }
        guard let bytes = contents else {
            throw SigningIdentityError(tooLarge, "the file is larger than \(maximumFileSize) bytes", file: path)
        }
        return bytes
    }
}
