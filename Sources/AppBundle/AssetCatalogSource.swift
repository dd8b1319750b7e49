import AssetCatalog
import FormatSupport
import Zip

/// Where `assets list` and `assets extract` read a catalog from: a bare `Assets.car` (a BOM store,
/// magic `BOMStore`, not a zip), or the app's `Assets.car` in an IPA, `.app` folder or `.xcarchive`.
public enum AssetCatalogSource {
    /// The catalog and the path it is named by; nil when the app has none. Errors are placed in
    /// the file (and entry) they come from.
    public static func open(_ input: String, limits: ArchiveLimits) throws -> (path: String, catalog: AssetCatalog)? {
        if let bare = try bareCatalog(at: input, limit: limits.maximumMemory) {
            return (input, try inLocation(input) { try AssetCatalog(bytes: bare) })
        }
        let archive = try AppArchive(path: input, limits: limits)
        let path = archive.app.path + "/Assets.car"
        guard let bytes = try archive.read(path, maximumSize: .max) else { return nil }  // within --max-memory
        var catalogLimits = AssetCatalog.Limits()
        catalogLimits.clock = archive.archive.zip.workClock()
        do {
            return (path, try inLocation("\(input): \(path)") { try AssetCatalog(bytes: bytes, limits: catalogLimits) })
        } catch {
            // A catalog stopped by the time limit is the archive's ARCHIVE_TIME_LIMIT.
            try archive.checkLimits()
            throw error
        }
    }

    /// The whole file when it is a compiled asset catalog and not a zip archive; nil otherwise.
    /// Larger than `limit` is the memory-limit error.
    static func bareCatalog(at path: String, limit: UInt64) throws -> [UInt8]? {
        // Not readable here (a folder, a missing file): the archive reader gives the error.
        guard let source = try? FileByteSource(path: path), source.size >= 8,
            try source.read(offset: 0, count: 8) == Array("BOMStore".utf8)
        else { return nil }
        guard source.size <= limit else {
            throw ArchiveError.memoryLimit(archive: path, what: "the catalog", size: source.size, limit: limit)
        }
        return try source.read(offset: 0, count: Int(source.size))
    }
}
