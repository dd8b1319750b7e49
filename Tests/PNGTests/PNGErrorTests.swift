import FormatSupport
import PNG
import Testing

/// The codes and sentences users search for and the docs list stay what they are, whatever the
/// error is built on.
@Suite struct PNGErrorTests {
    @Test func everyReasonKeepsItsCode() {
        #expect(PNGError.Reason.allCases.map(\.rawValue) == [
            "PNG_SIGNATURE", "PNG_TRUNCATED", "PNG_CRC_MISMATCH", "PNG_CHUNK", "PNG_HEADER", "PNG_DIMENSIONS", "PNG_PALETTE",
            "PNG_NO_IMAGE_DATA", "PNG_INFLATE", "PNG_DATA_SIZE", "PNG_FILTER", "PNG_UNSUPPORTED", "ARCHIVE_TIME_LIMIT",
        ])
        #expect(PNGError.Reason.timeLimit.rawValue == WorkClock.timeLimitCode)
        for reason in PNGError.Reason.allCases {
            let error = PNGError(reason, "x")
            #expect(error.code == reason.rawValue)
            #expect(error.category == .invalidInput)
        }
    }

    @Test func theMessageNamesTheByteWhenThereIsOne() {
        #expect(PNGError(.chunk, at: 8, "bad chunk type").description == "bad chunk type (at byte 8)")
        #expect(PNGError(.noImageData, "the image has no IDAT chunk").description == "the image has no IDAT chunk")
    }
}
