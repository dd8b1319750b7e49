import FormatSupport

/// Why an archive's app cannot be read as an iOS app (exit 65).
public enum BundleError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        case infoPlistMissing = "BUNDLE_INFO_PLIST_MISSING"
        case infoPlistInvalid = "BUNDLE_INFO_PLIST_INVALID"
        case entryMissing = "BUNDLE_ENTRY_MISSING"
        case nestingTooDeep = "BUNDLE_NESTING_LIMIT"
        case tooManyBundles = "BUNDLE_COUNT_LIMIT"
    }

    case infoPlistMissing(archive: String, path: String)
    case infoPlistInvalid(archive: String, path: String, reason: String)
    case entryMissing(archive: String, path: String)
    /// Bundle folders nested deeper than `AppArchive.maximumBundleNesting`.
    case nestingTooDeep(archive: String, path: String, limit: Int)
    /// More bundle folders than `AppArchive.maximumBundleFolders`.
    case tooManyBundles(archive: String, limit: Int)

    public var reason: Reason {
        switch self {
        case .infoPlistMissing: .infoPlistMissing
        case .infoPlistInvalid: .infoPlistInvalid
        case .entryMissing: .entryMissing
        case .nestingTooDeep: .nestingTooDeep
        case .tooManyBundles: .tooManyBundles
        }
    }

    public var description: String {
        switch self {
        case .infoPlistMissing(let archive, let path):
            "\(archive): the app has no Info.plist at \(path)"
        case .infoPlistInvalid(let archive, let path, let reason):
            "\(archive): \(path) is not a usable property list (\(reason))"
        case .entryMissing(let archive, let path):
            "\(archive): \(path) is not in the archive"
        case .nestingTooDeep(let archive, let path, let limit):
            "\(archive): \(path) lies inside \(limit) other bundle folders; ipawrap reads at most \(limit) levels of bundles within bundles"
        case .tooManyBundles(let archive, let limit):
            "\(archive): the app holds more than \(limit) bundle folders (.app, .appex, .framework, .xctest, .bundle, .xpc), more than ipawrap reads"
        }
    }
}
