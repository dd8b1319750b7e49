// Fuzzes the LZFSE stream decoder and the bare LZVN decoder on every input, with output caps.
// Checks that:
// - the output never exceeds the cap, and the cap is exact: a stream that decodes to N bytes
//   decodes the same with a cap of N and is refused (`LZFSE_OUTPUT_LIMIT`) with N − 1;
// - `LZFSE.blocks(in:)` accepts every stream that decodes, and its blocks add up to the output;
// - an LZVN payload decoding to N bytes decodes the same when exactly N bytes are expected, and
//   is refused when N + 1 are.
import FuzzDriver
import LZFSE

/// Larger than any input (max_len) can reach without matches; small enough to stay fast.
let cap = 1 << 20

func fuzzOne(_ bytes: [UInt8]) {
    if let output = try? LZFSE.decompress(bytes, maximumOutput: cap) {
        precondition(output.count <= cap, "LZFSE output over the cap")
        do {
            let blocks = try LZFSE.blocks(in: bytes)
            precondition(blocks.reduce(0) { $0 + $1.decodedSize } == output.count, "the blocks do not add up to the output")
        } catch {
            preconditionFailure("blocks(in:) refuses a stream that decodes: \(error)")
        }
        checkCap(output) { (limit) throws(LZFSEError) in try LZFSE.decompress(bytes, maximumOutput: limit) }
    }

    if let output = try? LZVN.decompress(bytes, maximumOutput: cap) {
        precondition(output.count <= cap, "LZVN output over the cap")
        checkCap(output) { (limit) throws(LZFSEError) in try LZVN.decompress(bytes, maximumOutput: limit) }
        do {
            let exact = try LZVN.decompress(bytes, decodedSize: output.count)
            precondition(exact == output, "the exact-size LZVN decode differs")
        } catch {
            preconditionFailure("the exact-size LZVN decode refuses a payload that decodes: \(error)")
        }
        do {
            _ = try LZVN.decompress(bytes, decodedSize: output.count + 1)
            preconditionFailure("an LZVN payload decoded to one byte more than it holds")
        } catch {}
    }
}

/// Decoding with a cap of exactly the output size gives the same bytes; one byte less is refused.
func checkCap(_ output: [UInt8], _ decode: (Int) throws(LZFSEError) -> [UInt8]) {
    do {
        let capped = try decode(output.count)
        precondition(capped == output, "a cap of exactly the output size changes the output")
    } catch {
        preconditionFailure("a cap of exactly the output size is refused: \(error)")
    }
    guard !output.isEmpty else { return }
    do {
        _ = try decode(output.count - 1)
        preconditionFailure("a cap one byte below the output size is not enforced")
    } catch {
        precondition(error.reason == .outputLimitExceeded, "a cap below the output size gives \(error.code), not LZFSE_OUTPUT_LIMIT")
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
