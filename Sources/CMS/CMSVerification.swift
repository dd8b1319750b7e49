import Foundation
import SwiftASN1
import X509

/// One thing verification found wrong, with a stable code. `kind` says what it means:
/// a broken signature (`integrity`), a chain the CMS does not complete (`chain`), or a
/// certificate outside its validity period at the date asked about (`validity`: expired is not
/// broken, the caller decides).
public struct CMSProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case integrity
        case chain
        case validity
    }

    public enum Code: String, Sendable, CaseIterable {
        /// The SignedData has no SignerInfo.
        case noSigner = "CMS_NO_SIGNER"
        /// The signature is detached and no content was given to verify it against.
        case contentMissing = "CMS_CONTENT_MISSING"
        /// More certificates than `CMSSignedData.maximumCertificates`: not judged.
        case tooManyCertificates = "CMS_TOO_MANY_CERTIFICATES"
        /// No certificate in the CMS matches the signer's identifier.
        case certificateMissing = "CMS_SIGNER_CERTIFICATE_MISSING"
        /// A digest or signature algorithm (or key type) this verifier does not support.
        case algorithmUnsupported = "CMS_ALGORITHM_UNSUPPORTED"
        /// The signed attributes lack contentType or messageDigest.
        case attributeMissing = "CMS_ATTRIBUTE_MISSING"
        /// The contentType attribute differs from the encapsulated content type.
        case contentTypeMismatch = "CMS_CONTENT_TYPE_MISMATCH"
        /// The messageDigest attribute is not the digest of the content.
        case digestMismatch = "CMS_DIGEST_MISMATCH"
        /// The signature does not verify with the signer certificate's key.
        case signatureInvalid = "CMS_SIGNATURE_INVALID"
        /// A certificate's signature does not verify with the key of the certificate named as its issuer.
        case chainBroken = "CMS_CHAIN_BROKEN"
        /// The CMS carries no issuer for a certificate that is not self-signed (or the chain is
        /// longer than `maximumChainLength`).
        case chainIncomplete = "CMS_CHAIN_INCOMPLETE"
        /// A certificate in the CMS is not a readable X.509 certificate.
        case certificateUnreadable = "CMS_CERTIFICATE_UNREADABLE"
        /// A certificate of the chain expired before the date.
        case certificateExpired = "CMS_CERTIFICATE_EXPIRED"
        /// A certificate of the chain is not valid yet at the date.
        case certificateNotYetValid = "CMS_CERTIFICATE_NOT_YET_VALID"

        public var kind: Kind {
            switch self {
            case .chainIncomplete, .certificateUnreadable: .chain
            case .certificateExpired, .certificateNotYetValid: .validity
            default: .integrity
            }
        }
    }

    public let code: Code
    /// One sentence naming what is wrong (the signer and the certificate by common name).
    public let message: String

    public var kind: Kind { code.kind }
    public var description: String { "\(code.rawValue): \(message)" }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// What verifying one SignerInfo found.
public struct CMSSignerVerification: Sendable {
    /// The SignerInfo's position in `signerInfos` (0-based).
    public let index: Int
    /// The certificate the signer names, when the CMS carries it.
    public let certificate: Certificate?
    /// The chain as it links by issuer and signature: the signer's certificate first, then each
    /// issuer, ending at a self-signed root when the CMS carries one.
    public let chain: [Certificate]
    public let problems: [CMSProblem]

    /// Whether nothing is broken: digest, signature and chain links hold (the chain may still be
    /// incomplete, or a certificate expired: see `problems`).
    public var isIntact: Bool { !problems.contains { $0.kind == .integrity } }

    /// The last certificate of the chain when it is self-signed: the root the caller compares
    /// with the roots it trusts (Apple's, for a code signature).
    public var root: Certificate? { CertificateChain.root(of: chain) }
}

/// The result of `CMSSignedData.verify(content:at:)`.
public struct CMSVerification: Sendable {
    /// One result per SignerInfo, in order.
    public let signers: [CMSSignerVerification]
    /// Every problem: those of the SignedData itself first, then each signer's.
    public let problems: [CMSProblem]

    /// Whether nothing is broken for any signer (and there is one).
    public var isIntact: Bool { !problems.contains { $0.kind == .integrity } }

    public func problems(of kind: CMSProblem.Kind) -> [CMSProblem] {
        problems.filter { $0.kind == kind }
    }
}

extension CMSSignedData {
    /// More certificates than any real chain has; a CMS with more is not judged (a hostile
    /// count costs no certificate parsing).
    public static let maximumCertificates = 64
    /// Links followed from the signer's certificate towards a root.
    public static let maximumChainLength = 10

    /// Verifies every signer: the messageDigest attribute against the content's digest, the
    /// contentType attribute, the signature over the signed attributes (or over the content
    /// when there are none) with the signer certificate's key, the chain the CMS carries by
    /// issuer and signature, and each chain certificate's validity at `date`.
    ///
    /// - Parameter content: the signed bytes of a detached signature (a code signature's
    ///   CodeDirectory); nil to verify the encapsulated content.
    public func verify(content detachedContent: [UInt8]? = nil, at date: Date) -> CMSVerification {
        var envelope: [CMSProblem] = []
        guard !signerInfos.isEmpty else {
            return CMSVerification(signers: [], problems: [CMSProblem(.noSigner, "the SignedData has no SignerInfo")])
        }
        guard let signedContent = detachedContent ?? (isDetached ? nil : content) else {
            return CMSVerification(signers: [], problems: [
                CMSProblem(.contentMissing, "the signature is detached and no content was given to verify it against"),
            ])
        }
        guard certificates.count <= Self.maximumCertificates else {
            return CMSVerification(signers: [], problems: [
                CMSProblem(
                    .tooManyCertificates,
                    "the SignedData carries \(certificates.count) certificates, more than the \(Self.maximumCertificates) "
                        + "a chain can need; not verified"),
            ])
        }
        var readable: [Certificate] = []
        for (index, der) in certificates.enumerated() {
            if let certificate = try? Certificate(derEncoded: der) {
                readable.append(certificate)
            } else {
                envelope.append(CMSProblem(
                    .certificateUnreadable, "certificate \(index + 1) of the SignedData \(CertificateDiagnosis.unreadable(der))"))
            }
        }
        let signers = signerInfos.enumerated().map { index, signer in
            verify(signer, index: index, content: signedContent, certificates: readable, at: date)
        }
        return CMSVerification(signers: signers, problems: envelope + signers.flatMap(\.problems))
    }

    private func verify(
        _ signer: CMSSignerInfo, index: Int, content: [UInt8], certificates: [Certificate], at date: Date
    ) -> CMSSignerVerification {
        let label = signerInfos.count == 1 ? "the signer" : "signer \(index + 1)"
        var problems: [CMSProblem] = []
        func result(_ certificate: Certificate?, _ chain: [Certificate]) -> CMSSignerVerification {
            CMSSignerVerification(index: index, certificate: certificate, chain: chain, problems: problems)
        }
        let certificate = certificates.first { Self.matches(signer.identifier, $0) }
        if certificate == nil {
            problems.append(CMSProblem(.certificateMissing, "no certificate in the SignedData matches \(label)'s identifier"))
        }
        guard let digest = signer.digestAlgorithm else {
            problems.append(CMSProblem(
                .algorithmUnsupported,
                "\(label) uses the digest algorithm \(CMSObjectIdentifier.name(of: signer.digestAlgorithmIdentifier))"))
            return result(certificate, certificate.map { [$0] } ?? [])
        }

        // What the signature covers: the signed attributes, which bind the content by its digest.
        let signedBytes: [UInt8]
        if let attributes = signer.signedAttributes {
            signedBytes = attributes.derEncoded
            if let type = attributes.contentType {
                if type != contentType {
                    problems.append(CMSProblem(
                        .contentTypeMismatch,
                        "\(label)'s contentType attribute is \(CMSObjectIdentifier.name(of: type)), the content is "
                            + CMSObjectIdentifier.name(of: contentType)))
                }
            } else {
                problems.append(CMSProblem(.attributeMissing, "\(label)'s signed attributes have no contentType"))
            }
            if let messageDigest = attributes.messageDigest {
                if messageDigest != digest.digest(content) {
                    problems.append(CMSProblem(
                        .digestMismatch, "\(label)'s messageDigest is not the \(digest.rawValue) digest of the signed content"))
                }
            } else {
                problems.append(CMSProblem(.attributeMissing, "\(label)'s signed attributes have no messageDigest"))
            }
        } else {
            signedBytes = content
        }

        guard let certificate else { return result(nil, []) }
        if let algorithm = CMSObjectIdentifier.signatureAlgorithm(signer.signatureAlgorithmIdentifier, digest: digest) {
            if !certificate.publicKey.isValidSignature(signer.signature, for: signedBytes, signatureAlgorithm: algorithm) {
                problems.append(CMSProblem(
                    .signatureInvalid, "\(label)'s signature does not verify with the key of \(Self.name(certificate))"))
            }
        } else {
            problems.append(CMSProblem(
                .algorithmUnsupported,
                "\(label) uses the signature algorithm \(CMSObjectIdentifier.name(of: signer.signatureAlgorithmIdentifier)) "
                    + "with \(digest.rawValue)"))
        }

        let linked = CertificateChain(from: certificate, in: certificates, maximumLength: Self.maximumChainLength)
        problems += linked.problems
        let chain = linked.certificates
        for link in chain {
            if date < link.notValidBefore {
                problems.append(CMSProblem(
                    .certificateNotYetValid,
                    "\(Self.name(link)) is not valid before \(Self.timestamp(link.notValidBefore))"))
            } else if date > link.notValidAfter {
                problems.append(CMSProblem(
                    .certificateExpired, "\(Self.name(link)) expired on \(Self.timestamp(link.notValidAfter))"))
            }
        }
        return result(certificate, chain)
    }

    /// Whether `certificate` is the one a SignerInfo names.
    static func matches(_ identifier: CMSSignerInfo.Identifier, _ certificate: Certificate) -> Bool {
        switch identifier {
        case .issuerAndSerialNumber(let issuer, let serial):
            guard let node = try? DER.parse(issuer), let name = try? DistinguishedName(derEncoded: node) else { return false }
            return name == certificate.issuer && Certificate.SerialNumber(bytes: serial) == certificate.serialNumber
        case .subjectKeyIdentifier(let keyIdentifier):
            guard let extensionValue = try? certificate.extensions.subjectKeyIdentifier else { return false }
            return Array(extensionValue.keyIdentifier) == keyIdentifier
        }
    }

    /// A certificate's common name in quotes, else its subject.
    public static func name(_ certificate: Certificate) -> String {
        for relative in certificate.subject {
            for attribute in relative where attribute.type == ASN1ObjectIdentifier.RDNAttributeType.commonName {
                if let text = String(attribute.value) { return "\"\(text)\"" }
            }
        }
        return "\"\(certificate.subject)\""
    }

    private static func timestamp(_ date: Date) -> String {
        UTCFields(date).iso8601
    }
}
