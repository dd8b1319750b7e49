import CMS
import FormatSupport

/// Why bytes could not be read as a provisioning profile (or as DER entitlements).
///
/// Every malformed or hostile input ends in one of these, never in a trap: `ipawrap profile show`
/// prints it and exits 65 (74 for a file that cannot be read), and a check turns an embedded
/// profile's error into the finding `PROFILE_UNREADABLE`.
public typealias ProfileError = InputError<ProfileErrorReason>

/// The stable code a user can search for: why a profile was refused.
public enum ProfileErrorReason: String, ErrorReason, CaseIterable {
    /// The file is empty.
    case empty = "PROFILE_EMPTY"
    /// Larger than `ProvisioningProfile.maximumSize`; real profiles are a few dozen KiB.
    case tooLarge = "PROFILE_TOO_LARGE"
    /// The bytes end inside an ASN.1 element (a cut-off download or copy).
    case truncated = "PROFILE_TRUNCATED"
    /// The bytes are not BER/DER at all, or an element is malformed (bad length, excessive
    /// nesting, bytes after the end of the outer element).
    case malformedASN1 = "PROFILE_MALFORMED_ASN1"
    /// Well-formed ASN.1 that is not a CMS `ContentInfo` holding `SignedData`.
    case notSignedData = "PROFILE_NOT_SIGNED_DATA"
    /// The `SignedData` does not have the structure RFC 5652 defines.
    case malformedCMS = "PROFILE_MALFORMED_CMS"
    /// The `SignedData` carries no content (a detached signature) or content that is not `id-data`.
    case noContent = "PROFILE_NO_CONTENT"
    /// The signed content is not a property list whose root is a dictionary.
    case plistInvalid = "PROFILE_PLIST_INVALID"
    /// A field the profile must have is missing, or a field has the wrong type.
    case fieldInvalid = "PROFILE_FIELD_INVALID"
    /// Signed entitlements that are not a dictionary. (Malformed DER entitlements are a
    /// `CodeSignatureError` with this same code.)
    case entitlementsInvalid = "ENTITLEMENTS_DER_INVALID"
    /// The profile file cannot be read from disk (missing, a folder, no permission).
    case fileUnreadable = "PROFILE_FILE_UNREADABLE"

    /// A file that cannot be read is an I/O error (exit 74), the rest invalid input.
    public var category: ErrorCategory { self == .fileUnreadable ? .io : .invalidInput }
}

extension ProfileError {
    /// A CMS reading error as the profile error it has always been: the ASN.1 codes carry over,
    /// every structural one is `PROFILE_MALFORMED_CMS`.
    init(_ error: CMSError) {
        switch error.reason {
        case .empty: self.init(.empty, "the file is empty")
        case .tooLarge: self.init(.tooLarge, error.message)
        case .truncated: self.init(.truncated, error.message)
        case .malformedASN1: self.init(.malformedASN1, error.message)
        case .notSignedData: self.init(.notSignedData, error.message)
        case .malformed, .signerInvalid, .attributeInvalid, .signingFailed, .unsupportedIdentity:
            self.init(.malformedCMS, error.message)
        }
    }
}
