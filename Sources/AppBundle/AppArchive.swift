import FormatSupport
import IPAArchive
import MachO
import PropertyList

/// The bundle model of an IPA: the app, the bundles nested in it, and the items outside it.
/// Built from the central directory and the few entries it needs (Info.plists); nothing is
/// extracted.
public final class AppArchive {
    public let archive: IPAArchive
    public let app: BundleInfo
    /// Frameworks, extensions, watch apps and app clips, outermost first.
    public let nestedBundles: [BundleInfo]
    /// Top-level items outside `Payload/` (`SwiftSupport/`, `Symbols/`, `iTunesMetadata.plist`,
    /// `META-INF/`...), folders with a trailing slash.
    public let rootItems: [String]

    /// Largest Info.plist read.
    public static let maximumInfoPlistSize: UInt64 = 8 << 20
    /// How deep bundles are looked for inside bundles (app → watch app → its extension → framework).
    static let maximumNesting = 4

    /// - Throws: `BundleError` when the app has no usable Info.plist; `ArchiveError` when the
    ///   input hit a resource limit while its Info.plists were read.
    public init(archive: IPAArchive) throws {
        self.archive = archive
        let appPath = String(archive.appDirectory.dropLast())
        let zip = archive.zip
        let appPlistPath = appPath + "/Info.plist"
        guard let plistEntry = zip.entry(named: appPlistPath), plistEntry.kind == .file else {
            throw BundleError.infoPlistMissing(archive: archive.path, path: appPlistPath)
        }
        let plist: PropertyList
        do {
            plist = try Self.readPlist(plistEntry, from: zip)
        } catch {
            try zip.checkLimits()
            throw BundleError.infoPlistInvalid(archive: archive.path, path: appPlistPath, reason: Self.describe(error))
        }
        guard plist.root.dictionary != nil else {
            throw BundleError.infoPlistInvalid(archive: archive.path, path: appPlistPath, reason: "its root is not a dictionary")
        }
        self.app = Self.bundle(kind: .app, path: appPath, parent: nil, plist: plist, problem: nil, in: zip)

        var nested: [BundleInfo] = []
        var pending: [(BundleInfo, Int)] = [(app, 0)]
        var next = 0
        while next < pending.count {
            let (parent, depth) = pending[next]
            next += 1
            guard depth < Self.maximumNesting else { continue }
            try zip.checkLimits()
            for (kind, folder) in Self.nestedLocations(of: parent.kind) {
                for name in try zip.contents(ofFolder: parent.path + "/" + folder) where name.hasSuffix(kind.extension) {
                    let path = parent.path + "/" + folder + "/" + name
                    let bundle = Self.loadNested(kind: kind.kind, path: path, parent: parent.path, in: zip)
                    nested.append(bundle)
                    pending.append((bundle, depth + 1))
                }
            }
        }
        self.nestedBundles = nested
        try zip.checkLimits()
        self.rootItems = try zip.contents(ofFolder: "").filter { $0 != "Payload" }.map { name in
            zip.isFolder(name) ? name + "/" : name
        }
    }

    /// Opens an IPA (or an `.app` folder or `.xcarchive`, see `AppFolder`) and builds its model.
    public convenience init(path: String, limits: ArchiveLimits = .default, folderPacking: AppFolder.Packing = .stored) throws {
        try self.init(archive: IPAArchive(path: path, limits: limits, folderPacking: folderPacking))
    }

    /// The app and every nested bundle.
    public var allBundles: [BundleInfo] { [app] + nestedBundles }

    /// Throws the resource limit (memory, time) the work on this input has hit, if any.
    public func checkLimits() throws(ArchiveError) {
        try archive.zip.checkLimits()
    }

    /// The entry at an archive path.
    public func entry(_ path: String) -> ArchiveEntry? {
        archive.zip.entry(named: path)
    }

    /// Reads a whole entry, refusing one larger than `maximumSize`.
    public func read(_ path: String, maximumSize: UInt64) throws -> [UInt8]? {
        guard let entry = entry(path), entry.kind == .file else { return nil }
        return try archive.zip.read(entry, maximumSize: maximumSize)
    }

    /// The Mach-O headers and load commands of an executable, reading only those ranges.
    public func machO(at path: String) throws -> MachOFile? {
        guard let entry = entry(path), entry.kind == .file else { return nil }
        var source = archive.zip.byteSource(for: entry)
        return try MachOFile(reading: &source, clock: archive.zip.workClock())
    }

    // MARK: Discovery

    /// Where each kind of bundle keeps the bundles nested in it.
    private static func nestedLocations(of kind: BundleKind) -> [((kind: BundleKind, extension: String), String)] {
        let frameworks = ((BundleKind.framework, ".framework"), "Frameworks")
        let plugIns = ((BundleKind.appex, ".appex"), "PlugIns")
        let extensions = ((BundleKind.appex, ".appex"), "Extensions")
        switch kind {
        case .app:
            return [frameworks, plugIns, extensions, ((.watch, ".app"), "Watch"), ((.appclip, ".app"), "AppClips")]
        case .watch, .appclip, .appex:
            return [frameworks, plugIns, extensions]
        case .framework:
            return []
        }
    }

    private static func loadNested(kind: BundleKind, path: String, parent: String, in zip: ZipArchive) -> BundleInfo {
        let plistPath = path + "/Info.plist"
        var plist: PropertyList?
        var problem: String?
        if let entry = zip.entry(named: plistPath), entry.kind == .file {
            do {
                let parsed = try readPlist(entry, from: zip)
                if parsed.root.dictionary == nil {
                    problem = "its Info.plist's root is not a dictionary"
                } else {
                    plist = parsed
                }
            } catch {
                problem = "its Info.plist cannot be read (\(describe(error)))"
            }
        } else {
            problem = "it has no Info.plist"
        }
        return bundle(kind: kind, path: path, parent: parent, plist: plist, problem: problem, in: zip)
    }

    private static func bundle(
        kind: BundleKind, path: String, parent: String?, plist: PropertyList?, problem: String?, in zip: ZipArchive
    ) -> BundleInfo {
        var executablePath: String?
        var executableProblem: ExecutableProblem?
        if let info = plist?.root.dictionary {
            executableProblem = ExecutableProblem.judge(info["CFBundleExecutable"])
            if executableProblem == nil, let name = info["CFBundleExecutable"]?.string {
                let candidate = path + "/" + name
                // A versioned framework's executable is a symlink (`Kit -> Versions/Current/Kit`):
                // the code is the file it resolves to inside the bundle.
                if let real = zip.resolvingSymlinks(candidate), real.hasPrefix(path + "/"), zip.entry(named: real)?.kind == .file {
                    // A symlink may lead to a file the signature owns (`Exec -> Info.plist`).
                    if let owned = ExecutableProblem.signatureOwned(String(real.dropFirst(path.count + 1))) {
                        executableProblem = .invalidName("CFBundleExecutable '\(name)' leads to \(owned), which the code signature owns")
                    } else {
                        executablePath = real
                    }
                } else {
                    executableProblem = .fileMissing(name: name, path: candidate)
                }
            }
        }
        let profilePath = path + "/embedded.mobileprovision"
        return BundleInfo(
            kind: kind, path: path, parentPath: parent, infoPlist: plist, infoPlistProblem: problem,
            executablePath: executablePath, executableProblem: executableProblem,
            embeddedProfilePath: zip.entry(named: profilePath) != nil ? profilePath : nil,
            isSigned: zip.entry(named: path + "/_CodeSignature/CodeResources") != nil)
    }

    /// An error with its code, so the underlying format's code is searchable in the message.
    static func describe(_ error: any Error) -> String {
        if let coded = error as? CodedError { return "\(coded.code): \(coded)" }
        return "\(error)"
    }

    private static func readPlist(_ entry: ArchiveEntry, from zip: ZipArchive) throws -> PropertyList {
        try PropertyList(
            bytes: zip.read(entry, maximumSize: maximumInfoPlistSize), limits: PropertyListLimits(clock: zip.workClock()))
    }
}
