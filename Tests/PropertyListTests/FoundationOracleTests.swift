import Foundation
import PropertyList
import TestSupport
import Testing

/// Our readers and writers against Foundation's `PropertyListSerialization` (CoreFoundation).
@Suite struct FoundationOracleTests {
    /// Property lists other writers made: plistlib's Xcode-style ones and codesign's CodeResources
    /// layout (`CodeSigningParts`).
    static let generated: [String: @Sendable () throws -> [UInt8]] = [
        "Info.plist": { try ForeignPlists.infoPlist() },
        "storyboard Info.plist": { try ForeignPlists.storyboardInfoPlist() },
        "profile plist": { try ForeignPlists.profilePlist() },
        "CodeResources": { try XcodeShapedApp.bytes("_CodeSignature/CodeResources") },
    ]

    /// Xcode 7.2's (isign's, in `../shared`).
    static let isign = [
        "Test.app/Info.plist",
        "Test.app/_CodeSignature/CodeResources",
        "test.mobileprovision.plist",
        "Test.app/Base.lproj/Main.storyboardc/Info.plist",
        "Test.app/Base.lproj/LaunchScreen.storyboardc/Info.plist",
    ]

    @Test(arguments: generated.keys.sorted())
    func everyGeneratedFileReadsTheSameInBoth(name: String) throws {
        let make = try #require(Self.generated[name])
        try Self.expectSameInBoth(try make())
    }

    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote), arguments: isign)
    func everyXcodeFileReadsTheSameInBoth(path: String) throws {
        try Self.expectSameInBoth(try IsignFixture.bytes(path))
    }

    static func expectSameInBoth(_ bytes: [UInt8]) throws {
        let ours = try PropertyList(bytes: bytes)
        let (theirs, format) = try FoundationOracle.parse(bytes)
        #expect(ours.root == theirs)
        #expect((ours.format == .binary) == (format == .binary))
        // What we write from it, Foundation reads the same.
        #expect(try FoundationOracle.parse(ours.xmlData()).0 == ours.root)
        #expect(try FoundationOracle.parse(ours.binaryData()).0 == ours.root)
    }

    /// Recursively sorts dictionary keys, as Core Foundation's XML writer does.
    static func sorted(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .array(let elements):
            return .array(elements.map(sorted))
        case .dictionary(let dictionary):
            var result = PropertyListDictionary()
            for (key, element) in dictionary.sortedByKey() { result.append(sorted(element), forKey: key) }
            return .dictionary(result)
        default:
            return value
        }
    }

    /// Removes `characters` from every string and key.
    static func without(_ characters: [String], _ value: PropertyListValue) -> PropertyListValue {
        func clean(_ string: String) -> String {
            characters.reduce(string) { $0.replacingOccurrences(of: $1, with: "") }
        }
        switch value {
        case .string(let string): return .string(clean(string))
        case .array(let elements): return .array(elements.map { without(characters, $0) })
        case .dictionary(let dictionary):
            var result = PropertyListDictionary()
            for (key, element) in dictionary {
                result.append(without(characters, element), forKey: clean(key))
            }
            return .dictionary(result)
        default: return value
        }
    }

    /// First path where two values differ, for readable failures.
    static func difference(_ left: PropertyListValue, _ right: PropertyListValue, path: String = "") -> String? {
        switch (left, right) {
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return "\(path): \(a.count) vs \(b.count) elements" }
            for (index, (x, y)) in zip(a, b).enumerated() {
                if let found = difference(x, y, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case (.dictionary(let a), .dictionary(let b)):
            for (key, x) in a {
                guard let y = b[key] else { return "\(path): key \(PropertyListValue.string(key)) missing on the right; right has \(b.keys.map { PropertyListValue.string($0) })" }
                if let found = difference(x, y, path: "\(path).\(key)") { return found }
            }
            return a.count == b.count ? nil : "\(path): \(a.count) vs \(b.count) keys"
        default:
            return left == right ? nil : "\(path): \(left) vs \(right)"
        }
    }

    @Test func randomDocumentsWeWriteFoundationReadsTheSame() throws {
        var random = SeededGenerator(seed: 2024)
        for _ in 0..<300 {
            // CoreFoundation drops U+FEFF from the start of a string it reads from XML.
            let value = Self.without(["\u{FEFF}"], RandomPlist.value(&random))
            let (fromXML, xmlFormat) = try FoundationOracle.parse(XMLPropertyList.encode(value))
            #expect(Self.difference(fromXML, value) == nil)
            #expect(xmlFormat == .xml)
            let (fromBinary, binaryFormat) = try FoundationOracle.parse(BinaryPropertyList.encode(value))
            #expect(Self.difference(fromBinary, value) == nil)
            #expect(binaryFormat == .binary)
        }
    }

    @Test func randomDocumentsFoundationWritesWeReadTheSame() throws {
        var random = SeededGenerator(seed: 77)
        for _ in 0..<300 {
            // Foundation writes CR raw in XML, which every conforming XML reader turns into LF.
            let value = Self.without(["\r", "\u{FEFF}"], RandomPlist.value(&random))
            #expect(Self.difference(try PropertyList(bytes: FoundationOracle.write(value, format: .xml)).root, value) == nil)
            #expect(Self.difference(try PropertyList(bytes: FoundationOracle.write(value, format: .binary)).root, value) == nil)
        }
    }

    @Test func ourXMLIsByteIdenticalToFoundationsForSortedDocuments() throws {
        var random = SeededGenerator(seed: 5)
        for _ in 0..<300 {
            // Sorted keys, as CF writes them; no CR, which we escape and CF does not.
            let value = Self.sorted(Self.without(["\r", "\u{FEFF}"], RandomPlist.value(&random)))
            let ours = try XMLPropertyList.encode(value)
            let theirs = try FoundationOracle.write(value, format: .xml)
            #expect(ours == theirs, "\(String(decoding: ours, as: UTF8.self))\n---\n\(String(decoding: theirs, as: UTF8.self))")
        }
    }

    @Test func simpleBinaryDocumentsAreByteIdenticalToFoundations() throws {
        let documents: [PropertyListValue] = [
            .dictionary([:]),
            ["CFBundleName": "App"],
            ["a", "b"],
            [1, 300, 70_000, -1],
            [true, false, 1.5],
        ]
        for document in documents {
            let ours = try BinaryPropertyList.encode(document)
            let theirs = try FoundationOracle.write(document, format: .binary)
            #expect(ours == theirs, "\(document): \(ours) vs \(theirs)")
        }
        // We store equal strings once where CoreFoundation on Linux repeats them: smaller, same values.
        let repeated: PropertyListValue = ["a", "b", "a"]
        let shared = try BinaryPropertyList.encode(repeated)
        #expect(shared.count < (try FoundationOracle.write(repeated, format: .binary)).count)
        #expect(try FoundationOracle.parse(shared).0 == repeated)
        // Foundation's own test expects a 42-byte empty dictionary.
        #expect(try BinaryPropertyList.encode(.dictionary([:])).count == 42)
    }

    @Test func extremeIntegersCrossBothWays() throws {
        let value: PropertyListValue = [
            "max": .integer(PropertyListInteger(Int64.max)), "min": .integer(PropertyListInteger(Int64.min)),
            "umax": .integer(PropertyListInteger(UInt64.max)), "minusOne": -1,
        ]
        for bytes in [try BinaryPropertyList.encode(value), try XMLPropertyList.encode(value)] {
            #expect(try FoundationOracle.parse(bytes).0 == value)
        }
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            #expect(try PropertyList(bytes: FoundationOracle.write(value, format: format)).root == value)
        }
    }
}
