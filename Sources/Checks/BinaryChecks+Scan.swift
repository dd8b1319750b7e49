import AppBundle
import FormatSupport
import MachO
import Reporting
import Zip

/// What the binary checks look for in an executable. Only these names are kept from a scan, so a
/// framework exporting a hundred thousand symbols costs no more memory than a small one.
struct BinaryMarkers {
    /// Objective-C classes, looked for as defined (`__objc_classname`, defined `_OBJC_CLASS_$_X`)
    /// and as referenced (imported `_OBJC_CLASS_$_X`).
    var classes: Set<String> = []
    /// Symbols whose definition is evidence, e.g. `_SSL_CTX_new`.
    var definedSymbols: Set<String> = []
    /// Symbols whose import is evidence, e.g. `_sqlite3_key`.
    var importedSymbols: Set<String> = []
    /// Selector names looked for in `__objc_methname` and `__cstring`.
    var selectors: Set<String> = []
    /// Prefixes looked for in `__cstring`, e.g. `OpenSSL ` for OpenSSL's version banner.
    var stringPrefixes: [String] = []
}

/// The evidence one executable gives, read once for every binary check: its headers (from the
/// context's cache), the Objective-C and C-string sections of one slice when they are not
/// encrypted, and that slice's symbol table.
struct BinaryEvidence {
    let bundle: BundleInfo
    /// Archive path of the executable.
    let path: String
    var architectures: [String] = []
    /// Architectures whose slice has `cryptid` ≠ 0.
    var encryptedArchitectures: [String] = []
    /// Install names of every linked library, across slices, in first-seen order.
    var linkedLibraries: [String] = []
    /// The architecture whose symbols and strings were read.
    var scannedArchitecture: String?
    /// Marker classes this binary defines.
    var definedClasses: Set<String> = []
    /// Marker classes this binary imports, with the library each is bound to.
    var referencedClasses: [String: String] = [:]
    var definedSymbols: Set<String> = []
    /// Marker symbols this binary imports, with the library each is bound to.
    var importedSymbols: [String: String] = [:]
    /// Marker selectors found in the method-name or C-string sections.
    var selectors: Set<String> = []
    /// C strings that start with a marker prefix (at most a few, for messages).
    var prefixedStrings: [String] = []
    /// Whether the sections read were in the encrypted range, so no string evidence exists.
    var stringsEncrypted = false
    /// Whether a symbol table was read (stripped binaries still keep their imports).
    var symbolsRead = false
    /// Why the binary, or part of it, could not be read.
    var problems: [String] = []

    /// Whether the headers were read (an unreadable binary has only `problems`).
    var headersRead: Bool { !architectures.isEmpty }

    init(bundle: BundleInfo, path: String) {
        self.bundle = bundle
        self.path = path
    }
}

/// Reads `BinaryEvidence` from executables.
enum BinaryScanner {
    /// Caps on the symbol table read: far above a stripped app's few thousand symbols, and enough
    /// for unstripped frameworks, while bounding memory on hostile or huge tables.
    static let symbolLimits = SymbolTable.Limits(maximumSymbols: 1_000_000, maximumStringTableBytes: 64 << 20)
    /// Bytes read at most from each string section.
    static let maximumSectionBytes = 16 << 20
    /// The sections read for strings, by what they hold.
    static let classNameSection = "__objc_classname"
    static let methodNameSection = "__objc_methname"
    static let cStringSection = "__cstring"
    /// Strings kept per binary for messages.
    static let maximumPrefixedStrings = 4

    /// Reads the evidence of `bundle`'s executable, or nil when the bundle names none that exists.
    static func scan(_ bundle: BundleInfo, context: CheckContext, markers: BinaryMarkers) -> BinaryEvidence? {
        guard let path = bundle.executablePath, let headers = context.executable(of: bundle) else { return nil }
        var evidence = BinaryEvidence(bundle: bundle, path: path)
        let file: MachOFile
        switch headers {
        case .success(let parsed):
            file = parsed
        case .failure(let error):
            evidence.problems.append("it cannot be read as a Mach-O file: \(reason(error))")
            return evidence
        }
        evidence.architectures = file.architectureNames
        evidence.encryptedArchitectures = file.slices.filter(\.isEncrypted).map(\.architecture.name)
        var seenLibraries: Set<String> = []
        for slice in file.slices {
            for library in slice.linkedLibraries where seenLibraries.insert(library.path).inserted {
                evidence.linkedLibraries.append(library.path)
            }
        }
        guard let entry = context.archive.entry(path), let slice = preferredSlice(of: file) else { return evidence }
        evidence.scannedArchitecture = slice.architecture.name
        var source = context.archive.archive.zip.byteSource(for: entry)
        // A deflated entry is inflated forwards; reading the __TEXT sections in file order and
        // then the symbol table (in __LINKEDIT, at the end) inflates it once.
        // Within the input's memory limit, each section and table is read up to a part of it.
        let memory = Int(clamping: context.archive.archive.zip.limits.maximumMemory)
        do {
            try readStrings(
                of: slice, from: &source, markers: markers, maxBytes: min(maximumSectionBytes, memory), into: &evidence)
        } catch {
            evidence.problems.append("its strings (\(slice.architecture.name)) cannot be read: \(reason(error))")
        }
        do {
            let limits = SymbolTable.Limits(
                maximumSymbols: min(symbolLimits.maximumSymbols, memory / 32),
                maximumStringTableBytes: min(symbolLimits.maximumStringTableBytes, memory / 2),
                clock: context.archive.archive.zip.workClock())
            if let symbols = try slice.readSymbolTable(from: &source, limits: limits) {
                evidence.symbolsRead = true
                collect(symbols, markers: markers, into: &evidence)
            }
        } catch {
            evidence.problems.append("its symbol table (\(slice.architecture.name)) cannot be read: \(reason(error))")
        }
        return evidence
    }

    /// The slice to read: an unencrypted one if any (its strings are readable), arm64 before
    /// arm64e before the last listed (usually the newest architecture).
    static func preferredSlice(of file: MachOFile) -> MachOSlice? {
        let readable = file.slices.filter { !$0.isEncrypted }
        let candidates = readable.isEmpty ? file.slices : readable
        return candidates.first { $0.architecture.name == "arm64" }
            ?? candidates.first { $0.architecture.name == "arm64e" }
            ?? candidates.last
    }

    private static func readStrings(
        of slice: MachOSlice, from source: inout ArchiveEntrySource, markers: BinaryMarkers, maxBytes: Int,
        into evidence: inout BinaryEvidence
    ) throws {
        let names = [classNameSection, methodNameSection, cStringSection]
        let sections = names.compactMap { slice.section(segment: "__TEXT", name: $0) }.sorted { $0.offset < $1.offset }
        for section in sections {
            guard
                let contents = try slice.readCStrings(
                    segment: "__TEXT", section: section.name, from: &source, maxBytes: maxBytes)
            else { continue }
            if contents.isEncrypted {
                evidence.stringsEncrypted = true
                continue
            }
            switch section.name {
            case classNameSection:
                for name in contents.strings where markers.classes.contains(name) {
                    evidence.definedClasses.insert(name)
                }
            case methodNameSection:
                for name in contents.strings where markers.selectors.contains(name) {
                    evidence.selectors.insert(name)
                }
            default:
                for text in contents.strings {
                    if markers.selectors.contains(text) { evidence.selectors.insert(text) }
                    if evidence.prefixedStrings.count < maximumPrefixedStrings,
                        markers.stringPrefixes.contains(where: { text.hasPrefix($0) }),
                        !evidence.prefixedStrings.contains(text)
                    {
                        evidence.prefixedStrings.append(text)
                    }
                }
            }
        }
    }

    private static func collect(_ symbols: SymbolTable, markers: BinaryMarkers, into evidence: inout BinaryEvidence) {
        for name in symbols.objcClassesDefined where markers.classes.contains(name) {
            evidence.definedClasses.insert(name)
        }
        for symbol in symbols.defined where markers.definedSymbols.contains(symbol.name) {
            evidence.definedSymbols.insert(symbol.name)
        }
        let classPrefix = "_OBJC_CLASS_$_"
        for symbol in symbols.imported {
            if symbol.name.hasPrefix(classPrefix) {
                let name = String(symbol.name.dropFirst(classPrefix.count))
                if markers.classes.contains(name), evidence.referencedClasses[name] == nil {
                    evidence.referencedClasses[name] = describe(symbol.library)
                }
            } else if markers.importedSymbols.contains(symbol.name), evidence.importedSymbols[symbol.name] == nil {
                evidence.importedSymbols[symbol.name] = describe(symbol.library)
            }
        }
    }

    /// An error as a message: its sentence and, for coded errors, the code to search for.
    static func reason(_ error: any Error) -> String {
        if let coded = error as? any CodedError { return "\(coded.description) [\(coded.code)]" }
        return "\(error)"
    }

    /// Where an imported symbol comes from, for messages.
    static func describe(_ library: SymbolTable.LibraryReference) -> String {
        switch library {
        case .library(_, let path): path
        case .selfImage: "the binary itself"
        case .mainExecutable: "the main executable"
        case .dynamicLookup: "any loaded image (dynamic lookup)"
        case .flatNamespace: "any library (flat namespace)"
        case .invalidOrdinal(let ordinal): "library ordinal \(ordinal), which the binary does not link"
        }
    }
}
