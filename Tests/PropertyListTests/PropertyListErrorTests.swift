import FormatSupport
import PropertyList
import Testing

/// The codes and sentences users search for and the docs list stay what they are, whatever the
/// error is built on.
@Suite struct PropertyListErrorTests {
    @Test func everyReasonKeepsItsCode() {
        #expect(PropertyListError.Reason.allCases.map(\.rawValue) == [
            "PLIST_UNSUPPORTED_FORMAT", "PLIST_TOO_LARGE", "PLIST_MALFORMED_XML", "PLIST_XML_ENTITY", "PLIST_XML_STRUCTURE",
            "PLIST_XML_VALUE", "PLIST_XML_UNREPRESENTABLE", "PLIST_BINARY_TRAILER", "PLIST_BINARY_OFFSET", "PLIST_BINARY_REF",
            "PLIST_BINARY_OBJECT", "PLIST_BINARY_COUNT", "PLIST_CYCLE", "PLIST_TOO_DEEP", "PLIST_TOO_MANY_OBJECTS",
            "ARCHIVE_TIME_LIMIT", "PLIST_DUPLICATE_KEY",
        ])
        #expect(PropertyListError.Reason.timeLimit.rawValue == WorkClock.timeLimitCode)
        for reason in PropertyListError.Reason.allCases {
            let error = PropertyListError(reason, "x")
            #expect(error.code == reason.rawValue)
            #expect(error.category == .invalidInput)
        }
    }

    @Test func theMessageSaysWhereTheDocumentIsWrong() {
        #expect(PropertyListError(.xmlValue, line: 3, "bad integer").description == "property list line 3: bad integer")
        #expect(PropertyListError(.cycle, offset: 40, "loops").description == "binary property list at byte 40: loops")
        #expect(PropertyListError(.tooDeep, line: 0, "too deep").description == "property list: too deep")
        #expect(PropertyListError(.timeLimit, line: 3, "took too long").description == "took too long")
    }
}
