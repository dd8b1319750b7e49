import Policy

/// The facts of the findings `wrap` adds to the checks'.
public enum WrappingDetail: Sendable, Hashable {
    /// `ALREADY_WRAPPED`: the app already holds the policy bundle.
    case alreadyWrapped(appPath: String, policyFolder: String)
    /// `SIGNATURE_INVALIDATED`: adding the policy bundle breaks the app's seal.
    case signatureInvalidated(appPath: String, policyFolder: String, seal: SealChange)
    /// `POLICY_MODE_DIFFERS`: `--mode` against the policy's own mode.
    case policyModeDiffers(requested: AppMode, policyMode: AppMode, policyName: String)

    /// How the policy bundle's files fall under the app's seal.
    public enum SealChange: Sendable, Hashable {
        /// The seal (CodeResources) cannot be read.
        case unreadable
        /// `paths` must be sealed (by the `rules2` rules, or the old `rules`) but are not.
        case unsealed(paths: [String], byRules2: Bool)
    }

    /// The code these facts are reported under.
    public var code: FindingCode {
        switch self {
        case .alreadyWrapped: .alreadyWrapped
        case .signatureInvalidated: .signatureInvalidated
        case .policyModeDiffers: .policyModeDiffers
        }
    }

    public var message: String {
        switch self {
        case .alreadyWrapped(let appPath, let policyFolder):
            return "\(appPath) already holds \(policyFolder)"
        case .signatureInvalidated(let appPath, let policyFolder, let seal):
            let broken: String = switch seal {
            case .unreadable:
                "its seal cannot be read to say which files it covers"
            case .unsealed(let paths, let byRules2):
                paths.joined(separator: " and ") + (paths.count == 1 ? " is" : " are")
                    + " not in the seal, which \(byRules2 ? "rules2" : "rules") say must cover "
                    + (paths.count == 1 ? "it" : "them")
            }
            return "\(appPath) is signed (_CodeSignature/CodeResources); adding \(policyFolder) "
                + "changes its sealed contents (\(broken)), so the signature no longer matches"
        case .policyModeDiffers(let requested, let policyMode, let policyName):
            return "--mode \(requested.rawValue) differs from the \(policyMode.rawValue) mode of the policy '\(policyName)'"
        }
    }
}
