import CodeSignature
import Foundation
import PropertyList
import ProvisioningProfile
import SigningIdentity
import Zip

/// How `sign` and `wrap --sign` sign: the identity, the time written into every CMS, and
/// entitlement overrides by bundle ID.
public struct SigningRequest: Sendable {
    public var identity: SigningIdentity
    /// `--signing-time` or `SOURCE_DATE_EPOCH`; with the same input this makes the output
    /// byte-for-byte reproducible (RSA signatures are deterministic).
    public var signingTime: Date
    /// `--entitlements BUNDLE_ID=FILE`, parsed: used instead of the profile's entitlements, each
    /// key checked against the profile.
    public var entitlements: [String: PropertyListDictionary]

    public init(identity: SigningIdentity, signingTime: Date, entitlements: [String: PropertyListDictionary] = [:]) {
        self.identity = identity
        self.signingTime = signingTime
        self.entitlements = entitlements
    }
}

/// The profile a bundle is signed with (as `check` assigned it) and the bytes that become its
/// `embedded.mobileprovision` (nil keeps the embedded one that is there).
public struct BundleProfile: Sendable {
    public var bundlePath: String
    public var profile: ProvisioningProfile
    public var profileBytes: [UInt8]?
    /// Where the profile came from, for messages.
    public var file: String

    public init(bundlePath: String, profile: ProvisioningProfile, profileBytes: [UInt8]?, file: String) {
        self.bundlePath = bundlePath
        self.profile = profile
        self.profileBytes = profileBytes
        self.file = file
    }
}

/// What `ArchiveSigner` made of an archive: the entries to write, and the facts of every new
/// signature (what `inspect` would read back from them), for reports.
public struct SignedArchive: Sendable {
    public let edits: ArchiveEdits
    /// Every bundle signed, in the bundle model's order (the app first).
    public let bundles: [SignedBundle]
    /// The signing certificate's team (its OU), written into every CodeDirectory.
    public let teamIdentifier: String?
    /// The signing certificate's subject and the end of its validity.
    public let certificateSubject: String
    public let certificateExpiry: Date
}

/// One bundle's new signature.
public struct SignedBundle: Sendable, Equatable {
    public let path: String
    /// The CodeDirectory identifier (the bundle ID).
    public let identifier: String
    /// The main executable's primary cdhash (its first slice's).
    public let cdhash: [UInt8]
    /// Its first slice's CodeDirectory hash types, primary first.
    public let hashTypes: [HashType]
}
