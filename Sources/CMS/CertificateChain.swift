import X509

/// A certificate and the issuers that certify it, linked by name and signature: how a CMS's
/// chain is checked, and how a signing identity orders the certificates its file carries.
public struct CertificateChain: Sendable {
    /// The leaf first, then each issuer, ending at a self-signed root when one is there.
    public let certificates: [Certificate]
    /// What stopped the chain short of a root, or broke it: `CMS_CHAIN_INCOMPLETE` (no issuer
    /// among the candidates, or too long) or `CMS_CHAIN_BROKEN` (a signature that does not verify).
    public let problems: [CMSProblem]

    /// Follows issuers from `leaf` through `candidates` (each used once, so a loop ends) while
    /// each signature verifies, up to a self-signed certificate, whose own signature must verify.
    public init(from leaf: Certificate, in candidates: [Certificate], maximumLength: Int = 10) {
        var chain = [leaf]
        var problems: [CMSProblem] = []
        var current = leaf
        while true {
            if current.issuer == current.subject {
                if !current.publicKey.isValidSignature(current.signature, for: current) {
                    problems.append(CMSProblem(
                        .chainBroken, "the self-signed \(CMSSignedData.name(current))'s signature does not verify"))
                }
                break
            }
            guard chain.count < maximumLength else {
                problems.append(CMSProblem(
                    .chainIncomplete, "the chain is longer than \(maximumLength) certificates without reaching a root"))
                break
            }
            let issuers = candidates.filter { $0.subject == current.issuer && !chain.contains($0) }
            guard let first = issuers.first else {
                problems.append(CMSProblem(
                    .chainIncomplete, "no issuer of \(CMSSignedData.name(current)) (\(current.issuer)) is there"))
                break
            }
            guard let issuer = issuers.first(where: { $0.publicKey.isValidSignature(current.signature, for: current) })
            else {
                problems.append(CMSProblem(
                    .chainBroken,
                    "\(CMSSignedData.name(current))'s signature does not verify with the key of its issuer "
                        + CMSSignedData.name(first)))
                break
            }
            chain.append(issuer)
            current = issuer
        }
        self.certificates = chain
        self.problems = problems
    }

    /// The root when the chain ends at a self-signed certificate.
    public var root: Certificate? { Self.root(of: certificates) }

    /// The last of `chain` when it is self-signed.
    static func root(of chain: [Certificate]) -> Certificate? {
        guard let last = chain.last, last.issuer == last.subject else { return nil }
        return last
    }
}
