import FormatSupport
import LZFSE
import Testing

/// The codes and sentences users search for and the docs list stay what they are, whatever the
/// error is built on.
@Suite struct LZFSEErrorTests {
    @Test func everyReasonKeepsItsCode() {
        #expect(LZFSEError.Reason.allCases.map(\.rawValue) == [
            "LZFSE_TRUNCATED", "LZFSE_BAD_BLOCK_MAGIC", "LZFSE_CORRUPT_HEADER", "LZFSE_CORRUPT_DATA", "LZFSE_OUTPUT_LIMIT",
        ])
        for reason in LZFSEError.Reason.allCases {
            let error = LZFSEError(reason, offset: 0, "x")
            #expect(error.code == reason.rawValue)
            #expect(error.category == .invalidInput)
        }
    }

    @Test func theMessageNamesTheByte() {
        let error = LZFSEError(.corruptData, offset: 12, "a match distance points before the output")
        #expect(error.code == "LZFSE_CORRUPT_DATA")
        #expect(error.description == "compressed data cannot be decoded: a match distance points before the output (at byte 12)")
    }
}
