import AssetCatalog
import FormatSupport
import PNG
import PropertyList
import Zip

/// Finds the app icon exactly as docs/commands.md ("`icon`: how the icon is found") states:
///
/// 1. Info.plist locations in order — `CFBundleIcons`, then `CFBundleIcons~ipad` (the other way
///    round for an iPad-only app, `UIDeviceFamily` = [2]), a top-level `CFBundlePrimaryIcon`,
///    `CFBundleIconFiles`, `CFBundleIconFile`, `UINewsstandIcon`, `CFBundleDocumentTypes` — the
///    first that yields an existing square image in the main bundle's root wins; within a location
///    the largest square wins, ties going to the first listed (an icon is square: launch images
///    listed beside icons, as Cordova 3 does, are skipped). Within a `CFBundleIcons` location, a
///    larger rendition of the icon set its `CFBundleIconName` names in `Assets.car` beats the PNGs.
/// 2. A name matches itself, `name.png`, and `name` with `@2x`/`@3x` and `~ipad`/`~iphone`.
/// 3. A location naming only missing files records each name and the search goes on.
/// 4. Then `Icon.png`, `Icon-60@2x.png`, `Icon-72.png`, `Icon-76.png`, first present (not largest).
/// 5. Then `CFBundleIconName`'s icon set in `Assets.car`, its largest rendition.
/// 6. Otherwise no icon. Icons of nested bundles never count.
struct IconResolver {
    let archive: AppArchive

    /// The fallback files, in the order the source documents give (this order, not size).
    static let fallbackFiles = ["Icon.png", "Icon-60@2x.png", "Icon-72.png", "Icon-76.png"]
    /// Bytes read from the front of a file to find its IHDR (CgBI chunk + IHDR fit in 49).
    static let headerPrefix = 64

    struct Location {
        let source: IconSource
        /// The key path shown in the trace.
        let keyPath: String
        /// Whether Info.plist has the key at all (an empty list is "present but empty").
        let isPresent: Bool
        let names: [String]
        /// The `CFBundleIconName` given beside the files, for the catalog comparison.
        var iconSetName: String? = nil
    }

    struct Candidate {
        let path: String
        let name: String
        let header: PNGHeader
    }

    func resolve() -> IconResolution {
        var result = IconResolution()
        let info = archive.app.info ?? PropertyListDictionary()
        let root = RootFiles(archive: archive)

        for location in Self.locations(in: info, iPadOnly: Set(archive.app.deviceFamilies) == [2]) {
            guard !location.names.isEmpty else {
                result.trace.append("\(location.keyPath): \(location.isPresent ? "present but lists no file" : "not present")")
                continue
            }
            var found: [Candidate] = []
            var missing: [MissingIconReference] = []
            var unreadable: [UnreadableIcon] = []
            // Two names can resolve to one file ("Icon" and "Icon.png"): each file is a candidate once.
            var seen: Set<String> = []
            for name in location.names {
                let candidates = Self.candidateFileNames(for: name)
                let present = candidates.filter { root.contains($0) }
                if present.isEmpty {
                    missing.append(MissingIconReference(name: name, source: location.source, candidates: candidates))
                    var line = "\(location.keyPath): '\(name)' matches no file in the app folder"
                    if let near = root.caseInsensitiveMatch(for: candidates) {
                        line += " ('\(near)' differs only in case; iOS file names are case-sensitive)"
                    }
                    result.trace.append(line)
                    continue
                }
                for file in present where seen.insert(file).inserted {
                    switch root.header(of: file) {
                    case .success(let header) where header.width != header.height:
                        result.trace.append("\(location.keyPath): skipped \(file) (\(header.width)x\(header.height)): "
                            + "not square, so not an icon (a launch image?)")
                    case .success(let header):
                        found.append(Candidate(path: root.path(file), name: file, header: header))
                    case .failure(let reason):
                        unreadable.append(UnreadableIcon(path: root.path(file), reason: reason.description))
                        result.trace.append("\(location.keyPath): '\(file)' is not a readable PNG (\(reason))")
                    }
                }
            }
            if let best = Self.largest(found) {
                let sizes = found.map { "\($0.name) \($0.header.width)x\($0.header.height)" }.joined(separator: ", ")
                if let setName = location.iconSetName,
                   let catalog = catalogIcon(named: setName, largerThan: best.header.pixelCount, keyPath: location.keyPath, into: &result) {
                    result.trace.append("\(location.keyPath): chose the asset-catalog icon over the PNGs (\(sizes))")
                    result.icon = catalog
                    return result
                }
                result.trace.append("\(location.keyPath): chose \(best.name) (\(best.header.width)x\(best.header.height), "
                    + "\(best.header.isCgBI ? "CgBI" : "PNG")) among \(sizes)")
                result.icon = ResolvedIcon(
                    path: best.path, source: location.source, width: best.header.width, height: best.header.height,
                    format: best.header.isCgBI ? .cgbi : .png, assetImage: nil)
                return result
            }
            result.missingReferences += missing
            for icon in unreadable { result.noteUnreadable(icon) }
        }

        for file in Self.fallbackFiles {
            guard root.contains(file) else {
                result.trace.append("fallback: \(file) is not in the app folder")
                continue
            }
            switch root.header(of: file) {
            case .success(let header):
                result.trace.append("fallback: chose \(file) (\(header.width)x\(header.height), \(header.isCgBI ? "CgBI" : "PNG"))")
                result.icon = ResolvedIcon(
                    path: root.path(file), source: .fallback, width: header.width, height: header.height,
                    format: header.isCgBI ? .cgbi : .png, assetImage: nil)
                return result
            case .failure(let reason):
                result.noteUnreadable(UnreadableIcon(path: root.path(file), reason: reason.description))
                result.trace.append("fallback: \(file) is not a readable PNG (\(reason))")
            }
        }

        resolveFromAssetCatalog(info: info, into: &result)
        if result.icon == nil {
            result.trace.append("no icon found")
        }
        return result
    }

    // MARK: Step 5: the asset catalog

    private func resolveFromAssetCatalog(info: PropertyListDictionary, into result: inout IconResolution) {
        guard let setName = Self.iconSetName(in: info) else {
            result.trace.append("assetCatalog: Info.plist names no icon set (CFBundleIconName)")
            return
        }
        result.icon = catalogIcon(named: setName, largerThan: nil, keyPath: "assetCatalog", into: &result)
        // A tvOS primary icon names the catalog's image stack, not a file: found there, it is not missing.
        if result.icon != nil { result.missingReferences.removeAll { $0.name == setName } }
    }

    /// The largest rendition of the icon set `setName` in `Assets.car`, decoded; with
    /// `largerThan`, only when the set has a rendition of more pixels than that (a loose PNG
    /// found first), and nothing is decoded or reported unreadable otherwise.
    private func catalogIcon(
        named setName: String, largerThan area: Int?, keyPath: String, into result: inout IconResolution
    ) -> ResolvedIcon? {
        let catalogPath = archive.app.path + "/Assets.car"
        guard let entry = archive.entry(catalogPath), entry.kind == .file else {
            if area == nil { result.trace.append("\(keyPath): CFBundleIconName is '\(setName)' but the app has no Assets.car") }
            return nil
        }
        let catalog: AssetCatalog
        let zip = archive.archive.zip
        do {
            // The catalog is read whole, within the input's memory limit; so are the renditions decoded.
            var limits = AssetCatalog.Limits()
            limits.maximumPixels = min(limits.maximumPixels, zip.limits.maximumPixels)
            limits.clock = zip.workClock()
            catalog = try AssetCatalog(bytes: zip.read(entry, maximumSize: .max), limits: limits)
        } catch {
            result.trace.append("\(keyPath): Assets.car cannot be read (\(AppArchive.describe(error)))")
            if area == nil { result.noteUnreadable(UnreadableIcon(path: catalogPath, reason: AppArchive.describe(error))) }
            return nil
        }
        let iPadOnly = Set(archive.app.deviceFamilies) == [2]
        do {
            let formatLimit = AssetCatalog.Limits().maximumPixels
            let set = catalog.facet(named: setName)
            let largest = set.flatMap { catalog.renditions(of: $0).map(\.area).filter({ $0 <= formatLimit }).max() }
            if let area {
                guard let largest, largest > area else { return nil }
            }
            if let largest {
                // Decoding holds the rendition as RGBA: refuse the input rather than skip an icon
                // that fits the format (beyond it, the rendition is damage, skipped with its code)
                // but not the memory limit.
                let (bytes, overflow) = UInt64(clamping: largest).multipliedReportingOverflow(by: 4)
                try zip.reserveMemory(overflow ? .max : bytes, for: "the largest rendition of '\(catalogPath)#\(setName)', decoded,")
            }
            guard let selection = try catalog.appIcon(named: setName, iPadOnly: iPadOnly) else {
                result.trace.append("\(keyPath): Assets.car has no bitmap icon set named '\(setName)'")
                return nil
            }
            let rendition = selection.rendition
            let image = selection.image
            if let area, image.width * image.height <= area { return nil }
            for candidate in selection.candidates {
                if case .notExtractable(let code, let reason) = candidate.verdict {
                    result.trace.append("\(keyPath): skipped rendition '\(candidate.rendition.name)' "
                        + "(\(candidate.rendition.width)x\(candidate.rendition.height)): \(code): \(reason)")
                }
            }
            result.trace.append("\(keyPath): chose rendition '\(rendition.name)' (\(image.width)x\(image.height)) "
                + "of icon set '\(setName)' in Assets.car among \(selection.candidates.count) rendition(s)"
                + (selection.usedFallbackIdiom ? ", from another idiom as none matched" : ""))
            return ResolvedIcon(
                path: catalogPath + "#" + rendition.name, source: .assetCatalog, width: image.width,
                height: image.height, format: .assetCatalog, assetImage: image)
        } catch {
            result.trace.append("\(keyPath): the icon set '\(setName)' cannot be extracted (\(AppArchive.describe(error)))")
            if area == nil { result.noteUnreadable(UnreadableIcon(path: catalogPath, reason: AppArchive.describe(error))) }
            return nil
        }
    }

    /// `CFBundleIconName` from `CFBundleIcons` (or `~ipad`) → `CFBundlePrimaryIcon`, or top level.
    /// A tvOS app's `CFBundlePrimaryIcon` is a plain string naming an image stack (or icon set)
    /// in `Assets.car`: used when no icon set is named otherwise.
    static func iconSetName(in info: PropertyListDictionary) -> String? {
        for key in ["CFBundleIcons", "CFBundleIcons~ipad"] {
            if let name = info[key]?["CFBundlePrimaryIcon"]?["CFBundleIconName"]?.string { return name }
        }
        return info["CFBundlePrimaryIcon"]?["CFBundleIconName"]?.string ?? info["CFBundleIconName"]?.string
            ?? info["CFBundleIcons"]?["CFBundlePrimaryIcon"]?.string ?? info["CFBundlePrimaryIcon"]?.string
    }

    // MARK: Locations and names

    static func locations(in info: PropertyListDictionary, iPadOnly: Bool = false) -> [Location] {
        func files(of icon: PropertyListValue?) -> [String] {
            guard let icon else { return [] }
            if let name = icon.string { return [name] }  // tvOS/visionOS: a plain string
            return icon["CFBundleIconFiles"]?.stringArray ?? []
        }
        func bundleIcons(_ key: String, _ source: IconSource) -> Location {
            let primary = info[key]?["CFBundlePrimaryIcon"]
            return Location(
                source: source, keyPath: "\(key) > CFBundlePrimaryIcon", isPresent: primary != nil,
                names: unique(files(of: primary)), iconSetName: primary?["CFBundleIconName"]?.string)
        }
        let newsstand = (info["UINewsstandIcon"]?["CFBundleIconFiles"]?.stringArray ?? [])
            + (info["CFBundleIcons"]?["UINewsstandIcon"]?["CFBundleIconFiles"]?.stringArray ?? [])
        var documents: [String] = []
        for type in info["CFBundleDocumentTypes"]?.array ?? [] {
            documents += type["CFBundleTypeIconFiles"]?.stringArray ?? []
            if let single = type["CFBundleTypeIconFile"]?.string { documents.append(single) }
        }
        // iPad entries are their own location, after the iPhone one (first for an iPad-only app).
        var bundleLocations = [bundleIcons("CFBundleIcons", .bundleIcons), bundleIcons("CFBundleIcons~ipad", .bundleIconsIPad)]
        if iPadOnly { bundleLocations.reverse() }
        return bundleLocations + [
            Location(source: .primaryIcon, keyPath: "CFBundlePrimaryIcon", isPresent: info["CFBundlePrimaryIcon"] != nil,
                     names: unique(files(of: info["CFBundlePrimaryIcon"]))),
            Location(source: .iconFiles, keyPath: "CFBundleIconFiles", isPresent: info["CFBundleIconFiles"] != nil,
                     names: unique(info["CFBundleIconFiles"]?.stringArray ?? [])),
            Location(source: .iconFile, keyPath: "CFBundleIconFile", isPresent: info["CFBundleIconFile"] != nil,
                     names: unique(info["CFBundleIconFile"]?.stringArray ?? [])),
            Location(source: .newsstandIcon, keyPath: "UINewsstandIcon > CFBundleIconFiles",
                     isPresent: info["UINewsstandIcon"] != nil || info["CFBundleIcons"]?["UINewsstandIcon"] != nil,
                     names: unique(newsstand)),
            Location(source: .documentTypes, keyPath: "CFBundleDocumentTypes > CFBundleTypeIconFiles",
                     isPresent: info["CFBundleDocumentTypes"] != nil, names: unique(documents)),
        ]
    }

    /// The file names a name from Info.plist can refer to, in the order they are listed.
    static func candidateFileNames(for name: String) -> [String] {
        let base = name.hasSuffix(".png") ? String(name.dropLast(4)) : name
        var names = [name, base + ".png"]
        for scale in ["", "@2x", "@3x"] {
            for device in ["", "~ipad", "~iphone"] where !(scale.isEmpty && device.isEmpty) {
                names.append(base + scale + device + ".png")
            }
        }
        return unique(names.filter { !$0.isEmpty && !$0.contains("/") })
    }

    /// The largest pixel area; the first listed on a tie.
    static func largest(_ candidates: [Candidate]) -> Candidate? {
        var best: Candidate?
        for candidate in candidates where best.map({ candidate.header.pixelCount > $0.header.pixelCount }) ?? true {
            best = candidate
        }
        return best
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }
}

/// The files directly in the app folder (the main bundle's root), and their PNG headers.
private struct RootFiles {
    let archive: AppArchive
    private let files: [String: ArchiveEntry]

    init(archive: AppArchive) {
        self.archive = archive
        let prefix = archive.archive.appDirectory
        var files: [String: ArchiveEntry] = [:]
        let prefixLength = prefix.utf8.count
        // A limit hit while listing is recorded in the archive, which refuses the input after this area.
        let inApp = (try? archive.archive.zip.entries(inFolder: String(prefix.dropLast()))) ?? []
        for entry in inApp where entry.kind == .file {
            let name = entry.path.utf8.dropFirst(prefixLength)
            if !name.isEmpty, !name.contains(UInt8(ascii: "/")), let text = String(name) { files[text] = entry }
        }
        self.files = files
    }

    func contains(_ name: String) -> Bool { files[name] != nil }

    func path(_ name: String) -> String { archive.archive.appDirectory + name }

    func caseInsensitiveMatch(for candidates: [String]) -> String? {
        let wanted = Set(candidates.map { $0.lowercased() })
        return files.keys.sorted().first { wanted.contains($0.lowercased()) }
    }

    /// The PNG header, read from the first bytes of the entry only.
    func header(of name: String) -> Result<PNGHeader, UnreadableReason> {
        guard let entry = files[name] else { return .failure(UnreadableReason("missing")) }
        do {
            let source = archive.archive.zip.byteSource(for: entry)
            let prefix = try source.read(offset: 0, count: Int(min(entry.uncompressedSize, UInt64(IconResolver.headerPrefix))))
            return .success(try PNGHeader(prefix: prefix, checksums: .ignore))
        } catch {
            return .failure(UnreadableReason(AppArchive.describe(error)))
        }
    }
}

struct UnreadableReason: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension AppArchive {
    /// Resolves the app icon (see `IconResolver`).
    public func resolveIcon() -> IconResolution {
        IconResolver(archive: self).resolve()
    }

    /// The resolved icon as a standard PNG: CgBI files are decoded, standard PNGs re-encoded only
    /// when needed, asset-catalog renditions converted from premultiplied BGRA.
    public func iconPNG(_ icon: ResolvedIcon) throws -> [UInt8] {
        if let image = icon.assetImage {
            return try PNGEncoder.encode(image, clock: archive.zip.workClock())
        }
        guard let bytes = try read(icon.path, maximumSize: 64 << 20) else {
            throw BundleError.entryMissing(archive: archive.path, path: icon.path)
        }
        // The format's bounds first (PNG_DIMENSIONS), then the input's memory limit.
        let header = try PNGHeader(prefix: Array(bytes.prefix(IconResolver.headerPrefix)), checksums: .ignore)
        try PNGLimits.default.check(header)
        try archive.zip.reserveMemory(
            header.decodeMemory, for: "'\(icon.path)' decoded (\(header.width)x\(header.height))")
        // Icons are for display: a bad checksum does not stop decoding.
        return try CgBIConverter.standardPNG(
            from: bytes, limits: PNGLimits(clock: archive.zip.workClock()), checksums: .ignore)
    }
}
