import AppBundle
import Installation
import Foundation
import MachO
import PropertyList
import Reporting
import Verification
import ToolData

/// Which command the checks gate: its errors stop it. `wrap` (and `check`, by default) enforce
/// every rule; `sign` enforces what signing and installing need, and reports the rules of
/// wrapping (`FindingCode.isWrappingRule`: an icon, the MDX SDK's version, explicit App IDs...)
/// as warnings.
public enum CheckPurpose: String, Sendable, CaseIterable {
    case wrapping = "wrap"
    case signing = "sign"
}

public struct CheckOptions: Sendable {
    /// `--profile` and `--profiles-dir`, loaded once by the caller.
    public var profiles: ProfileSet
    /// `--allow-wildcard`: wildcard App IDs become warnings.
    public var allowWildcard: Bool
    /// `--at DATE`: judge expiry at this moment instead of now.
    public var evaluationDate: Date?
    /// Compute the input's SHA-256 (`--sha256`).
    public var computeSHA256: Bool
    /// The command the findings gate.
    public var purpose: CheckPurpose
    /// `--device` and `--os`: the device the install rules judge for.
    public var install: InstallOptions

    public init(
        profiles: ProfileSet = ProfileSet(), allowWildcard: Bool = false, evaluationDate: Date? = nil,
        computeSHA256: Bool = false, purpose: CheckPurpose = .wrapping, install: InstallOptions = InstallOptions()
    ) {
        self.profiles = profiles
        self.allowWildcard = allowWildcard
        self.evaluationDate = evaluationDate
        self.computeSHA256 = computeSHA256
        self.purpose = purpose
        self.install = install
    }
}

/// What every check area reads: the bundle model, the options, and results computed once and
/// shared (the icon resolution, parsed executables).
public final class CheckContext {
    public let archive: AppArchive
    public let options: CheckOptions
    /// The SDK catalog and toolkit version the caller resolved (the checks look nothing up).
    public let toolData: ToolData
    public let icon: IconResolution
    /// The moment expiry is judged at.
    public let now: Date
    private var executables: [String: Result<MachOFile, Error>] = [:]
    private var signatureReadings: [String: SignatureReading] = [:]

    init(archive: AppArchive, options: CheckOptions, toolData: ToolData, icon: IconResolution) {
        self.archive = archive
        self.options = options
        self.toolData = toolData
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

    /// The slices of each bundle's executable that could be read, by bundle path (for the
    /// install rules).
    public func executableSlices() -> [String: [ExecutableSlice]] {
        var slices: [String: [ExecutableSlice]] = [:]
        for bundle in archive.allBundles {
            if case .success(let file)? = executable(of: bundle) { slices[bundle.path] = ExecutableSlice.of(file) }
        }
        return slices
    }

    /// Whether an executable of the app loads `framework` at launch (links `…/<folder>/<executable>`
    /// other than weakly) and no file in the app is that binary. dyld finds a framework by its
    /// `@rpath` name, so the binary may sit elsewhere (`ReexportedBinaries/` of a debug build with
    /// mergeable libraries). A framework folder without its binary that nothing needs is what
    /// Xcode 15 and later embed for a mergeable library merged into the code using it.
    public func isLoadedWithoutItsBinary(framework: BundleInfo, executable: String) -> Bool {
        let name = framework.folderName + "/" + executable
        return frameworksLoadedAtLaunch.contains(name) && !filesByLastTwoComponents.contains(name)
    }

    /// `X.framework/X` of every library an executable of the app loads at launch (other than
    /// weakly), from one pass over the headers already read.
    private lazy var frameworksLoadedAtLaunch: Set<String> = {
        var names = Set<String>()
        for bundle in archive.allBundles {
            guard case .success(let file)? = executable(of: bundle) else { continue }
            for slice in file.slices {
                for library in slice.linkedLibraries where library.kind != .weak {
                    names.insert(Self.lastTwoComponents(library.path))
                }
            }
        }
        return names
    }()

    /// The last two components of every file in the app, from one pass over its entries.
    private lazy var filesByLastTwoComponents: Set<String> = {
        Set(archive.archive.zip.entries(within: archive.app.path).lazy.filter { $0.kind == .file }.map { Self.lastTwoComponents($0.path) })
    }()

    private static func lastTwoComponents(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).suffix(2).joined(separator: "/")
    }

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

    /// What a bundle's code signature says to the signature summary and to the entitlement
    /// check, read once: right after the binary checks' scan of the executable, so the read
    /// continues the stream the scan left (the archive keeps only the last few streams). Each
    /// reader stops at the slice it always stopped at, and only these small results are kept,
    /// not the signatures.
    public func signatureReading(of bundle: BundleInfo) -> SignatureReading {
        guard let path = bundle.executablePath else { return SignatureReading(summary: nil, entitlements: .none) }
        if let cached = signatureReadings[path] { return cached }
        var reading = SignatureReading(summary: nil, entitlements: .none)
        if case .success(let file)? = executable(of: bundle), let entry = archive.entry(path) {
            let slices = SignatureSummary.Slices(file: file, path: path, entry: entry, in: archive.archive.zip)
            reading = SignatureReading(
                summary: SignatureSummary.summarize(slices),
                entitlements: ProfileChecks.signedEntitlements(slices, clock: archive.archive.zip.workClock()))
        }
        signatureReadings[path] = reading
        return reading
    }
}

/// What a bundle's code signature says to `inspect`'s summary and to the entitlement check.
public struct SignatureReading {
    /// Nil when the bundle has no readable executable.
    public let summary: SignatureFacts?
    public let entitlements: EntitlementsInSignature
}

/// The entitlements a bundle's executable is signed with, or why they cannot be read.
public enum EntitlementsInSignature {
    /// No signature, or one without entitlements.
    case none
    case entitlements(PropertyListDictionary)
    /// A slice's signature cannot be read (damaged, or over the memory limit).
    case signatureUnreadable(architecture: String, reason: String)
    /// The signature's entitlements blob cannot be parsed.
    case entitlementsUnreadable(reason: String)
}
