import FormatSupport

/// A BOM ("bill of materials") store: the big-endian container Apple uses for `Assets.car`.
///
/// The file is a 512-byte header, a table of blocks (offset and length in the file), and a list of
/// named variables, each pointing to a block. Trees (`BOMTree`) are built from blocks too.
public struct BOMStore: Sendable {
    /// The whole file; blocks are windows into it.
    public let reader: ByteReader
    /// Offset and length of each block, by index; index 0 is the null block.
    public let blocks: [(offset: UInt32, length: UInt32)]
    /// Variables in file order: name and block index.
    public let variables: [(name: String, block: UInt32)]

    static let headerSize = 512

    public init(bytes: [UInt8]) throws(AssetCatalogError) {
        let reader = ByteReader(bytes)
        guard bytes.count >= Self.headerSize, bytes.starts(with: Array("BOMStore".utf8)) else {
            throw AssetCatalogError(.notBOMStore, "the file is not a BOM store (no \"BOMStore\" header)")
        }
        let (version, indexOffset, indexLength, varsOffset, varsLength) = try reading(.truncated, "the BOM header") {
            () throws(OutOfBoundsError) in
            (
                try reader.uint32(at: 8, .big), Int(try reader.uint32(at: 16, .big)),
                Int(try reader.uint32(at: 20, .big)), Int(try reader.uint32(at: 24, .big)),
                Int(try reader.uint32(at: 28, .big))
            )
        }
        guard version == 1 else {
            throw AssetCatalogError(.notBOMStore, "the BOM store has version \(version); only version 1 exists")
        }

        // Block table: a count, then (offset, length) pairs; the count is bounded by the table's size.
        var table = try reading(.truncated, "the BOM block table") { () throws(OutOfBoundsError) in
            try reader.window(offset: indexOffset, length: indexLength)
        }
        let blockCount = try reading(.truncated, "the BOM block table") { () throws(OutOfBoundsError) in
            Int(try table.readUInt32(.big))
        }
        guard blockCount <= table.remaining / 8 else {
            throw AssetCatalogError(
                .truncated, "the BOM block table lists \(blockCount) blocks but has room for \(table.remaining / 8)")
        }
        var blocks: [(offset: UInt32, length: UInt32)] = []
        blocks.reserveCapacity(blockCount)
        for _ in 0..<blockCount {
            let entry = try reading(.truncated, "the BOM block table") { () throws(OutOfBoundsError) in
                (offset: try table.readUInt32(.big), length: try table.readUInt32(.big))
            }
            blocks.append(entry)
        }

        // Variables: a count, then (block index, name length, name).
        var vars = try reading(.truncated, "the BOM variable list") { () throws(OutOfBoundsError) in
            try reader.window(offset: varsOffset, length: varsLength)
        }
        let variableCount = try reading(.truncated, "the BOM variable list") { () throws(OutOfBoundsError) in
            Int(try vars.readUInt32(.big))
        }
        guard variableCount <= vars.remaining / 5 else {
            throw AssetCatalogError(
                .truncated, "the BOM variable list declares \(variableCount) variables but has room for \(vars.remaining / 5)")
        }
        var variables: [(name: String, block: UInt32)] = []
        for _ in 0..<variableCount {
            let variable = try reading(.truncated, "the BOM variable list") { () throws(OutOfBoundsError) in
                let block = try vars.readUInt32(.big)
                let nameLength = Int(try vars.readUInt8())
                let name = String(decoding: try vars.readBytes(nameLength), as: UTF8.self)
                return (name: name, block: block)
            }
            variables.append(variable)
        }
        self.reader = reader
        self.blocks = blocks
        self.variables = variables
    }

    /// The block index a variable names, if the variable exists.
    public func variable(_ name: String) -> UInt32? {
        variables.first { $0.name == name }?.block
    }

    /// A reader over block `index`, positioned at its start.
    public func block(_ index: UInt32) throws(AssetCatalogError) -> ByteReader {
        guard index != 0, Int(index) < blocks.count else {
            throw AssetCatalogError(
                .blockOutOfRange, "block \(index) is referenced but the block table has \(blocks.count) entries")
        }
        let entry = blocks[Int(index)]
        do {
            return try reader.window(offset: Int(entry.offset), length: Int(entry.length))
        } catch {
            throw AssetCatalogError(
                .blockOutOfRange,
                "block \(index) (\(entry.length) bytes at offset \(entry.offset)) lies outside the \(reader.count)-byte file")
        }
    }

    /// The block a variable names.
    public func block(named name: String) throws(AssetCatalogError) -> ByteReader? {
        guard let index = variable(name) else { return nil }
        return try block(index)
    }
}
