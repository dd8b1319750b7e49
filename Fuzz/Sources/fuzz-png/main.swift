// Fuzzes the PNG and CgBI readers: `PNGHeader(prefix:)`, `PNGDecoder.decode`, and the conversion
// of whatever decodes to a standard PNG. Checks that:
// - the header read from the first bytes agrees with the one the decoder used;
// - the image has the header's dimensions;
// - checksums are only tolerated as asked: an input decoded with `.ignore` and no recorded
//   mismatch decodes the same with `.verifyAll`, and one with mismatches is refused by it;
// - the standard PNG written for a decoded image (CgBI or not) decodes, with every checksum
//   verified, to the same pixels;
// - under a deadline already passed (`--time-limit`), decoding and re-encoding either give the
//   same result or stop with `ARCHIVE_TIME_LIMIT`, never another error.
import FormatSupport
import FuzzDriver
import PNG

let passed = WorkClock(deadline: .now - .seconds(1), seconds: 1, file: "fuzz")

func fuzzOne(_ bytes: [UInt8]) {
    // Mutations break CRCs; `.ignore` lets the fuzzer reach past them.
    let header = try? PNGHeader(prefix: Array(bytes.prefix(PNGHeader.maximumPrefixLength)), checksums: .ignore)
    let decoded: DecodedPNG
    do {
        decoded = try PNGDecoder.decode(bytes, checksums: .ignore)
    } catch {
        return
    }
    precondition(header == decoded.header, "PNGHeader(prefix:) read \(String(describing: header)), the decoder \(decoded.header)")
    precondition(decoded.image.width == decoded.header.width && decoded.image.height == decoded.header.height,
                 "a \(decoded.header.width)×\(decoded.header.height) file decoded to \(decoded.image.width)×\(decoded.image.height)")

    do {
        let strict = try PNGDecoder.decode(bytes, checksums: .verifyAll)
        precondition(decoded.checksumMismatches.isEmpty, "verifyAll accepted a file with checksum mismatches \(decoded.checksumMismatches)")
        precondition(strict.image == decoded.image, "the checksum policy changed the pixels")
    } catch {
        precondition(error.reason == .crcMismatch && !decoded.checksumMismatches.isEmpty,
                     "verifyAll refused with \(error.code) a file that decodes with no mismatch: \(error)")
    }

    do {
        let late = try PNGDecoder.decode(bytes, limits: PNGLimits(clock: passed), checksums: .ignore)
        precondition(late.image == decoded.image, "a decode under a passed deadline gave other pixels")
    } catch {
        precondition(error.reason == .timeLimit, "a passed deadline turned into \(error.code): \(error)")
    }

    let standard = decoded.standardPNG()
    do {
        let late = try decoded.standardPNG(clock: passed)
        precondition(late == standard, "an encode under a passed deadline gave other bytes")
    } catch {
        precondition(error.reason == .timeLimit, "a passed deadline turned into \(error.code): \(error)")
    }
    do {
        let again = try PNGDecoder.decode(standard, checksums: .verifyAll)
        precondition(!again.isCgBI, "the standard PNG is still CgBI")
        precondition(again.image == decoded.image, "the standard PNG decodes to other pixels")
    } catch {
        preconditionFailure("the standard PNG written for a decoded image does not decode: \(error)")
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
