import AppBundle
import Foundation
import MachO
import Reporting
import Verification

/// Options that change findings (`check`, `wrap`, and `inspect`). The toolkit version is tool
/// data, resolved with the catalog into `CheckData`.
public struct CheckOptions: Sendable {
    /// `--profile PATH` for the main app.
    public var appProfile: String?
    /// `--profile BUNDLE_ID=PATH`.
    public var bundleProfiles: [String: String]
    /// `--profiles-dir DIR`.
    public var profilesDirectory: String?
    /// `--allow-wildcard`: wildcard App IDs become warnings.
    public var allowWildcard: Bool
    /// `--at DATE`: judge expiry at this moment instead of now.
    public var evaluationDate: Date?
    /// Compute the input's SHA-256 (`--sha256`).
    public var computeSHA256: Bool

    public init(
        appProfile: String? = nil, bundleProfiles: [String: String] = [:],
        profilesDirectory: String? = nil, allowWildcard: Bool = false, evaluationDate: Date? = nil,
        computeSHA256: Bool = false
    ) {
        self.appProfile = appProfile
        self.bundleProfiles = bundleProfiles
        self.profilesDirectory = profilesDirectory
        self.allowWildcard = allowWildcard
        self.evaluationDate = evaluationDate
        self.computeSHA256 = computeSHA256
    }
}

/// What every check area reads: the bundle model, the options, and results computed once and
/// shared (the icon resolution, parsed executables).
public final class CheckContext {
    public let archive: AppArchive
    public let options: CheckOptions
    public let data: CheckData
    public let icon: IconResolution
    /// The moment expiry is judged at.
    public let now: Date
    private var executables: [String: Result<MachOFile, Error>] = [:]
    private var signatures: [String: [SignatureSummary.SliceSignature]] = [:]

    init(archive: AppArchive, options: CheckOptions, data: CheckData, icon: IconResolution) {
        self.archive = archive
        self.options = options
        self.data = data
        self.icon = icon
        self.now = options.evaluationDate ?? Date()
    }

    /// The app's platform, from its executable's build version and its Info.plist.
    public private(set) lazy var platform: AppPlatform = {
        let buildPlatform: MachOPlatform?
        if case .success(let file)? = executable(of: archive.app) {
            buildPlatform = file.slices.lazy.compactMap(\.buildVersion).first?.platform
        } else {
            buildPlatform = nil
        }
        return AppPlatform.judge(buildPlatform: buildPlatform, info: archive.app.info)
    }()

    /// The parsed headers of a bundle's executable, read once and shared by every check.
    public func executable(of bundle: BundleInfo) -> Result<MachOFile, Error>? {
        guard let path = bundle.executablePath else { return nil }
        if let cached = executables[path] { return cached }
        let result: Result<MachOFile, Error>
        do {
            if let file = try archive.machO(at: path) {
                result = .success(file)
            } else {
                return nil
            }
        } catch {
            result = .failure(error)
        }
        executables[path] = result
        return result
    }

    /// The embedded signature of each slice of a bundle's executable, read once and shared by the
    /// signature summary and the entitlement check. The binary checks ask for it right after
    /// their scan of each executable, so the read continues the stream the scan left (in an app
    /// with many executables, the archive keeps only the last few streams).
    public func codeSignatures(of bundle: BundleInfo) -> [SignatureSummary.SliceSignature] {
        guard let path = bundle.executablePath else { return [] }
        if let cached = signatures[path] { return cached }
        var read: [SignatureSummary.SliceSignature] = []
        if case .success(let file)? = executable(of: bundle), let entry = archive.entry(path) {
            var source = archive.archive.zip.byteSource(for: entry)
            read = SignatureSummary.read(file, from: &source, of: path, in: archive.archive.zip)
        }
        signatures[path] = read
        return read
    }

    /// What a bundle's signature says about itself (`inspect`'s `bundles`); nil when it has no
    /// readable executable.
    public func signatureSummary(of bundle: BundleInfo) -> Report.Signature? {
        guard case .success? = executable(of: bundle) else { return nil }
        return SignatureSummary.summarize(codeSignatures(of: bundle))
    }
}
