import FormatSupport

/// Why bytes could not be read as a CMS `SignedData`, or why one could not be built.
///
/// Parsing never traps: every malformed or hostile input ends in one of these. Readers of
/// formats that carry CMS (provisioning profiles, code signatures) map them to their own codes.
/// Verification problems are not errors: `CMSSignedData.verify(content:at:)` reports them as
/// `CMSProblem`s.
public typealias CMSError = InputError<CMSErrorReason>

/// The stable code a user can search for: why CMS bytes were refused.
public enum CMSErrorReason: String, ErrorReason, CaseIterable {
    /// No bytes at all.
    case empty = "CMS_EMPTY"
    /// Larger than `CMSSignedData.maximumSize`.
    case tooLarge = "CMS_TOO_LARGE"
    /// The bytes end inside an ASN.1 element.
    case truncated = "CMS_TRUNCATED"
    /// Not BER/DER, or an element is malformed (bad length, nesting deeper than the parser's
    /// limit, bytes after the end of the outer element).
    case malformedASN1 = "CMS_MALFORMED_ASN1"
    /// Well-formed ASN.1 that is not a `ContentInfo` holding `SignedData`.
    case notSignedData = "CMS_NOT_SIGNED_DATA"
    /// The `SignedData` does not have the structure RFC 5652 §5 defines.
    case malformed = "CMS_MALFORMED"
    /// A `SignerInfo` does not have the structure RFC 5652 §5.3 defines.
    case signerInvalid = "CMS_SIGNER_INVALID"
    /// A signed attribute is malformed, repeated, or has a value of the wrong type.
    case attributeInvalid = "CMS_ATTRIBUTE_INVALID"
    /// Building: the identity's key cannot sign (swift-crypto refused it).
    case signingFailed = "CMS_SIGNING_FAILED"
    /// Building: a key type this builder does not sign with, or a certificate it cannot encode.
    case unsupportedIdentity = "CMS_IDENTITY_UNSUPPORTED"
}
