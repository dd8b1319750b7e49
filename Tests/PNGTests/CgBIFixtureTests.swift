import Testing
import TestSupport
@testable import PNG

@Suite("CgBI fixture from cgbi-to-png")
struct CgBIFixtureTests {
    @Test func decodesTheAppleFile() throws {
        let decoded = try PNGDecoder.decode(try Fixtures.bytes("cgbi/cgbi-image.png"))
        #expect(decoded.isCgBI)
        #expect(decoded.image.width == 180)
        #expect(decoded.image.height == 180)
    }
}
