/// The error an iOS device gives when installd or amfid refuses an app: its code (a MobileDevice
/// `0xe800…` code, or installd's error name) and its words, as `ideviceinstaller`, Xcode and other
/// install tools print them, so a finding can be matched with what a device said. The sources
/// are listed in docs/install-checks.md.
public struct InstallError: Codable, Sendable, Hashable {
    public let code: String
    public let message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `0xe8008015`: no profile fits (device, expiry, certificate, App ID, team).
    public static let noValidProfile = InstallError(
        "0xe8008015", "A valid provisioning profile for this executable was not found.")
    /// `0xe8008016`: the entitlements are not the profile's.
    public static let invalidEntitlements = InstallError(
        "0xe8008016", "The executable was signed with invalid entitlements.")
    /// `0xe8008017`: the seal does not hold.
    public static let resourceChanged = InstallError(
        "0xe8008017", "A signed resource has been added, modified, or deleted.")
    /// `0xe8008014`: the code's signature does not hold.
    public static let invalidSignature = InstallError(
        "0xe8008014", "The executable contains an invalid signature.")
    /// `0xe8008018`: the signing certificate is expired or revoked.
    public static let identityNoLongerValid = InstallError(
        "0xe8008018", "The identity used to sign the executable is no longer valid.")
    /// `0xe800801c`: code without a signature.
    public static let noCodeSignature = InstallError("0xe800801c", "No code signature found.")
}
