import Testing
import TestSupport
@testable import PNG

/// CgBI files written by `TestSupport.CgBIEncoder` with every knob real files turn.
@Suite("Generated CgBI files")
struct GeneratedCgBITests {
    static let width = 37, height = 23
    static let original = SyntheticImage.rgba(width: width, height: height, seed: 42)

    struct Variant: CustomTestStringConvertible, Sendable {
        var name: String
        var configure: @Sendable (inout CgBIEncoder) -> Void
        var testDescription: String { name }
    }

    static let variants: [Variant] = {
        var list: [Variant] = []
        for colorType: UInt8 in [6, 2] {
            for interlaced in [false, true] {
                let tag = "type \(colorType)\(interlaced ? " adam7" : "")"
                for filter: UInt8 in 0...4 {
                    list.append(Variant(name: "\(tag), every row filter \(filter)") {
                        $0.colorType = colorType; $0.interlaced = interlaced; $0.filters = [filter]
                    })
                }
                list.append(Variant(name: "\(tag), filters cycling, Apple iDOT split") {
                    $0.colorType = colorType; $0.interlaced = interlaced; $0.appleIDOT = true
                })
                list.append(Variant(name: "\(tag), one-byte IDATs") {
                    $0.colorType = colorType; $0.interlaced = interlaced; $0.maximumIDATLength = 1
                })
                list.append(Variant(name: "\(tag), zlib header despite CgBI") {
                    $0.colorType = colorType; $0.interlaced = interlaced; $0.zlibWrapped = true
                })
                list.append(Variant(name: "\(tag), zlib header, flags without the raw bit") {
                    $0.colorType = colorType; $0.interlaced = interlaced; $0.zlibWrapped = true; $0.cgbiFlags = 0x4000_2002
                })
            }
        }
        list.append(Variant(name: "iDOT halves in 7-byte IDATs, with iCCP, text and sBIT") {
            $0.appleIDOT = true
            $0.maximumIDATLength = 7
            $0.chunksBeforeImageData = [("iCCP", Array("ICC\0\0".utf8) + [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]),
                                        ("sBIT", [8, 8, 8, 8])]
            $0.chunksAfterImageData = [("tEXt", Array("Comment\0after".utf8))]
        })
        return list
    }()

    @Test(arguments: variants)
    func decodesExactly(_ variant: Variant) throws {
        var encoder = CgBIEncoder(.cgbi)
        variant.configure(&encoder)
        let file = encoder.encode(rgba: Self.original, width: Self.width, height: Self.height)
        let decoded = try PNGDecoder.decode(file)
        #expect(decoded.isCgBI)
        #expect(decoded.header.isInterlaced == encoder.interlaced)
        #expect(decoded.image.width == Self.width && decoded.image.height == Self.height)
        if encoder.colorType == 6 {
            #expect(decoded.colorType == .rgba)
            expectMatchesPremultiplied(decoded.image.pixels, original: Self.original)
        } else {
            #expect(decoded.colorType == .rgb)
            #expect(decoded.image.pixels == Self.original.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element })
        }
        // The same pixels written as a standard PNG decode to the same image, up to premultiplication.
        var standard = encoder
        standard.flavor = .standard
        standard.zlibWrapped = nil
        let plain = try PNGDecoder.decode(standard.encode(rgba: Self.original, width: Self.width, height: Self.height))
        #expect(!plain.isCgBI)
        if encoder.colorType == 6 {
            #expect(plain.image.pixels == Self.original)
        } else {
            #expect(plain.image.pixels == decoded.image.pixels)
        }
    }

    @Test(arguments: variants)
    func convertsToAStandardPNG(_ variant: Variant) throws {
        var encoder = CgBIEncoder(.cgbi)
        variant.configure(&encoder)
        let file = encoder.encode(rgba: Self.original, width: Self.width, height: Self.height)
        let decoded = try PNGDecoder.decode(file)
        let converted = try CgBIConverter.standardPNG(from: file)
        let stream = try PNGDatastream(bytes: converted)
        #expect(!stream.header.isCgBI)
        #expect(stream.header.interlaceMethod == .none)
        #expect(stream.header.colorType == decoded.colorType)
        #expect(!stream.chunks.contains { $0.type == .CgBI || $0.type == .iDOT })
        for (type, data) in encoder.chunksBeforeImageData + encoder.chunksAfterImageData {
            #expect(stream.chunks.contains { $0.type.description == type && $0.data.elementsEqual(data) }, "\(type) kept")
        }
        #expect(try PNGDecoder.decode(converted).image == decoded.image)
    }

    @Test(.enabled(if: PNGOracle.available, "python3 is not installed"), arguments: [UInt8(6), 2])
    func conversionPassesTheIndependentOracle(colorType: UInt8) throws {
        var encoder = CgBIEncoder(.cgbi)
        encoder.colorType = colorType
        encoder.appleIDOT = true
        encoder.chunksBeforeImageData = [("gAMA", CgBIEncoder.be32(45455)), ("pHYs", CgBIEncoder.be32(2835) + CgBIEncoder.be32(2835) + [1])]
        let file = encoder.encode(rgba: Self.original, width: Self.width, height: Self.height)
        let converted = try CgBIConverter.standardPNG(from: file)
        let oracle = try PNGOracle.check(converted)
        #expect(oracle.chunks.first == "IHDR" && oracle.chunks.last == "IEND")
        #expect(oracle.chunks.contains("gAMA") && oracle.chunks.contains("pHYs"))
        #expect(!oracle.chunks.contains("CgBI") && !oracle.chunks.contains("iDOT"))
        #expect(oracle.rgba == (try PNGDecoder.decode(file)).image.pixels)
    }

    /// Proves the filtered fixtures have teeth: a decoder that converts pixels (swap and
    /// un-premultiply) before undoing the filters gets rows with filters 1–4 wrong, and these
    /// files would catch it. With filter 0 on every row the two orders agree.
    @Test(arguments: [UInt8(0), 1, 2, 3, 4])
    func convertingBeforeUnfilteringWouldBeCaught(filter: UInt8) throws {
        var encoder = CgBIEncoder(.cgbi)
        encoder.filters = [filter]
        let file = encoder.encode(rgba: Self.original, width: Self.width, height: Self.height)
        let stream = try PNGDatastream(bytes: file)
        let layout = try ScanlineLayout(width: Self.width, height: Self.height, bitsPerPixel: 32, interlaced: false)
        var data = try ImageDataInflater.inflate(file: file, ranges: stream.imageDataChunks.map { $0.data.indices },
                                                 framing: .raw, expectedSize: layout.totalBytes, firstChunkOffset: 0).bytes
        // The wrong order: convert every stored pixel first…
        let rowBytes = Self.width * 4
        for row in 0..<Self.height {
            for pixel in 0..<Self.width {
                let at = row * (rowBytes + 1) + 1 + pixel * 4
                let alpha = data[at + 3]
                let (blue, green, red) = (data[at], data[at + 1], data[at + 2])
                data[at] = RGBAImage.unpremultiply(red, alpha: alpha)
                data[at + 1] = RGBAImage.unpremultiply(green, alpha: alpha)
                data[at + 2] = RGBAImage.unpremultiply(blue, alpha: alpha)
            }
        }
        // …then unfilter.
        try data.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            try layout.unfilter(base, dataOffset: 0)
        }
        var wrong: [UInt8] = []
        for row in 0..<Self.height {
            let start = row * (rowBytes + 1) + 1
            wrong += data[start..<(start + rowBytes)]
        }
        let right = try PNGDecoder.decode(file).image.pixels
        if filter == 0 {
            #expect(wrong == right)
        } else {
            #expect(wrong != right)
        }
    }

    @Test func largeImageWithDefaultFlags() throws {
        let side = 300
        let pixels = SyntheticImage.rgba(width: side, height: side, seed: 9)
        var encoder = CgBIEncoder(.cgbi)
        encoder.appleIDOT = true
        encoder.cgbiFlags = 0x5000_2006
        let decoded = try PNGDecoder.decode(encoder.encode(rgba: pixels, width: side, height: side))
        #expect(decoded.header.cgbiFlags?.rawValue == 0x5000_2006)
        expectMatchesPremultiplied(decoded.image.pixels, original: pixels)
    }
}
