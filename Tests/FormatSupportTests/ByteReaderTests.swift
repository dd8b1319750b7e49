import FormatSupport
import Testing

@Suite struct ByteReaderTests {
    @Test func readsBothByteOrders() throws {
        var reader = ByteReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08])
        #expect(try reader.readUInt16(.big) == 0x0102)
        #expect(try reader.readUInt16(.little) == 0x0403)
        #expect(try reader.uint32(at: 4, .big) == 0x0506_0708)
        #expect(try reader.uint(at: 5, byteCount: 3, .little) == 0x08_0706)
        #expect(reader.position == 4)
    }

    @Test func refusesReadsPastTheEnd() {
        var reader = ByteReader([0x01, 0x02, 0x03])
        #expect(throws: OutOfBoundsError.self) { try reader.readUInt32(.big) }
        #expect(throws: OutOfBoundsError.self) { try reader.bytes(at: Int.max, count: 2) }
        #expect(throws: OutOfBoundsError.self) { try reader.bytes(at: 1, count: -1) }
        #expect(throws: OutOfBoundsError.self) { try reader.skip(Int.max) }
        #expect(reader.position == 0)
    }

    @Test func windowsAreConfinedToTheirRange() throws {
        let reader = ByteReader(Array(0..<16))
        var window = try reader.window(offset: 4, length: 4)
        #expect(window.position == 4)
        #expect(try window.readUInt8() == 4)
        #expect(throws: OutOfBoundsError.self) { try window.uint8(at: 8) }
        #expect(throws: OutOfBoundsError.self) { try window.uint8(at: 3) }
        #expect(throws: OutOfBoundsError.self) { try reader.window(offset: 12, length: 5) }
    }

    @Test func cStringsMustEndInsideTheWindow() throws {
        let reader = ByteReader(Array("ab\u{0}cd".utf8))
        #expect(Array(try reader.cString(at: 0, maxLength: 10)) == Array("ab".utf8))
        #expect(throws: OutOfBoundsError.self) { try reader.cString(at: 3, maxLength: 10) }
        #expect(throws: OutOfBoundsError.self) { try reader.cString(at: 0, maxLength: 1) }
        #expect(Array(try reader.nulTerminatedField(at: 3, size: 2)) == Array("cd".utf8))
    }
}
