import PropertyList
import TestSupport
import Testing

@Suite struct BinaryPropertyListTests {
    /// An Info.plist as Xcode writes it (binary, 27 keys, a nested dictionary), here by Python's
    /// plistlib.
    @Test func readsAnXcodeStyleInfoPlist() throws {
        try Self.expectXcodeInfo(try ForeignPlists.infoPlist(), identifier: "com.example.sample", executable: "XcodeShaped")
    }

    /// The same on Xcode 7.2's own (isign's `Test.app`, `../shared`), whose layout is known.
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func readsTheXcodeInfoPlist() throws {
        let bytes = try IsignFixture.bytes("Test.app/Info.plist")
        try Self.expectXcodeInfo(bytes, identifier: "com.saucelabs.isignTestApp", executable: "isignTestApp")
        let binary = try BinaryPropertyList(bytes: bytes)
        #expect(binary.trailer.offsetIntSize == 2)
        #expect(binary.trailer.objectRefSize == 1)
        #expect(binary.trailer.topObject == 0)
    }

    static func expectXcodeInfo(_ bytes: [UInt8], identifier: String, executable: String) throws {
        let plist = try PropertyList(bytes: bytes)
        #expect(plist.format == .binary)
        let info = plist.root
        #expect(info["CFBundleIdentifier"] == .string(identifier))
        #expect(info["CFBundleExecutable"] == .string(executable))
        #expect(info["CFBundleVersion"]?.versionString == "1")
        #expect(info["UIDeviceFamily"] == [1])
        #expect(info["LSRequiresIPhoneOS"]?.bool == true)
        #expect(info[path: "UIStatusBarTintParameters", "UINavigationBar", "Translucent"]?.bool == false)
        #expect(info["UISupportedInterfaceOrientations"]?.stringArray?.count == 3)
        #expect(info.dictionary?.count == 27)
        #expect(try BinaryPropertyList(bytes: bytes).trailer.topObject == 0)
    }

    @Test func readsAStoryboardPlist() throws {
        let main = try PropertyList(bytes: ForeignPlists.storyboardInfoPlist())
        #expect(main.format == .binary)
        #expect(main.root["UIStoryboardDesignatedEntryPointIdentifier"] == "UITabBarController-49e-Tb-3d3")
        #expect(main.root["UIStoryboardVersion"]?.int == 1)
        #expect(main.root[path: "UIViewControllerIdentifiersToNibNames", "UITabBarController-49e-Tb-3d3"] == "UITabBarController-49e-Tb-3d3")
    }

    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func readsTheStoryboardPlists() throws {
        let main = try PropertyList(bytes: IsignFixture.bytes("Test.app/Base.lproj/Main.storyboardc/Info.plist"))
        #expect(main.root["UIStoryboardDesignatedEntryPointIdentifier"] == "UITabBarController-49e-Tb-3d3")
        #expect(main.root["UIStoryboardVersion"]?.int == 1)
        #expect(main.root[path: "UIViewControllerIdentifiersToNibNames", "UITabBarController-49e-Tb-3d3"] == "UITabBarController-49e-Tb-3d3")
        let launch = try PropertyList(bytes: IsignFixture.bytes("Test.app/Base.lproj/LaunchScreen.storyboardc/Info.plist"))
        #expect(launch.format == .binary)
        #expect(launch.root.dictionary != nil)
    }

    /// Builds a bplist00 from raw object bytes (1-byte refs and offsets).
    static func bplist(_ objects: [[UInt8]], top: UInt8 = 0) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += bigEndian(UInt64(objects.count)) + bigEndian(UInt64(top)) + bigEndian(UInt64(table))
        return bytes
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    func root(_ objects: [[UInt8]]) throws -> PropertyListValue {
        try BinaryPropertyList(bytes: Self.bplist(objects)).root
    }

    @Test func integersFollowTheFormatsSignedness() throws {
        #expect(try root([[0x10, 0xFF]]) == .integer(PropertyListInteger(255)))
        #expect(try root([[0x11, 0xFF, 0xFF]]) == .integer(PropertyListInteger(65_535)))
        #expect(try root([[0x12, 0xFF, 0xFF, 0xFF, 0xFF]]) == .integer(PropertyListInteger(4_294_967_295)))
        #expect(try root([[0x13] + [UInt8](repeating: 0xFF, count: 8)]) == .integer(PropertyListInteger(-1)))
        #expect(try root([[0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8)]) == .integer(PropertyListInteger(UInt64.max)))
        #expect(try root([[0x14] + [UInt8](repeating: 0xFF, count: 16)]) == .integer(PropertyListInteger(-1)))
        #expect(try root([[0x14, 0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)]) == .integer(PropertyListInteger(high: 1, low: 0)))
    }

    @Test func realsDatesStringsAndUIDs() throws {
        #expect(try root([[0x22, 0x3F, 0xC0, 0, 0]]) == .real(1.5))
        #expect(try root([[0x23] + Self.bigEndian((-2.25).bitPattern)]) == .real(-2.25))
        // Dates count from 2001-01-01: 0 is the reference date itself.
        #expect(try root([[0x33] + Self.bigEndian(0)]).date?.iso8601 == "2001-01-01T00:00:00Z")
        #expect(try root([[0x33] + Self.bigEndian((-978_307_200.0).bitPattern)]).date?.secondsSince1970 == 0)
        #expect(try root([[0x53] + Array("abc".utf8)]) == "abc")
        // "é😀" is three UTF-16 code units: 00E9 D83D DE00.
        #expect(try root([[0x63, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00]]) == "é😀")
        #expect(try root([[0x80, 0x07]]) == .uid(7))
        #expect(try root([[0x83, 0x01, 0x02, 0x03, 0x04]]) == .uid(0x0102_0304))
        #expect(try root([[0x40]]) == .data([]))
        #expect(try root([[0x4F, 0x10, 0x0F] + [UInt8](0..<15)]) == .data(Array(0..<15)))
    }

    @Test func sharedObjectsAreReadOnceAndDictionaryOrderIsKept() throws {
        // {"b": "v", "a": "v"} with the value stored once.
        let value = try root([[0xD2, 1, 2, 3, 3], [0x51, 0x62], [0x51, 0x61], [0x51, 0x76]])
        #expect(value.dictionary?.keys == ["b", "a"])
        #expect(value["a"] == "v" && value["b"] == "v")
        // A shared array referenced twice is fine; it is not a cycle.
        let shared = try root([[0xA2, 1, 1], [0xA1, 2], [0x09]])
        #expect(shared == [[true], [true]])
    }

    /// A bplist00 with 2-byte references and offsets.
    static func wideBplist(_ objects: [[UInt8]]) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets += [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)]
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 2, 2]
        bytes += bigEndian(UInt64(objects.count)) + bigEndian(0) + bigEndian(UInt64(table))
        return bytes
    }

    static func ref(_ index: Int) -> [UInt8] { [UInt8(index >> 8), UInt8(index & 0xFF)] }

    @Test func depthOfSharedSubtreesIsCheckedWhereverTheyAreReached() throws {
        // Objects 1...200 are a chain of arrays ending in `true` (object 201). The root reaches
        // the chain directly, and again through `extra` more arrays (objects 202...).
        func document(extra: Int) -> [UInt8] {
            var objects: [[UInt8]] = [[0xA2] + Self.ref(1) + Self.ref(202)]
            for index in 1...200 { objects.append([0xA1] + Self.ref(index + 1)) }
            objects.append([0x09])
            for index in 0..<extra {
                objects.append([0xA1] + Self.ref(index == extra - 1 ? 1 : 203 + index))
            }
            return Self.wideBplist(objects)
        }
        // Through 48 more levels the leaf sits at depth 1 + 48 + 200 + 1 = 250: allowed.
        let fits = try BinaryPropertyList(bytes: document(extra: 48)).root
        var node = try #require(fits[1])
        for _ in 0..<48 { node = try #require(node[0]) }
        #expect(node == fits[0])
        // One level more is refused, although the chain itself was fine when first read.
        #expect(throws: PropertyListError.self) { try BinaryPropertyList(bytes: document(extra: 49)) }
        do {
            _ = try BinaryPropertyList(bytes: document(extra: 49))
        } catch {
            #expect(error.code == "PLIST_TOO_DEEP")
        }
    }
}
