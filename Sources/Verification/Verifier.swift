import AppBundle
import BundleHashing
import CMS
import CodeSignature
import FormatSupport
import Foundation
import Installation
import MachO
import PropertyList
import Reporting
import ProvisioningProfile
import X509
import Zip

/// Verifies every code signature of an IPA: each signed bundle and loose dylib, innermost first,
/// and each slice of each Mach-O (code pages, special slots, every CodeDirectory, the CMS
/// signature and its CDHashes), each bundle's CodeResources against its files, and the
/// consistency of certificate, profile, entitlements, identifiers and teams.
///
/// Entries are streamed once on two workers; nothing is extracted.
public enum Verifier {
    /// SHA-256 of Apple Root CA (Templates/certificates/AppleRootCA.cer; a test checks the two
    /// agree), the anchor of Apple's own code.
    public static let appleRootCAFingerprint: [UInt8] = [
        0xB0, 0xB1, 0x73, 0x0E, 0xCB, 0xC7, 0xFF, 0x45, 0x05, 0x14, 0x2C, 0x49, 0xF1, 0x29, 0x5E, 0x6E,
        0xDA, 0x6B, 0xCA, 0xED, 0x7E, 0x2C, 0x68, 0xC5, 0xBE, 0x91, 0xB5, 0xA1, 0x10, 0x01, 0xF0, 0x24,
    ]

    /// Largest CodeResources, Info.plist or embedded profile read.
    static let maximumSmallFileSize: UInt64 = 16 << 20

    /// Verifies the IPA at `path`, judging certificate validity at `date`.
    /// - Throws: an `ArchiveError` or `BundleError` (exit 65/74) when the archive itself cannot be read.
    public static func verify(archive path: String, at date: Date = Date(), limits: ArchiveLimits = .default) throws
        -> VerificationReport
    {
        try verify(AppArchive(path: path, limits: limits), at: date)
    }

    /// - Parameter applePlatformRoots: SHA-256 fingerprints of the roots whose software-signing
    ///   certificates sign Apple's own code (Apple Root CA's; a test gives its stand-in's).
    public static func verify(
        _ app: AppArchive, at date: Date = Date(), workers: Int = 2, install: InstallOptions = InstallOptions(),
        applePlatformRoots: Set<[UInt8]> = [appleRootCAFingerprint]
    ) throws -> VerificationReport {
        let zip = app.archive.zip
        var units = try codeUnits(of: app)
        // Innermost first: deeper paths, then dylibs before the bundle that holds them.
        units.sort { ($0.depth, $0.path) > ($1.depth, $1.path) }
        let unitsByPath = Dictionary(units.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })

        // What to stream: each unit's Mach-O, and what each bundle's seal needs.
        var jobs: [HashJob] = []
        var machOJobs: [String: Int] = [:]
        var digestJobs: [String: Int] = [:]
        func addMachO(_ path: String) {
            guard machOJobs[path] == nil else { return }
            machOJobs[path] = jobs.count
            jobs.append(.machO(path: path))
        }
        let entriesByBundle = resourceEntries(of: Set(units.compactMap { $0.bundle?.path }), in: zip, app: app.app.path)
        var prepared: [PreparedUnit] = []
        var clock = zip.workClock()
        for unit in units {
            if clock.isExpired(after: 1) { try app.checkLimits() }
            var ready = PreparedUnit(unit: unit)
            if let executable = unit.executablePath { addMachO(executable) }
            if let bundle = unit.bundle {
                ready.infoPlist = try app.read(bundle.path + "/Info.plist", maximumSize: maximumSmallFileSize)
                ready.codeResourcesBytes = try app.read(
                    bundle.path + "/_CodeSignature/CodeResources", maximumSize: maximumSmallFileSize)
                ready.profileBytes = try bundle.embeddedProfilePath.flatMap { try app.read($0, maximumSize: maximumSmallFileSize) }
                ready.entries = entriesByBundle[bundle.path] ?? []
                if let bytes = ready.codeResourcesBytes {
                    do {
                        let resources = try CodeResources(bytes: bytes, plistLimits: PropertyListLimits(clock: zip.workClock()))
                        let requests = try resources.verificationRequests(for: ready.entries)
                        for request in requests {
                            let full = bundle.path + "/" + request.path
                            switch request.need {
                            case .digests(let types):
                                if digestJobs[full] == nil {
                                    digestJobs[full] = jobs.count
                                    jobs.append(.digest(path: full, types: types))
                                }
                            case .nestedCode:
                                if zip.isFolder(full) {
                                    if let nested = unitsByPath[full]?.executablePath { addMachO(nested) }
                                } else {
                                    addMachO(full)
                                }
                            }
                        }
                        ready.codeResources = resources
                    } catch {
                        ready.resourcesProblem = EntryHashing.describe(error)
                    }
                }
            }
            prepared.append(ready)
        }
        try app.checkLimits()

        // Largest first, so the last job does not leave one core idle; each size looked up once
        // (a lookup per comparison cost 50 ms for the benchmark's 1,800 entries).
        let sizes = jobs.map { size(of: $0.path, in: zip) }
        let order = jobs.indices.sorted { sizes[$0] > sizes[$1] }
        let computed = try EntryHashing.run(order.map { jobs[$0] }, archive: zip, workers: workers)
        try app.checkLimits()

        var judge = Judgement(
            date: date, results: computed, units: prepared, clock: zip.workClock(), applePlatformRoots: applePlatformRoots)
        var report = judge.report(input: zip.path)
        try app.checkLimits()
        report.findings += installFindings(app, computed: computed, judgement: judge, at: date, options: install)
        return report
    }

    // MARK: Install rules

    /// What a device would refuse beside the signatures (`InstallRules`), from what verifying read:
    /// the executables' slices, the embedded profiles, the signature's team.
    static func installFindings(
        _ app: AppArchive, computed: EntryHashing.Computed, judgement: Judgement, at date: Date, options: InstallOptions
    ) -> [Finding] {
        var slices: [String: [ExecutableSlice]] = [:]
        for bundle in app.allBundles {
            guard let executable = bundle.executablePath, let read = computed.machOs[executable] else { continue }
            slices[bundle.path] = read.slices.compactMap(\.executableSlice)
        }
        var findings = InstallRules.bundleFindings(app, executables: slices)
        findings += InstallRules.deviceFindings(app, profiles: judgement.embeddedProfiles, executables: slices, options: options)
        let appTeam = judgement.unitTeams[app.app.path]
        for bundle in app.allBundles {
            guard let profile = judgement.embeddedProfiles[bundle.path] else { continue }
            findings += InstallRules.signedProfileFindings(
                bundle, profile: profile, signingTeam: judgement.unitTeams[bundle.path] ?? appTeam, at: date,
                isApp: bundle.path == app.app.path, options: options)
        }
        return findings
    }

    // MARK: Units

    /// A signed thing: a bundle (its main executable and seal) or a loose dylib.
    struct CodeUnit {
        let kind: SignedCodeKind
        let path: String
        let bundle: BundleInfo?
        let executablePath: String?
        var depth: Int { path.split(separator: "/").count }
    }

    struct PreparedUnit {
        let unit: CodeUnit
        var infoPlist: [UInt8]?
        var codeResourcesBytes: [UInt8]?
        var codeResources: CodeResources?
        var resourcesProblem: String?
        var profileBytes: [UInt8]?
        var entries: [ResourceEntry] = []
    }

    /// Every bundle that holds code (and every app, extension, watch app or app clip, which must),
    /// then every loose Mach-O file (`AppArchive.looseCode`): dylibs and helper executables.
    static func codeUnits(of app: AppArchive) throws -> [CodeUnit] {
        var units: [CodeUnit] = []
        for bundle in app.allBundles where bundle.holdsCode || bundle.kind.needsProfile {
            units.append(CodeUnit(kind: .bundle(bundle.kind), path: bundle.path, bundle: bundle, executablePath: bundle.executablePath))
        }
        for code in try app.looseCode() {
            units.append(CodeUnit(
                kind: code.path.hasSuffix(".dylib") ? .dylib : .executable, path: code.path, bundle: nil,
                executablePath: code.path))
        }
        return units
    }

    /// Every entry of each bundle of `bundles`, relative to it, from one pass over the app's
    /// entries: an entry belongs to each bundle folder in its path (found at the components with
    /// a bundle's extension, so a deep name costs its length times the bundles above it, at most
    /// `AppArchive.maximumBundleNesting`).
    static func resourceEntries(of bundles: Set<String>, in zip: ZipArchive, app: String) -> [String: [ResourceEntry]] {
        var result: [String: [ResourceEntry]] = [:]
        for entry in zip.entries(within: app) {
            var name = entry.path
            if name.hasSuffix("/") { name.removeLast() }
            let kind: ResourceEntry.Kind
            switch entry.kind {
            case .file: kind = .file
            case .directory: kind = .directory
            case .symlink: kind = .symlink(target: zip.symlinkTarget(of: entry) ?? "")
            }
            var start = name.startIndex
            while let slash = name[start...].firstIndex(of: "/") {
                let component = name[start..<slash]
                start = name.index(after: slash)
                guard BundleKind.nested(folderName: component, inFolder: nil) != nil else { continue }
                let holder = String(name[..<slash])
                if bundles.contains(holder) {
                    result[holder, default: []].append(ResourceEntry(path: String(name[start...]), kind: kind))
                }
            }
        }
        return result
    }

    static func size(of path: String, in zip: ZipArchive) -> UInt64 {
        zip.entry(named: path)?.uncompressedSize ?? 0
    }
}
