/// An iOS app archive: a safe zip archive (see `ZipArchive`) holding exactly one
/// `Payload/<Name>.app/` bundle. Symlinks inside the app must stay inside the app.
public final class IPAArchive {
    public let zip: ZipArchive
    /// The app folder with its trailing slash, e.g. `Payload/Sample.app/`.
    public let appDirectory: String

    public init(path: String, limits: ArchiveLimits = .default) throws(ArchiveError) {
        let zip = try ZipArchive(path: path, limits: limits)
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
        guard let app = apps.first else { throw .noApp(archive: zip.path) }
        guard apps.count == 1 else {
            throw .multipleApps(archive: zip.path, apps: apps.map { String($0.dropLast()) })
        }
        return app
    }
}
