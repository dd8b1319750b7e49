import Foundation
import PropertyList
import TestSupport
import Testing

/// The crafted files in Tests/Fixtures/plist/hostile (made by make-hostile.py) are each named
/// `CODE--what.plist`, CODE being the error reading them must give.
@Suite struct HostileInputTests {
    static let directory = Fixtures.url("plist/hostile")

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func theHostileSetCoversEveryReaderError() {
        let codes = Set(Self.files.compactMap { $0.components(separatedBy: "--").first })
        let expected: Set<String> = [
            "PLIST_UNSUPPORTED_FORMAT", "PLIST_MALFORMED_XML", "PLIST_XML_ENTITY", "PLIST_XML_STRUCTURE",
            "PLIST_XML_VALUE", "PLIST_BINARY_TRAILER", "PLIST_BINARY_OFFSET", "PLIST_BINARY_REF",
            "PLIST_BINARY_OBJECT", "PLIST_BINARY_COUNT", "PLIST_CYCLE", "PLIST_TOO_DEEP", "PLIST_TOO_MANY_OBJECTS",
        ]
        #expect(codes == expected)
    }

    @Test(arguments: files)
    func hostileFileGivesItsError(name: String) throws {
        let expected = try #require(name.components(separatedBy: "--").first)
        let bytes = try Fixtures.bytes("plist/hostile/\(name)")
        do {
            let plist = try PropertyList(bytes: bytes)
            Issue.record("\(name) was accepted: \(plist.root.typeName)")
        } catch {
            #expect(error.code == expected, "\(name): \(error)")
            #expect(error.category == .invalidInput)
            #expect(!error.message.isEmpty)
        }
    }

    @Test func everyTruncationOfTheInfoPlistIsRefusedCleanly() throws {
        Self.expectEveryTruncationRefused(try ForeignPlists.infoPlist())
    }

    /// The same on Xcode 7.2's (isign's, `../shared`).
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func everyTruncationOfXcodesInfoPlistIsRefusedCleanly() throws {
        Self.expectEveryTruncationRefused(try IsignFixture.bytes("Test.app/Info.plist"))
    }

    static func expectEveryTruncationRefused(_ bytes: [UInt8]) {
        for length in 0..<bytes.count {
            #expect(throws: PropertyListError.self) { try PropertyList(bytes: Array(bytes.prefix(length))) }
        }
    }

    @Test func everySingleByteChangeOfABinaryPlistIsHandled() throws {
        Self.expectEverySingleByteChangeHandled(try ForeignPlists.storyboardInfoPlist())
    }

    /// The same on Xcode 7.2's (isign's, `../shared`).
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func everySingleByteChangeOfXcodesBinaryPlistIsHandled() throws {
        Self.expectEverySingleByteChangeHandled(try IsignFixture.bytes("Test.app/Base.lproj/Main.storyboardc/Info.plist"))
    }

    static func expectEverySingleByteChangeHandled(_ bytes: [UInt8]) {
        var accepted = 0
        var refused = 0
        for position in bytes.indices {
            for replacement: UInt8 in [0x00, 0x01, 0x0F, 0x7F, 0x80, 0xFF, bytes[position] ^ 0x10] {
                var mutated = bytes
                mutated[position] = replacement
                do {
                    _ = try PropertyList(bytes: mutated)
                    accepted += 1
                } catch {
                    refused += 1
                }
            }
        }
        #expect(accepted > 0 && refused > 0)
    }

    @Test func everySingleByteChangeOfAnXMLPlistIsHandled() throws {
        let bytes = Array(try ForeignPlists.profilePlist().prefix(600))
        for position in bytes.indices {
            for replacement: UInt8 in [0x00, UInt8(ascii: "<"), UInt8(ascii: "&"), 0xFF] {
                var mutated = bytes
                mutated[position] = replacement
                _ = try? PropertyList(bytes: mutated)
            }
        }
    }
}
