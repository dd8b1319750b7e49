import Installation
import Testing

/// `--os` values as people write them, compared part by part.
@Suite struct InstallOptionsTests {
    @Test(arguments: ["17", "17.2", "16.4.1", "9.0", "10.3.4"])
    func versionsPeopleWriteAreRead(_ text: String) throws {
        let version = try #require(InstallOptions.OSVersion(text))
        #expect(version.description == text)
    }

    @Test(arguments: ["", "17.", ".1", "seventeen", "17.1.2.3", "1000", "17.-1", "١٧", "17 "])
    func otherTextIsNot(_ text: String) {
        #expect(InstallOptions.OSVersion(text) == nil)
    }

    @Test func versionsCompareAsNumbersAndTrailingZerosAreEqual() throws {
        let v = { (text: String) in InstallOptions.OSVersion(text) }
        #expect(try #require(v("9.3")) < #require(v("10")))
        #expect(try #require(v("16.4")) < #require(v("16.4.1")))
        #expect(try #require(v("17")) == #require(v("17.0.0")))
        #expect(Set([v("17"), v("17.0")]).count == 1)
        #expect(try #require(v("11")).major == 11)
    }
}
