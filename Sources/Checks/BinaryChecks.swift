import AppBundle
import FormatSupport
import MachO
import Reporting
import ToolData
import Zip

/// Findings from the app's binaries, its SDKs and the Info.plist settings that decide how they
/// behave: App Store encryption, the management SDKs of `Templates/sdk-catalog.json` and their
/// versions against the toolkit, the compatibility issues of the MDX best practices (private
/// SQLite, SQLCipher, static OpenSSL, UIWebView, background URL sessions, cross-platform
/// frameworks), ATS and Intune multi-identity.
///
/// Each executable (the app's and every nested bundle's) is read once: its headers from the
/// context's cache, then one slice's string sections and symbol table, in file order.
enum BinaryChecks {
    /// Runs the checks with the catalog and toolkit version the caller resolved.
    static func apply(_ context: CheckContext, to report: inout Report) {
        apply(context, catalog: context.toolData.sdkCatalog, toolkitVersion: context.toolData.toolkitVersion, to: &report)
    }

    static func apply(_ context: CheckContext, catalog: SDKCatalog, toolkitVersion: ToolkitVersion, to report: inout Report) {
        let markers = markers(for: catalog)
        var binaries: [BinaryEvidence] = []
        for bundle in context.archive.allBundles {
            // Over its time limit, the input is refused after this area (the limit is recorded).
            guard (try? context.archive.checkLimits()) != nil else { break }
            guard let evidence = BinaryScanner.scan(bundle, context: context, markers: markers) else { continue }
            binaries.append(evidence)
            // The signature sits at the executable's end: read now, it continues the scan's
            // inflated stream instead of starting another (`CheckContext.signatureReading`).
            _ = context.signatureReading(of: bundle)
        }
        let files = AppFiles(context.archive)
        let libraries = looseLibraries(context)

        encryption(binaries + libraries, to: &report)
        unreadable(binaries + libraries, to: &report)
        SDKDetection(catalog: catalog, context: context, binaries: binaries)
            .apply(toolkitVersion: toolkitVersion, to: &report)
        Compatibility(context: context, binaries: binaries, files: files).apply(to: &report)
        ATSSettings.apply(context, binaries: binaries, to: &report)
    }

    /// Everything the scan keeps: the catalog's classes and the compatibility rules' markers.
    static func markers(for catalog: SDKCatalog) -> BinaryMarkers {
        var markers = Compatibility.markers
        for family in catalog.families { markers.classes.formUnion(family.markerClasses) }
        return markers
    }

    /// The headers of the loose dynamic libraries beside each bundle's frameworks
    /// (`Frameworks/*.dylib`, such as the Swift runtime older apps ship): code the app loads, so
    /// encryption there blocks wrapping as it does in an executable. Only their headers are read.
    static func looseLibraries(_ context: CheckContext) -> [BinaryEvidence] {
        var owners: [String: BundleInfo] = [:]
        for bundle in context.archive.allBundles { owners[bundle.path + "/Frameworks"] = bundle }
        var libraries: [BinaryEvidence] = []
        let dylib = Array(".dylib".utf8)
        // On the name's bytes: an ASCII suffix is the same in every reading of them.
        for entry in context.archive.archive.zip.entries where entry.kind == .file && entry.fileNameBytes.suffix(dylib.count).elementsEqual(dylib) {
            let path = entry.path
            guard let slash = path.lastIndex(of: "/"), let bundle = owners[String(path[..<slash])] else { continue }
            var evidence = BinaryEvidence(bundle: bundle, path: path)
            do {
                guard let file = try context.archive.machO(at: path) else { continue }
                evidence.architectures = file.architectureNames
                evidence.encryptedArchitectures = file.slices.filter(\.isEncrypted).map(\.architecture.name)
            } catch {
                evidence.problems.append("it cannot be read as a Mach-O file: \(BinaryScanner.reason(error))")
            }
            libraries.append(evidence)
        }
        return libraries
    }

    /// `APP_ENCRYPTED`: one finding per binary, naming the encrypted architectures.
    private static func encryption(_ binaries: [BinaryEvidence], to report: inout Report) {
        for binary in binaries where !binary.encryptedArchitectures.isEmpty {
            report.findings.append(Finding(
                .binary(.encrypted(binaryPath: binary.path, architectures: binary.encryptedArchitectures)),
                at: .archive(binary.path)))
        }
    }

    /// `BINARY_UNREADABLE`: what could not be read, so a clean report is not mistaken for a
    /// checked binary.
    private static func unreadable(_ binaries: [BinaryEvidence], to report: inout Report) {
        for binary in binaries where !binary.problems.isEmpty {
            report.findings.append(Finding(
                .binary(.unreadable(binaryPath: binary.path, problems: binary.problems)), at: .archive(binary.path)))
        }
    }
}

/// The files of the app folder, for markers that are files rather than binaries (loose dylibs,
/// the resources of cross-platform frameworks). Held compactly, as an app may have 250,000
/// files: entry positions and their lowercased file names in one buffer; paths are built for
/// the files a check asks for.
struct AppFiles {
    private let zip: ZipArchive
    /// Positions of every file (and symlink) inside the app folder, in archive order.
    private let entries: [UInt32]
    /// Each file name, lowercased (computed once: every check filters on it), one after another;
    /// name `i` ends at `nameEnds[i]`.
    private let lowercasedNames: [UInt8]
    private let nameEnds: [UInt32]
    private let appPrefix: String

    init(_ archive: AppArchive) {
        zip = archive.archive.zip
        appPrefix = archive.app.path + "/"
        var entries: [UInt32] = []
        var names: [UInt8] = []
        var ends: [UInt32] = []
        for entry in zip.entries(within: archive.app.path) where entry.kind != .directory {
            entries.append(UInt32(entry.index))
            let bytes = entry.fileNameBytes
            if bytes.allSatisfy({ $0 < 0x80 }) {
                // ASCII lowercases byte by byte, as String.lowercased() does it.
                names.append(contentsOf: bytes.lazy.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 0x20 : $0 })
            } else {
                names.append(contentsOf: entry.fileName.lowercased().utf8)
            }
            ends.append(UInt32(names.count))
        }
        self.entries = entries
        self.lowercasedNames = names
        self.nameEnds = ends
    }

    /// What a file name (lowercased) must be for a check: one of `anyOf`, and, when given, ending
    /// with `suffix` and containing none of `excluding`. Each part's text must appear in a name it
    /// accepts, which lets `named(_:)` pass over names without building their strings.
    struct NameRule {
        enum Part {
            case equals(String)
            case hasPrefix(String)
            case contains(String)

            var text: String {
                switch self {
                case .equals(let text), .hasPrefix(let text), .contains(let text): text
                }
            }
        }

        var anyOf: [Part]
        var suffix: String?
        var excluding: [String] = []

        init(anyOf: [Part], suffix: String? = nil, excluding: [String] = []) {
            self.anyOf = anyOf
            self.suffix = suffix
            self.excluding = excluding
        }

        func matches(_ lowercasedName: String) -> Bool {
            let some = anyOf.contains { part in
                switch part {
                case .equals(let text): lowercasedName == text
                case .hasPrefix(let text): lowercasedName.hasPrefix(text)
                case .contains(let text): lowercasedName.contains(text)
                }
            }
            return some && suffix.map { lowercasedName.hasSuffix($0) } ?? true
                && !excluding.contains { lowercasedName.contains($0) }
        }
    }

    /// Paths whose lowercased file name `rule` matches. An ASCII name that contains none of the
    /// rule's texts is passed over without building its string (ASCII text matches ASCII text
    /// only byte for byte); any other name is always asked about, as string comparison follows
    /// canonical equivalence.
    func named(_ rule: NameRule) -> [String] {
        let needles = rule.anyOf.map(\.text)
        // A non-ASCII needle could equal an ASCII name canonically: then every name is asked about.
        let patterns = needles.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } } ? needles.map { Array($0.utf8) } : nil
        var paths: [String] = []
        var start = 0
        for (position, end) in nameEnds.enumerated() {
            defer { start = Int(end) }
            let name = lowercasedNames[start..<Int(end)]
            if let patterns, name.allSatisfy({ $0 < 0x80 }), !patterns.contains(where: { Self.bytes(name, contain: $0) }) { continue }
            if rule.matches(String(decoding: name, as: UTF8.self)) {
                paths.append(zip.entries[Int(entries[position])].path)
            }
        }
        return paths
    }

    private static func bytes(_ bytes: ArraySlice<UInt8>, contain pattern: [UInt8]) -> Bool {
        guard let first = pattern.first, bytes.count >= pattern.count else { return pattern.isEmpty }
        var at = bytes.startIndex
        let last = bytes.endIndex - pattern.count
        while at <= last {
            if bytes[at] == first && bytes[at..<(at + pattern.count)].elementsEqual(pattern) { return true }
            at += 1
        }
        return false
    }

    func contains(_ path: String) -> Bool {
        guard path.hasPrefix(appPrefix), !path.hasSuffix("/"), let entry = zip.entry(named: path) else { return false }
        return entry.kind != .directory
    }

    /// Whether any file lies inside `folder` (an archive path without a trailing slash).
    func hasFiles(under folder: String) -> Bool {
        folder.hasPrefix(appPrefix) && zip.entries(within: folder).contains { $0.kind != .directory }
    }

    static func fileName(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}
