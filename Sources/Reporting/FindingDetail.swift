/// The facts of a finding, by area: each area's detail holds them as types (paths, names,
/// counts, dates, lists), names the finding's code (`code`) and computes its message from them in
/// one place, so a check builds a finding from its facts alone and cannot pair them with another
/// code. A new finding of an area is a new case of that area's detail (`FindingDetail+Area.swift`).
public enum FindingDetail: Sendable, Hashable {
    case icon(IconDetail)
    case bundle(BundleDetail)
    case binary(BinaryDetail)
    case profile(ProfileDetail)
    case wrapping(WrappingDetail)
    case signature(SignatureDetail)
    case install(InstallDetail)
    /// A finding without typed facts: one read back from JSON, which carries the words, not the facts.
    case recorded(RecordedFinding)

    /// The finding's code: the area detail's own, or the catalogue's entry for a recorded finding's
    /// code (nil when this build does not know it).
    public var code: FindingCode? {
        switch self {
        case .icon(let detail): detail.code
        case .bundle(let detail): detail.code
        case .binary(let detail): detail.code
        case .profile(let detail): detail.code
        case .wrapping(let detail): detail.code
        case .signature(let detail): detail.code
        case .install(let detail): detail.code
        case .recorded(let recorded): recorded.code
        }
    }

    /// The code's stable name, e.g. `APP_ID_WILDCARD`; a recorded finding's as it was written.
    public var codeName: String {
        if case .recorded(let recorded) = self { return recorded.codeName }
        return code?.rawValue ?? ""
    }

    /// What to do about it: the code's remedy, or one the area computes from the facts (a version,
    /// a bundle ID, an App ID); a recorded finding's as it was written.
    public var remedy: String? {
        switch self {
        case .binary(let detail): detail.remedy
        case .profile(let detail): detail.remedy
        case .recorded(let recorded): recorded.remedy
        default: code?.remedy
        }
    }

    /// The error a device would give: the code's, or the one the facts call for; a recorded finding's as written.
    public var installError: InstallError? {
        switch self {
        case .profile(let detail): detail.installError
        case .recorded(let recorded): recorded.installError
        default: code?.installError
        }
    }

    /// The finding's sentence.
    public var message: String {
        switch self {
        case .icon(let detail): detail.message
        case .bundle(let detail): detail.message
        case .binary(let detail): detail.message
        case .profile(let detail): detail.message
        case .wrapping(let detail): detail.message
        case .signature(let detail): detail.message
        case .install(let detail): detail.message
        case .recorded(let recorded): recorded.message
        }
    }
}

/// A finding as JSON has it: its code's name, its sentence, remedy and device error. The code is resolved against the
/// catalogue once, here, so renderers read a recorded finding's summary and remedy from the typed
/// code as they do a check's, and only a code this build does not know stays a bare name.
public struct RecordedFinding: Sendable, Hashable {
    public let codeName: String
    /// The catalogue's entry for `codeName`, nil when this build does not know it.
    public let code: FindingCode?
    public let message: String
    public let remedy: String?
    public let installError: InstallError?

    /// Internal: only a finding read back (or a test's) is recorded; a check builds its area's detail.
    init(code: String, message: String, remedy: String?, installError: InstallError?) {
        codeName = code
        self.code = FindingCode.named(code)
        self.message = message
        self.remedy = remedy
        self.installError = installError
    }
}
