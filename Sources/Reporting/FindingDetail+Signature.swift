/// The facts of `verify`'s findings (docs/commands.md, "`verify`"): which code, which part of its signature,
/// and what differs. Problems the readers describe (a Mach-O, CMS or CodeResources error) are kept
/// as their one-line descriptions.
public enum SignatureDetail: Sendable, Hashable {
    /// `SIGNATURE_MISSING`: a bundle without a main executable to carry a signature.
    case noExecutable(bundle: String)
    /// `SIGNATURE_MISSING`: a Mach-O (or one slice of it) without a code signature.
    case unsigned(code: CodeReference)
    /// `SIGNATURE_MISSING`: a signed bundle without `_CodeSignature/CodeResources`.
    case noCodeResources(bundle: String)
    /// `SIGNATURE_MALFORMED`: the executable is not a Mach-O that can be read.
    case unreadableMachO(file: String, problem: String)
    /// `SIGNATURE_MALFORMED`: a slice's code signature cannot be read.
    case unreadableSignature(code: CodeReference, problem: String)
    /// `SIGNATURE_MALFORMED`: CodeResources cannot be read as a seal.
    case unreadableCodeResources(bundle: String, problem: String)
    /// `SIGNATURE_MALFORMED`: CodeResources was read but the bundle cannot be checked against it.
    case uncheckableCodeResources(bundle: String, errorCode: String, problem: String)
    /// `SIGNATURE_PAGE_HASH_MISMATCH`: the CodeDirectory's page count does not fit the code.
    case pageCount(code: CodeReference, directory: CodeDirectoryReference, problem: String)
    /// `SIGNATURE_PAGE_HASH_MISMATCH`: these code pages (0-based) differ from their hashes.
    case pagesDiffer(code: CodeReference, directory: CodeDirectoryReference, pages: [Int], pageCount: Int)
    /// `SIGNATURE_SPECIAL_SLOT_MISMATCH`: a sealed special-slot item (Info.plist, the requirements...) is absent.
    case specialSlotItemMissing(code: CodeReference, item: String, hashType: String)
    /// `SIGNATURE_SPECIAL_SLOT_MISMATCH`: an item the signature must bind (the bundle's Info.plist
    /// or CodeResources, a blob of the signature) is there, but its special slot is empty.
    case specialSlotUnbound(code: CodeReference, item: String, hashType: String, slot: Int)
    /// `SIGNATURE_PAGE_HASH_MISMATCH`: the CodeDirectory's code limit is not where the signature
    /// begins, so code beyond it is not covered.
    case codeLimitShort(code: CodeReference, directory: CodeDirectoryReference, codeLimit: UInt64, signatureOffset: UInt64)
    /// `SIGNATURE_MALFORMED`: the XML and DER entitlements say different things.
    case entitlementEncodingsDiffer(code: CodeReference, keys: [String])
    /// `SIGNATURE_MALFORMED`: the entitlements blob cannot be read.
    case unreadableEntitlements(code: CodeReference, encoding: String, problem: String)
    /// `SIGNATURE_MALFORMED`: the embedded profile of a signed bundle cannot be read.
    case unreadableProfile(bundle: String, problem: String)
    /// `SIGNATURE_MISSING`: a sealed bundle's executable (named by its Info.plist) is gone.
    case sealedExecutableMissing(bundle: String)
    /// `SIGNATURE_CMS_INVALID`: several CodeDirectories, and no CDHashes attribute binding them.
    case cdHashesMissing(code: CodeReference, count: Int)
    /// `SIGNATURE_SPECIAL_SLOT_MISMATCH`: a special-slot item differs from its hash.
    case specialSlotItemDiffers(code: CodeReference, item: String, hashType: String, slot: Int)
    /// `SIGNATURE_CMS_INVALID`: the CMS blob cannot be parsed.
    case cmsUnreadable(code: CodeReference, errorCode: String, problem: String)
    /// `SIGNATURE_CMS_INVALID`, `SIGNATURE_CHAIN_INCOMPLETE` or `SIGNATURE_CERT_EXPIRED`, by `kind`:
    /// what the CMS verification found (digest, signature, chain or validity).
    case cmsProblem(code: CodeReference, kind: CMSProblemKind, problem: String)
    /// `SIGNATURE_CMS_INVALID`: the CDHashes (or CDHashes2) attribute does not list the CodeDirectories.
    case cdHashesNotListed(code: CodeReference, attribute: String)
    /// `SIGNATURE_SEAL_BROKEN`, `SIGNATURE_SEALED_FILE_MISSING`, `SIGNATURE_UNSEALED_FILE` or
    /// `SIGNATURE_NESTED_MISMATCH`, by `kind`: one file differs from the bundle's seal.
    case sealDiffers(bundle: String, kind: SealDifferenceKind, difference: String)
    /// `SIGNATURE_NESTED_MISMATCH`: nested code that holds by itself, but whose files are not the
    /// ones its parent sealed (the first differences, and how many in all).
    case nestedCodeSwapped(bundle: String, nested: String, differences: [String])
    /// `SIGNATURE_IDENTIFIER_MISMATCH`.
    case identifierMismatch(code: CodeReference, identifier: String, bundleID: String)
    /// `SIGNATURE_TEAM_MISMATCH`: signed by another team than the app (`nil`: the app's is unknown).
    case teamMismatch(bundle: String, team: String, appTeam: String?)
    /// `SIGNATURE_AD_HOC`.
    case adHoc(bundle: String)
    /// `SIGNATURE_CERTIFICATE_NOT_IN_PROFILE`: the signer, by name.
    case certificateNotInProfile(bundle: String, signer: String)
    /// `SIGNATURE_APP_IDENTIFIER_MISMATCH`: the signed application-identifier, the profile's App
    /// ID and the bundle ID, and what they resolve to (`nil`: no match).
    case appIdentifierMismatch(bundle: String, signed: String, appID: String, bundleID: String?, expected: String?)
    /// `SIGNATURE_ENTITLEMENT_NOT_GRANTED`.
    case entitlementNotGranted(bundle: String, key: String)
    /// `SIGNATURE_ENTITLEMENT_TYPE`: a signed entitlement is not of the type Apple gives it.
    case entitlementType(code: CodeReference, key: String, expected: String, actual: String)

    /// What the CMS verification found wrong, which decides the code.
    public enum CMSProblemKind: Sendable, Hashable {
        /// The digest, the signature or a chain link does not verify.
        case integrity
        /// The chain does not reach a root.
        case chain
        /// A certificate is expired or not yet valid at the date.
        case validity
    }

    /// How a file differs from its bundle's seal, which decides the code.
    public enum SealDifferenceKind: Sendable, Hashable {
        /// Its content, symlink target or kind changed.
        case changed
        /// A sealed file is gone.
        case missing
        /// A file the rules say must be sealed is not.
        case unsealed
        /// Nested code is not the one sealed (another cdhash or requirement).
        case nestedCodeChanged
    }

    /// The code these facts are reported under.
    public var code: FindingCode {
        switch self {
        case .noExecutable, .unsigned, .noCodeResources, .sealedExecutableMissing: .signatureMissing
        case .unreadableMachO, .unreadableSignature, .unreadableCodeResources, .uncheckableCodeResources,
             .entitlementEncodingsDiffer, .unreadableEntitlements, .unreadableProfile:
            .signatureMalformed
        case .pageCount, .pagesDiffer, .codeLimitShort: .signaturePageHashMismatch
        case .specialSlotItemMissing, .specialSlotUnbound, .specialSlotItemDiffers: .signatureSpecialSlotMismatch
        case .cdHashesMissing, .cmsUnreadable, .cdHashesNotListed: .signatureCMSInvalid
        case .cmsProblem(_, let kind, _):
            switch kind {
            case .integrity: .signatureCMSInvalid
            case .chain: .signatureChainIncomplete
            case .validity: .signatureCertificateExpired
            }
        case .sealDiffers(_, let kind, _):
            switch kind {
            case .changed: .signatureSealBroken
            case .missing: .signatureSealedFileMissing
            case .unsealed: .signatureUnsealedFile
            case .nestedCodeChanged: .signatureNestedMismatch
            }
        case .nestedCodeSwapped: .signatureNestedMismatch
        case .identifierMismatch: .signatureIdentifierMismatch
        case .teamMismatch: .signatureTeamMismatch
        case .adHoc: .signatureAdHoc
        case .certificateNotInProfile: .signatureCertificateNotInProfile
        case .appIdentifierMismatch: .signatureAppIDMismatch
        case .entitlementNotGranted: .signatureEntitlementNotGranted
        case .entitlementType: .signatureEntitlementType
        }
    }

    public var message: String {
        switch self {
        case .noExecutable(let bundle):
            "\(bundle) has no main executable to carry a code signature"
        case .unsigned(let code):
            "\(code) has no code signature"
        case .noCodeResources(let bundle):
            "\(bundle) has no _CodeSignature/CodeResources: its resources are not sealed"
        case .unreadableMachO(let file, let problem):
            "\(file) is not a readable Mach-O: \(problem)"
        case .unreadableSignature(let code, let problem):
            "the code signature of \(code) cannot be read: \(problem)"
        case .unreadableCodeResources(let bundle, let problem):
            "\(bundle)/_CodeSignature/CodeResources cannot be read: \(problem)"
        case .uncheckableCodeResources(let bundle, let errorCode, let problem):
            "\(bundle)/_CodeSignature/CodeResources cannot be checked: \(errorCode): \(problem)"
        case .pageCount(let code, let directory, let problem):
            "\(code): \(directory): \(problem)"
        case .pagesDiffer(let code, let directory, let pages, let pageCount):
            "\(code): \(pages.count) of \(pageCount) code pages differ from \(directory) (page "
                + pages.prefix(5).map(String.init).joined(separator: ", ") + (pages.count > 5 ? ", …" : "") + ")"
        case .specialSlotItemMissing(let code, let item, let hashType):
            "\(code): \(item) is sealed by the \(hashType) CodeDirectory but missing"
        case .specialSlotItemDiffers(let code, let item, let hashType, let slot):
            "\(code): \(item) differs from its hash in the \(hashType) CodeDirectory (special slot -\(slot))"
        case .specialSlotUnbound(let code, let item, let hashType, let slot):
            "\(code): \(item) is there, but the \(hashType) CodeDirectory's special slot -\(slot) is empty, so the "
                + "signature does not cover it"
        case .codeLimitShort(let code, let directory, let codeLimit, let signatureOffset):
            "\(code): \(directory) covers code up to byte \(codeLimit), but the signature begins at \(signatureOffset): "
                + "the bytes between are not signed"
        case .entitlementEncodingsDiffer(let code, let keys):
            "\(code): the XML and DER entitlements differ (\(keys.joined(separator: ", ")))"
        case .unreadableEntitlements(let code, let encoding, let problem):
            "\(code): the \(encoding) entitlements cannot be read: \(problem)"
        case .unreadableProfile(let bundle, let problem):
            "\(bundle)/embedded.mobileprovision cannot be read: \(problem)"
        case .sealedExecutableMissing(let bundle):
            "\(bundle) is sealed, but the executable its Info.plist names is not there to carry its signature"
        case .cdHashesMissing(let code, let count):
            "\(code): the signature has \(count) CodeDirectories, but its CMS has no CDHashes attribute binding them"
        case .cmsUnreadable(let code, let errorCode, let problem):
            "\(code): the CMS signature cannot be read: \(errorCode): \(problem)"
        case .cmsProblem(let code, _, let problem):
            "\(code): \(problem)"
        case .cdHashesNotListed(let code, let attribute):
            "\(code): the CMS \(attribute) attribute does not list the signature's CodeDirectories"
        case .sealDiffers(let bundle, _, let difference):
            "\(bundle): \(difference)"
        case .nestedCodeSwapped(let bundle, let nested, let differences):
            "\(bundle): \(nested) is validly signed but is not the code this bundle sealed ("
                + differences.prefix(3).joined(separator: "; ")
                + (differences.count > 3 ? "; \(differences.count - 3) more" : "") + ")"
        case .identifierMismatch(let code, let identifier, let bundleID):
            "\(code) is signed with the identifier \(identifier), the bundle ID is \(bundleID)"
        case .teamMismatch(let bundle, let team, let appTeam):
            "\(bundle) is signed by team \(team), the app by team \(appTeam ?? "?")"
        case .adHoc(let bundle):
            "\(bundle) is signed ad hoc"
        case .certificateNotInProfile(let bundle, let signer):
            "\(bundle) is signed by \(signer), which is not among the DeveloperCertificates of its embedded profile"
        case .appIdentifierMismatch(let bundle, let signed, let appID, let bundleID, let expected):
            "\(bundle) is signed with application-identifier \(signed); its profile's App ID \(appID) "
                + "and bundle ID \(bundleID ?? "?") give \(expected ?? "no match")"
        case .entitlementNotGranted(let bundle, let key):
            "\(bundle) is signed with the entitlement \(key), which its embedded profile does not grant (or not with this value)"
        case .entitlementType(let code, let key, let expected, let actual):
            "\(code) is signed with \(key) as \(ProfileDetail.article(actual)) \(actual); Apple's type for it is "
                + "\(ProfileDetail.article(expected)) \(expected)"
        }
    }
}

/// A signed Mach-O, or one architecture's slice of it (named when the file has more than one).
public struct CodeReference: Sendable, Hashable, CustomStringConvertible {
    /// The archive path of the Mach-O file.
    public var path: String
    /// The slice's architecture, when the file is universal.
    public var architecture: String?

    public init(path: String, architecture: String? = nil) {
        self.path = path
        self.architecture = architecture
    }

    public var description: String { architecture.map { "\(path) (\($0))" } ?? path }
}

/// One CodeDirectory of a signature: its hash type and the slot it is in.
public struct CodeDirectoryReference: Sendable, Hashable, CustomStringConvertible {
    /// The hash type's name, e.g. `SHA-256`.
    public var hashType: String
    public var slot: UInt32

    public init(hashType: String, slot: UInt32) {
        self.hashType = hashType
        self.slot = slot
    }

    public var description: String { "the \(hashType) CodeDirectory (slot 0x\(String(slot, radix: 16)))" }
}
