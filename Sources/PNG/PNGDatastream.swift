/// The chunk layout of a whole PNG or CgBI file, checked but not yet inflated.
///
/// What is strict and what is tolerated, and why:
/// - Every chunk length must fit in the file and be at most 2³¹−1; type codes must be letters.
/// - CRCs follow `PNGChecksumPolicy` (strict by default; Apple's CRCs are valid).
/// - `IHDR` must come first, or second after a `CgBI` chunk; an unknown critical chunk is refused
///   (`PNG_UNSUPPORTED`), as the specification requires.
/// - `IEND` may be missing if the file ends exactly at a chunk boundary: truncated downloads and
///   hand-made files often lose it and nothing is ambiguous. Bytes after `IEND` are ignored.
/// - IDAT chunks need not be consecutive; all of them are joined in file order, which is what
///   both libpng and Apple's decoder effectively do with the iDOT split.
public struct PNGDatastream: Sendable {
    public let header: PNGHeader
    /// Every chunk after the signature that the checksum policy kept, in file order, up to and
    /// including IEND when present. IDAT payloads are views into the file's bytes.
    public let chunks: [PNGChunk]
    /// Indices into `chunks` of the IDAT chunks.
    public let imageDataChunkIndices: [Int]
    /// The first PLTE chunk's payload, if any.
    public let palette: PNGChunk?
    /// The tRNS chunk's payload, if any (only the first counts).
    public let transparency: PNGChunk?
    public let hasEnd: Bool
    /// Checksums that failed but were tolerated by the policy.
    public let checksumMismatches: [PNGChecksumMismatch]
    /// The file the chunk payloads point into.
    let file: [UInt8]

    public init(bytes: [UInt8], checksums: PNGChecksumPolicy = .verifyAll) throws(PNGError) {
        var cursor = try ChunkCursor(bytes)
        var chunks: [PNGChunk] = []
        var imageData: [Int] = []
        var mismatches: [PNGChecksumMismatch] = []
        var header: PNGHeader?
        var cgbi: CgBIFlags?
        var palette: PNGChunk?
        var transparency: PNGChunk?
        var hasEnd = false

        // Each iteration consumes at least 12 bytes, so the loop is bounded by the file size.
        while let raw = try cursor.next() {
            let chunk = raw.chunk
            if !raw.crcMatches {
                let critical = chunk.type.isCritical
                switch checksums {
                case .verifyAll:
                    throw raw.crcError
                case .discardBadAncillary where critical:
                    throw raw.crcError
                case .discardBadAncillary:
                    mismatches.append(PNGChecksumMismatch(kind: .chunkCRC(chunk.type), offset: raw.offset))
                    continue
                case .ignore:
                    mismatches.append(PNGChecksumMismatch(kind: .chunkCRC(chunk.type), offset: raw.offset))
                }
            }

            switch chunk.type {
            case .CgBI:
                guard chunks.isEmpty else {
                    throw PNGError(.chunk, at: raw.offset, "a CgBI chunk may only come first, before IHDR")
                }
                cgbi = CgBIFlags(chunkData: chunk.data)
            case .IHDR:
                guard header == nil else {
                    throw PNGError(.chunk, at: raw.offset, "the file has a second IHDR chunk")
                }
                header = try PNGHeader(ihdr: chunk, cgbi: cgbi)
            default:
                guard header != nil else {
                    throw PNGError(.chunk, at: raw.offset, "the first chunk is \(chunk.type), but a PNG must start with IHDR")
                }
                switch chunk.type {
                case .IDAT:
                    imageData.append(chunks.count)
                case .PLTE:
                    if palette == nil { palette = chunk }
                case .tRNS:
                    // Only before the image data, as the specification places it; libpng ignores
                    // a later one too, and conversion drops it, so honouring it here would make
                    // the converted image lose transparency the decoded one has.
                    if transparency == nil, imageData.isEmpty { transparency = chunk }
                case .IEND:
                    hasEnd = true
                default:
                    if chunk.type.isCritical {
                        throw PNGError(.unsupported, at: raw.offset, "the file has an unknown critical chunk \(chunk.type)")
                    }
                }
            }
            chunks.append(chunk)
            if hasEnd { break }
        }

        guard let header else {
            throw PNGError(.truncated, at: cursor.offset, "the file ends before the IHDR chunk")
        }
        self.header = header
        self.chunks = chunks
        self.imageDataChunkIndices = imageData
        self.palette = palette
        self.transparency = transparency
        self.hasEnd = hasEnd
        self.checksumMismatches = mismatches
        self.file = bytes
    }

    /// The IDAT chunks in file order.
    public var imageDataChunks: [PNGChunk] {
        imageDataChunkIndices.map { chunks[$0] }
    }

    /// Ancillary chunks in file order, with whether each came before the first IDAT.
    public var ancillaryChunks: [(chunk: PNGChunk, beforeImageData: Bool)] {
        let firstImageData = imageDataChunkIndices.first ?? chunks.count
        return chunks.enumerated().compactMap { index, chunk in
            chunk.type.isCritical ? nil : (chunk, index < firstImageData)
        }
    }
}

/// A chunk as read, with its stored CRC.
struct RawChunk {
    let chunk: PNGChunk
    let offset: Int
    let storedCRC: UInt32
    var crcMatches: Bool { storedCRC == chunk.computedCRC }

    var crcError: PNGError {
        PNGError(.crcMismatch, at: offset, "chunk \(chunk.type) has CRC \(hex(storedCRC)) but its contents give \(hex(chunk.computedCRC))")
    }
}

func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}

/// Walks `u32 length, type[4], data, u32 crc` records after the signature, bounds-checking each.
struct ChunkCursor {
    let bytes: [UInt8]
    private(set) var offset = PNGHeader.signature.count

    init(_ bytes: [UInt8]) throws(PNGError) {
        let signature = PNGHeader.signature
        if bytes.count < signature.count {
            if !bytes.isEmpty, bytes.elementsEqual(signature.prefix(bytes.count)) {
                throw PNGError(.truncated, "the file is \(bytes.count) bytes long and ends inside the PNG signature")
            }
            throw PNGError(.signature, "the data is \(bytes.count) bytes long and does not start with the PNG signature")
        }
        guard bytes.prefix(signature.count).elementsEqual(signature) else {
            let start = bytes.prefix(8).map { byte in
                let digits = String(byte, radix: 16, uppercase: true)
                return digits.count == 1 ? "0" + digits : digits
            }.joined(separator: " ")
            throw PNGError(.signature, at: 0, "the data starts with \(start), not the PNG signature 89 50 4E 47 0D 0A 1A 0A")
        }
        self.bytes = bytes
    }

    /// The next chunk, or nil when the data ends exactly at a chunk boundary.
    mutating func next() throws(PNGError) -> RawChunk? {
        let start = offset
        let remaining = bytes.count - start
        if remaining == 0 { return nil }
        guard remaining >= 12 else {
            throw PNGError(.truncated, at: start, "the file ends inside a chunk header (\(remaining) bytes left, 12 needed)")
        }
        let length = be32(at: start)
        guard length <= 0x7FFF_FFFF else {
            throw PNGError(.chunk, at: start, "a chunk claims \(length) bytes, above the PNG maximum of 2147483647")
        }
        guard let type = PNGChunkType(rawValue: be32(at: start + 4)) else {
            throw PNGError(.chunk, at: start + 4, "the chunk type \(hex(be32(at: start + 4))) is not four ASCII letters")
        }
        let dataLength = Int(length)
        guard dataLength <= remaining - 12 else {
            throw PNGError(.truncated, at: start, "chunk \(type) claims \(dataLength) data bytes but only \(remaining - 12) remain in the file")
        }
        let dataStart = start + 8
        let crc = be32(at: dataStart + dataLength)
        offset = dataStart + dataLength + 4
        return RawChunk(
            chunk: PNGChunk(type: type, data: bytes[dataStart..<(dataStart + dataLength)], offset: start),
            offset: start,
            storedCRC: crc)
    }

    /// Callers have checked that four bytes exist at `index`.
    private func be32(at index: Int) -> UInt32 {
        UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
    }
}
