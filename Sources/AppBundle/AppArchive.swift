import FormatSupport
import IPAArchive
import MachO
import PropertyList
import Zip

/// The bundle model of an IPA: the app, the bundles nested in it, and the items outside it.
/// Built from the central directory and the few entries it needs (Info.plists); nothing is
/// extracted.
public final class AppArchive {
    public let archive: IPAArchive
    public let app: BundleInfo
    /// Every bundle inside the app, wherever it sits (frameworks, extensions, test bundles,
    /// loadable bundles, XPC services, watch apps, app clips, and the bundles inside those),
    /// outermost first: a bundle's children come after it, by where they sit (`Frameworks/`,
    /// `PlugIns/`, `Extensions/`, `Watch/`, `AppClips/`, elsewhere), then by name.
    public let nestedBundles: [BundleInfo]
    /// Top-level items outside `Payload/` (`SwiftSupport/`, `Symbols/`, `iTunesMetadata.plist`,
    /// `META-INF/`...), folders with a trailing slash.
    public let rootItems: [String]

    /// Largest Info.plist read.
    public static let maximumInfoPlistSize: UInt64 = 8 << 20
    /// How many bundle folders may hold one another inside the app (a watch app's extension's
    /// framework is 3 deep; Xcode makes no more than 4). Deeper is `BUNDLE_NESTING_LIMIT`.
    public static let maximumBundleNesting = 16
    /// How many bundle folders (`.app`, `.appex`, `.framework`, `.xctest`, `.bundle`, `.xpc`,
    /// resource bundles included) the app may hold. More is `BUNDLE_COUNT_LIMIT`.
    public static let maximumBundleFolders = 10_000

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

        let nested = try Self.nestedBundles(of: app, in: zip, archive: archive.path)
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

    /// Finds every bundle folder below the app in one walk of its folders, reads the Info.plist
    /// of each, and orders them outermost first. A `.bundle` that names no executable is a
    /// resource folder, not a bundle; a `ReexportedBinaries/X.framework` without an Info.plist
    /// holds loose code.
    private static func nestedBundles(of app: BundleInfo, in zip: ZipArchive, archive: String) throws -> [BundleInfo] {
        let folders = try zip.folders(
            within: app.path,
            where: { name in BundleKind.folderExtensions.contains { name.count > $0.count && name.suffix($0.count).elementsEqual($0) } },
            limit: maximumBundleFolders)
        guard let folders else {
            throw BundleError.tooManyBundles(archive: archive, limit: maximumBundleFolders)
        }
        if let deep = folders.first(where: { $0.nesting >= maximumBundleNesting }) {
            throw BundleError.nestingTooDeep(archive: archive, path: deep.path, limit: maximumBundleNesting)
        }
        // Outer folders come first, so each bundle's container is known when it is reached.
        // The bundle each folder is (nil for a resource bundle), by its index in `folders`.
        var found: [BundleInfo?] = []
        var children: [String: [BundleInfo]] = [:]
        for folder in folders {
            try zip.checkLimits()
            found.append(nil)
            let path = folder.path
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            guard let name = components.last else { continue }
            let place = components.count >= 2 ? components[components.count - 2] : nil
            guard let kind = BundleKind.nested(folderName: name, inFolder: place) else { continue }
            // The innermost bundle holding it.
            var parent = app.path
            var holder = folder.container
            while let index = holder {
                if let bundle = found[index] {
                    parent = bundle.path
                    break
                }
                holder = folders[index].container
            }
            let bundle = loadNested(kind: kind, path: path, parent: parent, in: zip)
            // A `.bundle` is code only when its Info.plist names an executable that is there: resource
            // bundles (CocoaPods', Settings.bundle) often carry a plist, some naming no file at all.
            if kind == .bundle && bundle.executablePath == nil {
                continue
            }
            // A debug build with mergeable libraries puts their binaries, without bundles, in
            // `ReexportedBinaries/X.framework/`: loose code of the bundle around, not a bundle.
            if place == "ReexportedBinaries" && bundle.infoPlistProblem == .missing {
                continue
            }
            found[found.count - 1] = bundle
            children[parent, default: []].append(bundle)
        }
        // Breadth first from the app, each bundle's children by where they sit, then by name.
        func rank(_ bundle: BundleInfo) -> (Int, String) {
            let parent = bundle.parentPath ?? ""
            let relative = bundle.path.dropFirst(parent.count + 1)
            let place = relative.split(separator: "/").first ?? ""
            let order = ["Frameworks", "PlugIns", "Extensions", "Watch", "AppClips"]
            return (order.firstIndex(of: String(place)) ?? order.count, bundle.path)
        }
        var ordered: [BundleInfo] = []
        var queue = [app.path]
        var next = 0
        while next < queue.count {
            let parent = queue[next]
            next += 1
            let inside = (children[parent] ?? []).sorted { rank($0) < rank($1) }
            ordered.append(contentsOf: inside)
            queue.append(contentsOf: inside.map(\.path))
        }
        return ordered
    }

    private static func loadNested(kind: BundleKind, path: String, parent: String, in zip: ZipArchive) -> BundleInfo {
        let plistPath = path + "/Info.plist"
        var plist: PropertyList?
        var problem: InfoPlistProblem?
        if let entry = zip.entry(named: plistPath), entry.kind == .file {
            do {
                let parsed = try readPlist(entry, from: zip)
                if parsed.root.dictionary == nil {
                    problem = .notDictionary
                } else {
                    plist = parsed
                }
            } catch {
                problem = .unreadable(describe(error))
            }
        } else {
            problem = .missing
        }
        return bundle(kind: kind, path: path, parent: parent, plist: plist, problem: problem, in: zip)
    }

    private static func bundle(
        kind: BundleKind, path: String, parent: String?, plist: PropertyList?, problem: InfoPlistProblem?, in zip: ZipArchive
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
