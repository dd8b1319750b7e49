import FormatSupport

/// Turns Apple CgBI PNGs into standard PNGs that every viewer, browser and image library reads.
public enum CgBIConverter {
    /// A standard PNG for `bytes`: a CgBI file is decoded and re-encoded (see
    /// `DecodedPNG.standardPNG`); a standard PNG is decoded to prove it is sound and returned
    /// unchanged. Throws what `PNGDecoder.decode` throws; `limits.clock` bounds the re-encoding too.
    public static func standardPNG(from bytes: [UInt8], limits: PNGLimits = .default, checksums: PNGChecksumPolicy = .verifyAll) throws(PNGError) -> [UInt8] {
        let decoded = try PNGDecoder.decode(bytes, limits: limits, checksums: checksums)
        return decoded.isCgBI ? try decoded.standardPNG(clock: limits.clock) : bytes
    }
}

extension DecodedPNG {
    /// This image as a standard, non-interlaced, zlib-compressed 8-bit PNG with valid CRCs.
    ///
    /// - An 8-bit RGB or RGBA source (every CgBI file) keeps its colour type, so a CgBI file
    ///   round-trips to the same IHDR apart from interlacing; anything else becomes RGBA.
    /// - `CgBI` and `iDOT` are dropped. Colour and metadata chunks that stay true of the new
    ///   pixels are copied unchanged, before or after the image data as in the source: gAMA,
    ///   cHRM, sRGB, iCCP, cICP, mDCV, cLLI, pHYs, sPLT, tIME, tEXt, zTXt, iTXt, eXIf, unknown
    ///   chunks marked safe-to-copy, and (only when the colour type is kept) sBIT, bKGD and, for
    ///   RGB, tRNS.
    public func standardPNG(compressionLevel: Int = 6) -> [UInt8] {
        PNGEncoder.encode(image, options: standardOptions(compressionLevel: compressionLevel))
    }

    /// `standardPNG(compressionLevel:)` under the time limit of the input the image came from:
    /// `ARCHIVE_TIME_LIMIT` once `clock`'s deadline has passed.
    public func standardPNG(compressionLevel: Int = 6, clock: WorkClock) throws(PNGError) -> [UInt8] {
        try PNGEncoder.encode(image, options: standardOptions(compressionLevel: compressionLevel), clock: clock)
    }

    private func standardOptions(compressionLevel: Int) -> PNGEncoder.Options {
        let keepsColorType = header.bitDepth == 8 && (colorType == .rgb || colorType == .rgba)
        var options = PNGEncoder.Options(colorType: keepsColorType && colorType == .rgb ? .rgb : .rgba,
                                         compressionLevel: compressionLevel)
        for (chunk, beforeImageData) in datastream.ancillaryChunks {
            guard let placement = Self.placement(of: chunk.type, keepsColorType: keepsColorType, colorType: colorType) else { continue }
            let copy = PNGChunk(type: chunk.type, data: Array(chunk.data))
            if beforeImageData {
                options.chunksBeforeImageData.append(copy)
            } else if placement == .anywhere {
                options.chunksAfterImageData.append(copy)
            }
            // A chunk that must precede the image data but came after it was invalid; drop it.
        }
        return options
    }

    private enum Placement { case beforeImageData, anywhere }

    /// Where a copied chunk may go, or nil when it must be dropped.
    private static func placement(of type: PNGChunkType, keepsColorType: Bool, colorType: PNGColorType) -> Placement? {
        switch type {
        case .iDOT, .CgBI, .hIST:
            return nil
        case .sBIT, .bKGD:
            return keepsColorType ? .beforeImageData : nil
        case .tRNS:
            // Only RGB can carry a transparent colour among the types kept.
            return keepsColorType && colorType == .rgb ? .beforeImageData : nil
        case .gAMA, .cHRM, .sRGB, .iCCP, .cICP, .mDCV, .cLLI, .pHYs, .sPLT:
            return .beforeImageData
        case .tIME, .tEXt, .zTXt, .iTXt, .eXIf:
            return .anywhere
        default:
            return type.isSafeToCopy ? .anywhere : nil
        }
    }
}
