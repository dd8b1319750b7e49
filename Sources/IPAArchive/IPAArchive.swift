import Zip

/// An iOS app archive: a safe zip archive (see `ZipArchive`) holding exactly one
/// `Payload/<Name>.app/` bundle. Symlinks inside the app must stay inside the app.
public final class IPAArchive {
    public let zip: ZipArchive
    /// The app folder with its trailing slash, e.g. `Payload/Sample.app/`.
    public let appDirectory: String

    /// Opens an IPA, or an unzipped `.app` folder or Xcode `.xcarchive` packed as the IPA it
    /// makes (see `AppFolder`; `folderPacking` says how).
    public convenience init(
        path: String, limits: ArchiveLimits = .default, folderPacking: AppFolder.Packing = .stored
    ) throws(ArchiveError) {
        if try AppFolder.kind(of: path) != nil {
            try self.init(zip: AppFolder(path: path, limits: limits).openZip(packing: folderPacking, limits: limits))
        } else {
            try self.init(zip: ZipArchive(path: path, limits: limits))
        }
    }

    init(zip: ZipArchive) throws(ArchiveError) {
        self.zip = zip
        self.appDirectory = try Self.findApp(in: zip)
        let appComponents = appDirectory.split(separator: "/")
        let appPrefix = appDirectory
        try zip.checkSymlinks { entry in
            entry.path.hasPrefix(appPrefix) ? appComponents : []
        }
    }

    public var path: String { zip.path }

    /// The app folder's name, e.g. `Sample.app`.
    public var appName: String {
        String(appDirectory.dropFirst("Payload/".count).dropLast())
    }

    /// The entries inside the app folder (not the folder entry itself).
    public var appEntries: [ArchiveEntry] {
        zip.entries.filter { $0.path.hasPrefix(appDirectory) && $0.path.count > appDirectory.count }
    }

    /// The entry at a path relative to the app folder, e.g. `Info.plist`.
    public func appEntry(_ relativePath: String) -> ArchiveEntry? {
        zip.entry(named: appDirectory + relativePath)
    }

    private static func findApp(in zip: ZipArchive) throws(ArchiveError) -> String {
        // `Payload/X.app` is a folder only if it is a directory entry or has children.
        let tree = zip.store.tree
        let payload = tree.node(atPath: "Payload".utf8).map(tree.scanChildren) ?? []
        let apps = payload.sorted { tree.firstAppearance(of: $0) < tree.firstAppearance(of: $1) }.compactMap { node -> String? in
            let name = EntryName.decode(tree.component(of: node))
            guard name.hasSuffix(".app"), name.count > 4, zip.isFolder(node) else { return nil }
            return "Payload/\(name)/"
        }
        guard let app = apps.first else { throw .noApp(archive: zip.path, hint: misplacedAppHint(in: zip)) }
        guard apps.count == 1 else {
            throw .multipleApps(archive: zip.path, apps: apps.map { String($0.dropLast()) })
        }
        return app
    }

    /// Where the app is when the archive holds it one folder too deep: `Foo/Payload/Foo.app/` (a
    /// zip of the folder around `Payload/`) or `Foo.xcarchive/Products/Applications/Foo.app/` (a
    /// zip of an Xcode archive); nil otherwise.
    private static func misplacedAppHint(in zip: ZipArchive) -> String? {
        let tree = zip.store.tree
        let topFolders = tree.scanChildren(of: tree.root).filter { zip.isFolder($0) }
            .sorted { tree.firstAppearance(of: $0) < tree.firstAppearance(of: $1) }
        func app(in folder: UInt32) -> String? {
            tree.scanChildren(of: folder).map { EntryName.decode(tree.component(of: $0)) }
                .filter { $0.hasSuffix(".app") && $0.count > 4 }.sorted().first
        }
        // A few folders are enough for a hint; each look inside one visits every node.
        for top in topFolders.prefix(16) {
            let name = EntryName.decode(tree.component(of: top))
            if let payload = tree.child(of: top, named: "Payload".utf8), zip.isFolder(payload), let found = app(in: payload) {
                return "the app is one folder too deep, at \(name)/Payload/\(found)/: zip the contents of \(name)/ "
                    + "instead (cd \(name) && zip -qry ../\(name).ipa Payload)"
            }
            if let products = tree.child(of: top, named: "Products".utf8),
               let applications = tree.child(of: products, named: "Applications".utf8), let found = app(in: applications) {
                return "this is a zipped Xcode archive (\(name)/Products/Applications/\(found)/): export an IPA with "
                    + "xcodebuild -exportArchive"
            }
        }
        return nil
    }
}

extension ArchiveWriter {
    /// The check every IPA output gets before it appears: it opens as an IPA, with every rule
    /// the input had to pass.
    public static func verifyingIPA(_ path: String, _ limits: ArchiveLimits) throws {
        _ = try IPAArchive(path: path, limits: limits)
    }
}
