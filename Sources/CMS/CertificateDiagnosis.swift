import SwiftASN1

/// Why a certificate swift-certificates would not read is unusable, in words a user can act on.
///
/// `Certificate(derEncoded:)` builds the public key as it parses, and swift-crypto takes only the
/// keys code signing can use (RSA of 2048 bits or more, P-256, P-384, P-521, Ed25519): a
/// well-formed certificate with a 1024-bit RSA key is refused like a damaged one. This reads the
/// certificate's structure alone (SwiftASN1's DER reader, bounded in depth) to tell the two apart.
public enum CertificateDiagnosis {
    /// The smallest RSA key, in bits, that code signing (and swift-crypto) accepts.
    public static let minimumRSABits = 2048

    /// The sentence for a certificate `Certificate(derEncoded:)` refused: what is wrong with its
    /// key when the DER is a certificate whose key swift-crypto does not take, else that it is not
    /// a readable X.509 certificate. It follows "the certificate …" or "certificate 2 …".
    public static func unreadable(_ der: [UInt8]) -> String {
        keyProblem(der) ?? "is not a readable X.509 certificate"
    }

    /// What is wrong with the public key of a well-formed certificate, or nil when it is not one
    /// or its key is not the reason.
    static func keyProblem(_ der: [UInt8]) -> String? {
        guard let root = try? DER.parse(der), let certificate = children(of: root), certificate.count == 3,
              let fields = children(of: certificate[0]) else { return nil }
        // TBSCertificate: [0] version (optional), serial, signature, issuer, validity, subject, key.
        let key = fields.first?.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) ? 6 : 5
        guard fields.count > key, let info = children(of: fields[key]), info.count == 2,
              let algorithm = children(of: info[0]), let oid = algorithm.first,
              let identifier = try? ASN1ObjectIdentifier(derEncoded: oid) else { return nil }
        switch identifier {
        case .AlgorithmIdentifier.rsaEncryption:
            guard let bits = rsaModulusBits(info[1]) else { return "has an RSA key that cannot be read" }
            return bits < minimumRSABits
                ? "has a \(bits)-bit RSA key: too small; code signing needs \(minimumRSABits) bits or more (Apple issues 2048-bit keys)"
                : nil
        case .AlgorithmIdentifier.idEcPublicKey:
            guard algorithm.count == 2, let curve = try? ASN1ObjectIdentifier(derEncoded: algorithm[1]) else {
                return "has an EC key that names no curve"
            }
            let usable: [ASN1ObjectIdentifier] = [
                .NamedCurves.secp256r1, .NamedCurves.secp384r1, .NamedCurves.secp521r1,
            ]
            return usable.contains(curve) ? nil : "has an EC key on the curve \(curve), not P-256, P-384 or P-521"
        case [1, 3, 101, 112]:  // Ed25519
            return nil
        default:
            return "has a key of the algorithm \(identifier), which code signing does not use (RSA or ECDSA)"
        }
    }

    /// The bit length of the modulus of an RSA `SubjectPublicKeyInfo`'s BIT STRING
    /// (`RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }`).
    static func rsaModulusBits(_ node: ASN1Node) -> Int? {
        guard let bits = try? ASN1BitString(derEncoded: node), bits.paddingBits == 0,
              let key = try? DER.parse(Array(bits.bytes)), let parts = children(of: key), parts.count == 2,
              case .primitive(let modulus) = parts[0].content, parts[0].identifier == .integer else { return nil }
        // DER integers are minimal: a leading zero byte only keeps a high first bit positive.
        let magnitude = modulus.drop { $0 == 0 }
        guard let first = magnitude.first else { return 0 }
        return (magnitude.count - 1) * 8 + (8 - first.leadingZeroBitCount)
    }

    /// The elements of a constructed node (a SEQUENCE), or nil for a primitive one.
    private static func children(of node: ASN1Node) -> [ASN1Node]? {
        guard case .constructed(let nodes) = node.content else { return nil }
        return Array(nodes)
    }
}
