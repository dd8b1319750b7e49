/// The facts of a finding, by area: each area's detail holds them as types (paths, names,
/// counts, dates, lists) and computes the finding's message from them in one place. A new
/// finding of an area is a new case of that area's detail (`FindingDetail+Area.swift`).
public enum FindingDetail: Sendable, Hashable {
    case icon(IconDetail)
    case bundle(BundleDetail)
    case binary(BinaryDetail)
    case profile(ProfileDetail)
    case wrapping(WrappingDetail)
    case signature(SignatureDetail)
    case install(InstallDetail)
    /// A message without typed facts: a finding read back from JSON.
    case text(String)

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
        case .text(let message): message
        }
    }
}
