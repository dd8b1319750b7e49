import MachO
import Zip

/// A Mach-O file inside a bundle that is no bundle's executable: a dylib in `Frameworks/` (the
/// Swift runtime, `libXCTestSwiftSupport.dylib`), or a dylib or helper executable anywhere else in
/// the bundle. Signers sign it before the bundle that seals it, as code of its own.
public struct LooseCode: Sendable, Equatable {
    /// Its archive path.
    public let path: String
    /// The innermost bundle holding code that holds it (whose seal covers it).
    public let owner: String

    /// The identifier codesign gives such a file: its file name without `.dylib`.
    public var defaultIdentifier: String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(".dylib") ? String(name.dropLast(".dylib".count)) : name
    }
}

extension AppArchive {
    /// Folders whose Mach-O files are Apple's own platform code (the watch app's `_WatchKitStub/WK`,
    /// `SwiftSupport/` and `Symbols/` beside the app), which stay as Apple signed them.
    public static let applePlatformFolders: Set<Substring> = ["_WatchKitStub", "SwiftSupport", "Symbols"]

    /// Every loose Mach-O file of the app, in archive order. A file is looked at when it may be
    /// code by its name or mode (a `.dylib`, an executable mode bit, or a file right inside a
    /// `Frameworks/` folder) and is loose code when its first bytes are an executable, dylib or
    /// bundle (`MachOFile.isLoadableCode`). Bundles' own executables, `_CodeSignature/`, dSYMs
    /// and Apple's platform folders are left out. One pass over the entries; each file's owner is
    /// found through the bundle folders in its path only, so deep names cost their length.
    public func looseCode() throws -> [LooseCode] {
        let zip = archive.zip
        let codeBundles = allBundles.filter(\.holdsCode)
        let bundlePaths = Set(codeBundles.map(\.path))
        let executables = Set(codeBundles.compactMap(\.executablePath))
        var found: [LooseCode] = []
        var clock = zip.workClock()
        for entry in zip.entries(within: app.path) where entry.kind == .file {
            try clock.tick(1)
            let path = entry.path
            guard !executables.contains(path) else { continue }
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            guard components.count >= 2 else { continue }
            let name = components[components.count - 1]
            let folder = components[components.count - 2]
            let executableMode = (entry.unixMode ?? 0) & 0o111 != 0
            guard name.hasSuffix(".dylib") || executableMode || folder == "Frameworks" else { continue }
            if components.contains(where: { Self.applePlatformFolders.contains($0) || $0 == "_CodeSignature" || $0.hasSuffix(".dSYM") }) {
                continue
            }
            // The innermost bundle with code whose folder holds it.
            var owner = app.path
            var end = path.startIndex
            for component in components.dropLast() {
                end = component.endIndex
                guard BundleKind.nested(folderName: component, inFolder: nil) != nil else { continue }
                let prefix = String(path[..<end])
                if bundlePaths.contains(prefix) { owner = prefix }
            }
            let source = zip.byteSource(for: entry)
            let prefix = try source.read(offset: 0, count: Int(min(16, entry.uncompressedSize)))
            if MachOFile.isLoadableCode(prefix: prefix) {
                found.append(LooseCode(path: path, owner: owner))
            }
        }
        return found
    }
}
