/// What the central directory says of every entry, parsed once and held compactly: a few packed
/// columns of numbers with one row per entry (no object or string per entry), while the names
/// live once in a `PathTree`. About 40 bytes an entry plus the tree, against about 1 KB when
/// every entry was a struct with its own name arrays and strings. The raw records are not kept:
/// the writer reads them again from the file, in order.
struct EntryTable: Sendable {
    private(set) var localHeaderOffsets = PackedIntegers()
    private(set) var compressedSizes = PackedIntegers()
    private(set) var uncompressedSizes = PackedIntegers()
    /// Offset of each record within the central directory (at most 256 MiB long).
    private(set) var recordOffsets: [UInt32] = []
    private(set) var crc32s: [UInt32] = []
    private(set) var externalAttributes: [UInt32] = []
    /// Data offset minus local-header offset (header, name and extra field: under 2^18).
    private var dataOffsetDeltas: [UInt32] = []
    private(set) var versionsMadeBy: [UInt16] = []
    private(set) var flags: [UInt16] = []
    private(set) var methods: [UInt16] = []
    private(set) var dosTimes: [UInt16] = []
    private(set) var dosDates: [UInt16] = []
    /// Bits 0-1: the kind; bit 2: the name ends with a slash; bits 3-5: the data descriptor's
    /// length in 4-byte units (0, 12, 16, 20 or 24 bytes).
    private var traits: [UInt8] = []
    /// The newest modification time of any entry (new entries get it).
    private(set) var latestModification: DOSTimestamp?

    var count: Int { traits.count }

    mutating func reserveCapacity(_ count: Int) {
        localHeaderOffsets.reserveCapacity(count)
        compressedSizes.reserveCapacity(count)
        uncompressedSizes.reserveCapacity(count)
        for column in [\Self.recordOffsets, \.crc32s, \.externalAttributes] as [WritableKeyPath<Self, [UInt32]>] {
            self[keyPath: column].reserveCapacity(count)
        }
        for column in [\Self.versionsMadeBy, \.flags, \.methods, \.dosTimes, \.dosDates] as [WritableKeyPath<Self, [UInt16]>] {
            self[keyPath: column].reserveCapacity(count)
        }
        traits.reserveCapacity(count)
    }

    /// Appends a record; where its data lies comes from its local header, read on another thread
    /// (`setSpans`).
    mutating func append(_ record: CentralDirectoryRecord, recordOffset: UInt64) {
        let isDirectoryName = record.name.last == UInt8(ascii: "/")
        let kind = ArchiveEntry.kind(
            isDirectoryName: isDirectoryName,
            unixMode: ArchiveEntry.unixMode(versionMadeBy: record.versionMadeBy, externalAttributes: record.externalAttributes))
        localHeaderOffsets.append(record.localHeaderOffset)
        compressedSizes.append(record.compressedSize)
        uncompressedSizes.append(record.uncompressedSize)
        recordOffsets.append(UInt32(truncatingIfNeeded: recordOffset))
        crc32s.append(record.crc32)
        externalAttributes.append(record.externalAttributes)
        versionsMadeBy.append(record.versionMadeBy)
        flags.append(record.flags)
        methods.append(record.method)
        dosTimes.append(record.dosTime)
        dosDates.append(record.dosDate)
        traits.append(kind.rawValue | (isDirectoryName ? 4 : 0))
        let modified = DOSTimestamp(time: record.dosTime, date: record.dosDate)
        latestModification = latestModification.map { max($0, modified) } ?? modified
    }

    /// Sets where every entry's data lies, as its local header says: data offset minus
    /// local-header offset, and the data descriptor's length in 4-byte units (one of each per
    /// entry, in order).
    mutating func setSpans(dataOffsetDeltas: [UInt32], descriptorUnits: [UInt8]) {
        precondition(dataOffsetDeltas.count == count && descriptorUnits.count == count, "one span per entry")
        self.dataOffsetDeltas = dataOffsetDeltas
        for (index, units) in descriptorUnits.enumerated() {
            traits[index] = traits[index] & 7 | units << 3
        }
    }

    func kind(_ index: Int) -> ArchiveEntry.Kind {
        ArchiveEntry.Kind(rawValue: traits[index] & 3) ?? .file
    }

    func isDirectoryName(_ index: Int) -> Bool { traits[index] & 4 != 0 }

    func dataOffset(_ index: Int) -> UInt64 {
        localHeaderOffsets[index] + UInt64(dataOffsetDeltas[index])
    }

    /// Just past the entry's bytes: data plus any data descriptor.
    func endOffset(_ index: Int) -> UInt64 {
        dataOffset(index) + compressedSizes[index] + UInt64(traits[index] >> 3) * 4
    }
}

/// A column of unsigned integers stored in 32 bits each until one needs 64 (Zip64 sizes and
/// offsets), then in 64 bits each.
struct PackedIntegers: Sendable {
    private var narrow: [UInt32] = []
    private var wide: [UInt64]?

    mutating func reserveCapacity(_ count: Int) {
        if wide == nil { narrow.reserveCapacity(count) } else { wide?.reserveCapacity(count) }
    }

    mutating func append(_ value: UInt64) {
        if wide == nil, let small = UInt32(exactly: value) {
            narrow.append(small)
            return
        }
        if wide == nil {
            var widened = narrow.map(UInt64.init)
            widened.reserveCapacity(narrow.capacity)
            wide = widened
            narrow = []
        }
        wide?.append(value)
    }

    subscript(index: Int) -> UInt64 {
        if let wide { return wide[index] }
        return UInt64(narrow[index])
    }
}

/// Everything the central directory says, shared (immutable) by the archive, its entries and
/// the writer.
package final class EntryStore: Sendable {
    let table: EntryTable
    package let tree: PathTree

    init(table: EntryTable, tree: PathTree) {
        self.table = table
        self.tree = tree
    }

    /// An entry's name, byte for byte as stored.
    func name(_ index: Int) -> EntryName {
        EntryName(bytes: tree.name(ofEntry: index, isDirectoryName: table.isDirectoryName(index)))
    }
}
