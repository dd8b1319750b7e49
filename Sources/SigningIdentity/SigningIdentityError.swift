import FormatSupport

/// Why a signing identity could not be loaded, or why it may not sign at a date.
public typealias SigningIdentityError = InputError<SigningIdentityErrorReason>

/// The stable code a user can search for: why a signing identity was refused.
public enum SigningIdentityErrorReason: String, ErrorReason, CaseIterable {
    /// The file cannot be read (missing, a folder, no permission): an I/O error.
    case fileUnreadable = "IDENTITY_FILE_UNREADABLE"
    /// The bytes are not a PKCS #12 file (or one larger than any identity).
    case notPKCS12 = "IDENTITY_NOT_PKCS12"
    /// The password does not open the file (its MAC does not verify) or the encrypted key.
    case wrongPassword = "IDENTITY_WRONG_PASSWORD"
    /// The MAC verified but a bag could not be decrypted (an algorithm libcrypto lacks).
    case decryptionFailed = "IDENTITY_DECRYPTION_FAILED"
    /// The file holds no certificate.
    case noCertificate = "IDENTITY_NO_CERTIFICATE"
    /// The file holds no private key.
    case noPrivateKey = "IDENTITY_NO_PRIVATE_KEY"
    /// No certificate in the files belongs to the private key.
    case keyMismatch = "IDENTITY_KEY_MISMATCH"
    /// A key type code signing does not use here (RSA under 2048 bits, curves other than
    /// P-256 and P-384, Ed25519…).
    case unsupportedKey = "IDENTITY_KEY_UNSUPPORTED"
    /// A certificate file that is neither PEM nor DER X.509.
    case certificateInvalid = "IDENTITY_CERTIFICATE_INVALID"
    /// A key file libcrypto cannot read as a private key.
    case keyInvalid = "IDENTITY_KEY_INVALID"
    /// The certificate's validity ended before the date asked about.
    case certificateExpired = "IDENTITY_CERTIFICATE_EXPIRED"
    /// The certificate is not valid yet at the date asked about.
    case certificateNotYetValid = "IDENTITY_CERTIFICATE_NOT_YET_VALID"
    /// A key derivation (the MAC's, an encryption's) asks for more iterations than
    /// `KeyDerivationBudget` allows, or for one whose cost cannot be bounded: refused before it runs.
    case keyDerivationLimit = "IDENTITY_KEY_DERIVATION_LIMIT"
    /// Loading the identity took longer than `--time-limit` (the code every time limit has).
    case timeLimit = "ARCHIVE_TIME_LIMIT"

    /// A file that cannot be read is an I/O error (exit 74), the rest invalid input.
    public var category: ErrorCategory { self == .fileUnreadable ? .io : .invalidInput }
}
