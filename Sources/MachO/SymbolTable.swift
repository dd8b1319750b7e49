import FormatSupport

/// The symbols of a slice (`LC_SYMTAB`'s `nlist` entries and string table), sorted into what the
/// image defines for others and what it imports, with Objective-C classes picked out.
///
/// C names carry a leading underscore: OpenSSL's `SSL_CTX_new` is `_SSL_CTX_new`, and a class
/// `Foo` is `_OBJC_CLASS_$_Foo`.
public struct SymbolTable: Sendable {
    /// Caps on what is read, so a huge or hostile table costs bounded memory.
    public struct Limits: Sendable {
        /// `nlist` entries read at most; the rest are ignored and `isTruncated` is set.
        public var maximumSymbols: Int
        /// String-table bytes read at most; names past it are counted in `unreadNameCount`.
        public var maximumStringTableBytes: Int
        /// The time limit of the work on the input the slice came from, checked per symbol and
        /// per name byte scanned.
        public var clock: WorkClock

        public init(maximumSymbols: Int = 2_000_000, maximumStringTableBytes: Int = 128 << 20, clock: WorkClock = .unlimited) {
            self.maximumSymbols = maximumSymbols
            self.maximumStringTableBytes = maximumStringTableBytes
            self.clock = clock
        }
    }

    /// One `nlist` entry with its name.
    public struct Symbol: Sendable, Equatable {
        public let name: String
        /// `n_type`: stab bits (0xE0), private-external (0x10), kind (0x0E), external (0x01).
        public let type: UInt8
        /// `n_sect`: 1-based section number for section symbols, 0 otherwise.
        public let sectionNumber: UInt8
        /// `n_desc`: reference flags, weak bits and, for imports, the library ordinal.
        public let descriptor: UInt16
        public let value: UInt64

        public var isExternal: Bool { type & 0x01 != 0 }
        public var isPrivateExternal: Bool { type & 0x10 != 0 }
        public var isDebug: Bool { type & 0xE0 != 0 }
        /// `N_UNDF`, `N_PBUD` (imported) versus `N_SECT`, `N_ABS`, `N_INDR` (defined).
        public var isUndefined: Bool {
            let kind = type & 0x0E
            return kind == 0x0 || kind == 0xC
        }
    }

    /// Which image an imported symbol is bound to (two-level namespace).
    public enum LibraryReference: Sendable, Equatable {
        /// A library from `MachOSlice.linkedLibraries`; `ordinal` is 1-based.
        case library(ordinal: Int, path: String)
        /// Ordinal 0: this image itself.
        case selfImage
        /// Ordinal 0xFF (`EXECUTABLE_ORDINAL`): the main executable (plug-ins linking against
        /// their host).
        case mainExecutable
        /// Ordinal 0xFE (`DYNAMIC_LOOKUP_ORDINAL`): looked up in every loaded image
        /// (`-undefined dynamic_lookup`).
        case dynamicLookup
        /// The image uses a flat namespace, so imports do not name a library.
        case flatNamespace
        /// An ordinal past the image's linked libraries.
        case invalidOrdinal(Int)
    }

    /// A symbol this image uses but does not define.
    public struct ImportedSymbol: Sendable, Equatable {
        public let name: String
        public let library: LibraryReference
        /// `N_WEAK_REF`: the symbol may be missing at run time.
        public let isWeak: Bool
    }

    static let objcClassPrefix = Array("_OBJC_CLASS_$_".utf8)

    /// External symbols defined in this image (exported), in table order.
    public let defined: [Symbol]
    /// Undefined external symbols, in table order.
    public let imported: [ImportedSymbol]
    /// Names `X` of the `_OBJC_CLASS_$_X` symbols this image defines (external or not).
    public let objcClassesDefined: [String]
    /// Names `X` of the `_OBJC_CLASS_$_X` symbols this image imports.
    public let objcClassesReferenced: [String]
    /// Non-external, non-debug symbols.
    public let localSymbolCount: Int
    /// Debugger (stab) entries.
    public let debugSymbolCount: Int
    /// `nsyms` from `LC_SYMTAB`.
    public let declaredSymbolCount: Int
    /// Symbols whose names lie past the part of the string table read under `Limits`, or past
    /// the bytes of names kept (`maximumNameBytes`).
    public let unreadNameCount: Int
    /// Whether a limit cut the table short (symbols or names were skipped).
    public var isTruncated: Bool { declaredSymbolCount > symbolsRead || unreadNameCount > 0 }
    private let symbolsRead: Int

    /// Decodes `nlist` entries against a string table.
    ///
    /// - Parameters:
    ///   - entries: `count` consecutive `nlist` (12 bytes) or `nlist_64` (16 bytes) entries.
    ///   - strings: the start of the string table; `declaredStringSize` is its full size, which
    ///     may be larger when a limit cut it.
    ///   - libraries: the slice's linked libraries, to resolve ordinals.
    ///   - clock: the input's time limit (`ARCHIVE_TIME_LIMIT`), read as symbols and name bytes are
    ///     scanned: many symbols may name one long string, so the scanning is not bounded by the
    ///     table's size.
    public init(
        entries: [UInt8], count: Int, declaredCount: Int, is64Bit: Bool, byteOrder: Endianness,
        strings: [UInt8], declaredStringSize: Int, libraries: [LinkedLibrary], twoLevelNamespace: Bool,
        clock: WorkClock = .unlimited
    ) throws(MachOError) {
        var clock = clock
        var nameBytesLeft = Self.maximumNameBytes(stringTableBytes: strings.count)
        let entrySize = is64Bit ? 16 : 12
        guard count >= 0, count <= entries.count / entrySize else {
            throw MachOError(.symbolTable, "\(count) symbols do not fit in \(entries.count) bytes of nlist entries")
        }
        let reader = ByteReader(entries)
        let table = ByteReader(strings)
        var defined: [Symbol] = []
        var imported: [ImportedSymbol] = []
        var classesDefined: [String] = []
        var classesReferenced: [String] = []
        var locals = 0
        var debug = 0
        var unread = 0
        do {
            for index in 0..<count {
                if clock.isExpired(after: 1) { throw MachOError(.timeLimit, clock.timeLimitMessage) }
                let at = index * entrySize
                let type = try reader.uint8(at: at + 4)
                if type & 0xE0 != 0 {
                    debug += 1
                    continue
                }
                let stringIndex = Int(try reader.uint32(at: at, byteOrder))
                guard stringIndex < declaredStringSize || (stringIndex == 0 && declaredStringSize == 0) else {
                    throw MachOError(
                        .symbolTable,
                        "symbol \(index) names string offset \(stringIndex), past the \(declaredStringSize)-byte string table"
                    )
                }
                guard stringIndex < strings.count || declaredStringSize == 0 else {
                    unread += 1
                    continue
                }
                let nameBytes: ArraySlice<UInt8>
                if declaredStringSize == 0 {
                    nameBytes = []
                } else {
                    do {
                        nameBytes = try table.cString(at: stringIndex, maxLength: strings.count - stringIndex)
                    } catch {
                        if strings.count < declaredStringSize {
                            unread += 1
                            continue
                        }
                        throw MachOError(
                            .symbolTable, "the name of symbol \(index) is not NUL-terminated inside the string table")
                    }
                }
                if clock.isExpired(after: nameBytes.count) { throw MachOError(.timeLimit, clock.timeLimitMessage) }
                let isExternal = type & 0x01 != 0
                let kind = type & 0x0E
                let isUndefined = kind == 0x0 || kind == 0xC
                let isClass = nameBytes.starts(with: Self.objcClassPrefix)
                // Names kept as strings are bounded, however many symbols share their bytes.
                if isExternal || isClass {
                    guard nameBytes.count <= nameBytesLeft else {
                        unread += 1
                        continue
                    }
                    nameBytesLeft -= nameBytes.count
                }
                if !isExternal {
                    locals += 1
                    if isClass && !isUndefined {
                        classesDefined.append(Self.className(nameBytes))
                    }
                    continue
                }
                let name = String(decoding: nameBytes, as: UTF8.self)
                let descriptor = try reader.uint16(at: at + 6, byteOrder)
                if isUndefined {
                    imported.append(
                        ImportedSymbol(
                            name: name,
                            library: Self.library(
                                ordinal: Int(descriptor >> 8), libraries: libraries, twoLevel: twoLevelNamespace),
                            isWeak: descriptor & 0x40 != 0))
                    if isClass { classesReferenced.append(Self.className(nameBytes)) }
                } else {
                    let value =
                        is64Bit
                        ? try reader.uint64(at: at + 8, byteOrder) : UInt64(try reader.uint32(at: at + 8, byteOrder))
                    defined.append(
                        Symbol(
                            name: name, type: type, sectionNumber: try reader.uint8(at: at + 5), descriptor: descriptor,
                            value: value))
                    if isClass { classesDefined.append(Self.className(nameBytes)) }
                }
            }
        } catch let error as MachOError {
            throw error
        } catch {
            throw MachOError(.symbolTable, "an nlist entry is cut off")
        }
        self.defined = defined
        self.imported = imported
        objcClassesDefined = classesDefined
        objcClassesReferenced = classesReferenced
        localSymbolCount = locals
        debugSymbolCount = debug
        declaredSymbolCount = declaredCount
        symbolsRead = count
        unreadNameCount = unread
    }

    /// The bytes of names kept for a string table of `stringTableBytes`: twice the table and a MiB,
    /// more than any linker's sharing of string tails gives, so only a hostile table (thousands of
    /// symbols naming one long string) reaches it; the names past it count as unread.
    public static func maximumNameBytes(stringTableBytes: Int) -> Int {
        2 * stringTableBytes + (1 << 20)
    }

    private static func className(_ symbolName: ArraySlice<UInt8>) -> String {
        String(decoding: symbolName.dropFirst(objcClassPrefix.count), as: UTF8.self)
    }

    private static func library(ordinal: Int, libraries: [LinkedLibrary], twoLevel: Bool) -> LibraryReference {
        guard twoLevel else { return .flatNamespace }
        switch ordinal {
        case 0: return .selfImage
        case 0xFE: return .dynamicLookup
        case 0xFF: return .mainExecutable
        default:
            guard ordinal >= 1, ordinal <= libraries.count else { return .invalidOrdinal(ordinal) }
            return .library(ordinal: ordinal, path: libraries[ordinal - 1].path)
        }
    }
}
