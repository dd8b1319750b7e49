import Deflate
import FormatSupport

/// zlib or gzip data ("zip" renditions) inflated into a buffer of known size.
enum Inflate {
    /// Inflates `input`, which must produce exactly `size` bytes, in one call (`DeflateEngine`),
    /// then counts them against `clock`. zlib and gzip headers are both accepted (CoreUI writers
    /// have used either), and their check values must match.
    static func decompress(
        _ input: ArraySlice<UInt8>, size: Int, label: String, clock: inout WorkClock
    ) throws(AssetCatalogError) -> [UInt8] {
        // A gzip member starts 1F 8B; anything else must be zlib (its header is checked there).
        let framing: DeflateEngine.Framing = input.starts(with: [0x1F, 0x8B]) ? .gzip : .zlib
        var outcome = DeflateEngine.InflateOutcome.corrupt
        let output = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            outcome = input.withUnsafeBytes { DeflateEngine.inflate($0, into: UnsafeMutableRawBufferPointer(buffer), framing: framing) }
            switch outcome {
            case .complete: initialized = size
            case .endsEarly(let produced): initialized = produced
            case .overruns, .corrupt: initialized = 0
            }
        }
        if clock.isExpired(after: output.count) { throw AssetCatalogError(.timeLimit, clock.timeLimitMessage) }
        switch outcome {
        case .complete:
            return output
        case .endsEarly(let produced):
            throw AssetCatalogError(.invalidPixelData, "the zip data of \(label) decodes to \(produced) bytes instead of \(size)")
        case .overruns:
            throw AssetCatalogError(.invalidPixelData, "the zip data of \(label) decodes to more than \(size) bytes")
        case .corrupt:
            throw AssetCatalogError(.invalidPixelData, "the zip data of \(label) is corrupt or truncated")
        }
    }
}
