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
        var apps: [String] = []
        let payload = "Payload/".utf8
        for entry in zip.entries {
            let bytes = entry.path.utf8
            guard bytes.starts(with: payload) else { continue }
            let rest = bytes.dropFirst(payload.count)
            // `Payload/X.app` is a folder only if it is a directory entry or has children.
            guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) ?? (entry.kind == .directory ? rest.endIndex : nil),
                  let name = String(rest[rest.startIndex..<slash]), name.hasSuffix(".app"), name.count > 4 else { continue }
            let app = "Payload/\(name)/"
            if !apps.contains(app) { apps.append(app) }
        }
        guard let app = apps.first else { throw .noApp(archive: zip.path) }
        guard apps.count == 1 else {
            throw .multipleApps(archive: zip.path, apps: apps.map { String($0.dropLast()) })
        }
        return app
    }
}
