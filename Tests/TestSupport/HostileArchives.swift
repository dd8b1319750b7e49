/// Hostile archives, each paired with the error code it must give. Used by the library tests,
/// by the command-line tests, and written to Tests/Fixtures/hostile/ for the CLI corpus.
public enum HostileArchives {
    /// A zip that holds no app, only `NotAnApp.txt` (the shape of isign's `NotAnApp.ipa`).
    public static func notAnApp() -> [UInt8] {
        var zip = ZipBuilder()
        zip.file("NotAnApp.txt", "This file isn't actually an app.\n")
        return zip.bytes()
    }

    public struct Case: Sendable, CustomStringConvertible {
        public let name: String
        public let code: String
        public let bytes: [UInt8]
        public var description: String { name }
    }

    static func app() -> ZipBuilder {
        var zip = ZipBuilder()
        zip.directory("Payload/")
        zip.directory("Payload/A.app/")
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        return zip
    }

    static func with(_ change: (inout ZipBuilder) -> Void) -> [UInt8] {
        var zip = app()
        change(&zip)
        return zip.bytes()
    }

    static func named(_ name: [UInt8]) -> [UInt8] {
        with { $0.entries.append(.init(name: name, data: Array("x".utf8), mode: 0o100644, compression: .stored)) }
    }

    public static let all: [Case] = {
        var cases: [Case] = []
        func add(_ name: String, _ code: String, _ bytes: [UInt8]) {
            cases.append(Case(name: name, code: code, bytes: bytes))
        }
        // Names.
        add("zip-slip-dotdot", "ARCHIVE_UNSAFE_NAME", named(Array("Payload/A.app/../../evil.sh".utf8)))
        add("zip-slip-leading-dotdot", "ARCHIVE_UNSAFE_NAME", named(Array("../evil.sh".utf8)))
        add("absolute-name", "ARCHIVE_UNSAFE_NAME", named(Array("/tmp/evil.sh".utf8)))
        add("backslash-name", "ARCHIVE_UNSAFE_NAME", named(Array("Payload\\A.app\\..\\..\\evil.sh".utf8)))
        add("nul-in-name", "ARCHIVE_UNSAFE_NAME", named(Array("Payload/A.app/evil".utf8) + [0] + Array(".txt".utf8)))
        add("control-in-name", "ARCHIVE_UNSAFE_NAME", named(Array("Payload/A.app/evil\n.txt".utf8)))
        add("dot-component", "ARCHIVE_UNSAFE_NAME", named(Array("Payload/./A.app/x".utf8)))
        add("duplicate-name", "ARCHIVE_DUPLICATE_NAME", with { $0.file("Payload/A.app/Info.plist", "<plist/>") })
        add("duplicate-nfc-nfd", "ARCHIVE_DUPLICATE_NAME", with {
            $0.file("Payload/A.app/caf\u{00E9}.txt", "nfc")
            $0.file("Payload/A.app/cafe\u{0301}.txt", "nfd")
        })
        add("case-only-twins", "ARCHIVE_CASE_COLLISION", with { $0.file("Payload/A.app/info.plist", "<plist/>") })
        add("case-only-twin-folders", "ARCHIVE_CASE_COLLISION", with { $0.file("payload/A.app/Info.plist", "<plist/>") })
        add("case-only-twins-non-ascii", "ARCHIVE_CASE_COLLISION", with {
            $0.file("Payload/A.app/\u{00C9}t\u{00E9}.txt", "upper")
            $0.file("Payload/A.app/e\u{0301}t\u{00E9}.txt", "lower, decomposed")
        })
        add("file-and-folder", "ARCHIVE_DUPLICATE_NAME", with {
            $0.file("Payload/A.app/Frameworks", "file")
            $0.directory("Payload/A.app/Frameworks/")
        })
        add("beneath-a-file", "ARCHIVE_UNSAFE_NAME", with {
            $0.file("Payload/A.app/data", "file")
            $0.file("Payload/A.app/data/inner", "x")
        })
        // Symlinks.
        add("symlink-escape", "ARCHIVE_SYMLINK_ESCAPE", with { $0.symlink("Payload/A.app/link", to: "../../../etc/passwd") })
        add("symlink-absolute", "ARCHIVE_SYMLINK_ESCAPE", with { $0.symlink("Payload/A.app/link", to: "/etc/passwd") })
        add("symlink-leaves-app", "ARCHIVE_SYMLINK_ESCAPE", with {
            $0.file("Payload/B.txt", "outside the app")
            $0.symlink("Payload/A.app/link", to: "../B.txt")
        })
        add("symlink-chain-escape", "ARCHIVE_SYMLINK_ESCAPE", with {
            $0.directory("Payload/A.app/Frameworks/")
            $0.symlink("Payload/A.app/Frameworks/up", to: "..")
            $0.symlink("Payload/A.app/link", to: "Frameworks/up/../../..")
        })
        add("symlink-loop", "ARCHIVE_SYMLINK_INVALID", with {
            $0.symlink("Payload/A.app/a", to: "b")
            $0.symlink("Payload/A.app/b", to: "a")
        })
        add("beneath-a-symlink", "ARCHIVE_UNSAFE_NAME", with {
            $0.symlink("Payload/A.app/dir", to: "Frameworks")
            $0.directory("Payload/A.app/Frameworks/")
            $0.file("Payload/A.app/dir/evil", "written through the link")
        })
        // Encryption and methods.
        add("encrypted-entry", "ARCHIVE_ENCRYPTED_ENTRY", with {
            var entry = ZipBuilder.Entry(name: Array("Payload/A.app/secret".utf8), data: Array("x".utf8), mode: 0o100644, compression: .stored)
            entry.flags = 0x0001
            $0.entries.append(entry)
        })
        add("aes-entry", "ARCHIVE_ENCRYPTED_ENTRY", with {
            var entry = ZipBuilder.Entry(name: Array("Payload/A.app/secret".utf8), data: Array("x".utf8), mode: 0o100644,
                                         compression: .raw(method: 99, data: Array(repeating: 0x55, count: 20)))
            entry.centralExtra = [0x01, 0x99, 7, 0, 2, 0, 0x41, 0x45, 3, 8, 0]
            entry.centralCompressedSize = 20
            $0.entries.append(entry)
        })
        add("lzfse-entry", "ARCHIVE_LZFSE_ENTRY", with {
            $0.entries.append(.init(name: Array("Payload/A.app/Assets.car".utf8), data: Array(repeating: 1, count: 64),
                                    mode: 0o100644, compression: .raw(method: 99, data: Array("bvx2....".utf8))))
        })
        add("unknown-method", "ARCHIVE_UNSUPPORTED_METHOD", with {
            $0.entries.append(.init(name: Array("Payload/A.app/x".utf8), data: Array(repeating: 1, count: 64),
                                    mode: 0o100644, compression: .raw(method: 98, data: Array(repeating: 2, count: 10))))
        })
        // Sizes that lie.
        add("local-size-lie", "ARCHIVE_SIZE_MISMATCH", with {
            var entry = ZipBuilder.Entry(name: Array("Payload/A.app/x".utf8), data: Array(repeating: 7, count: 100), mode: 0o100644, compression: .deflate)
            entry.localUncompressedSize = 50
            $0.entries.append(entry)
        })
        add("data-descriptor-lie", "ARCHIVE_SIZE_MISMATCH", with {
            var entry = ZipBuilder.Entry(name: Array("Payload/A.app/x".utf8), data: Array(repeating: 7, count: 100), mode: 0o100644, compression: .deflate)
            entry.dataDescriptor = true
            entry.descriptorUncompressedSize = 1_000_000
            $0.entries.append(entry)
        })
        // Bit 3 set, but the next local header follows the data: no descriptor at all.
        add("data-descriptor-missing", "ARCHIVE_SIZE_MISMATCH", with {
            var entry = ZipBuilder.Entry(name: Array("Payload/A.app/x".utf8), data: Array(repeating: 7, count: 100), mode: 0o100644, compression: .deflate)
            entry.flags = 0x0008
            $0.entries.append(entry)
            $0.entries.append(ZipBuilder.Entry(name: Array("Payload/A.app/y".utf8), data: Array("y".utf8), mode: 0o100644, compression: .stored))
        })
        add("stored-size-lie", "ARCHIVE_SIZE_MISMATCH", with {
            var entry = ZipBuilder.Entry(name: Array("Payload/A.app/x".utf8), data: Array(repeating: 7, count: 100), mode: 0o100644, compression: .stored)
            entry.centralUncompressedSize = 200
            entry.localUncompressedSize = 200
            $0.entries.append(entry)
        })
        add("compressed-size-past-end", "ARCHIVE_SIZE_MISMATCH", with {
            var entry = ZipBuilder.Entry(name: Array("Payload/A.app/x".utf8), data: Array(repeating: 7, count: 100), mode: 0o100644, compression: .deflate)
            entry.centralCompressedSize = 0x7FFF_FFFF
            entry.dataDescriptor = true
            $0.entries.append(entry)
        })
        // Zip bombs.
        add("expansion-ratio", "ARCHIVE_EXPANSION_RATIO", with {
            let zeros = [UInt8](repeating: 0, count: 8 << 20)
            $0.entries.append(.init(name: Array("Payload/A.app/zeros".utf8), data: zeros, mode: 0o100644, compression: .deflate))
        })
        add("overlapping-entries", "ARCHIVE_OVERLAPPING_ENTRIES", {
            // The "better zip bomb": entry B's local header lies inside entry A's stored data,
            // so the two central records share bytes.
            let innerName = Array("Payload/A.app/inner.bin".utf8)
            let innerData = Array(repeating: UInt8(9), count: 32)
            let inner = ZipBuilder.localRecord(name: innerName, data: innerData)
            let outerName = Array("Payload/A.app/outer.bin".utf8)
            var zip = ZipBuilder()
            zip.entries.append(.init(name: outerName, data: inner, mode: 0o100644, compression: .stored))
            zip.directory("Payload/")
            zip.directory("Payload/A.app/")
            zip.extraCentralRecords = [ZipBuilder.centralRecord(
                name: innerName, data: innerData, offset: UInt32(30 + outerName.count))]
            return zip.bytes()
        }())
        // Structure.
        add("truncated-central-directory", "ARCHIVE_CORRUPT", with { $0.declaredEntryCount = 4 })
        add("entry-count-lie", "ARCHIVE_CORRUPT", with { $0.declaredEntryCount = 2 })
        add("cut-in-half", "ARCHIVE_NOT_ZIP", { let bytes = app().bytes(); return Array(bytes[0..<(bytes.count / 2)]) }())
        add("no-end-record", "ARCHIVE_NOT_ZIP", Array("this is not a zip archive at all".utf8))
        add("trailing-garbage", "ARCHIVE_CORRUPT", with { $0.suffix = Array("garbage after the end record".utf8) })
        add("offsets-relative-to-prefix", "ARCHIVE_CORRUPT", with { $0.prefix = Array(repeating: 0x90, count: 64) }.shiftingOffsetsBack(64))
        add("local-name-differs", "ARCHIVE_CORRUPT", with {
            var entry = ZipBuilder.Entry(name: Array("Payload/A.app/good.txt".utf8), data: Array("x".utf8), mode: 0o100644, compression: .stored)
            entry.localName = Array("Payload/A.app/evil.sh".utf8)
            $0.entries.append(entry)
        })
        // Layout.
        add("no-app", "ARCHIVE_NO_APP", { var zip = ZipBuilder(); zip.file("NotAnApp.txt", "hello"); return zip.bytes() }())
        add("two-apps", "ARCHIVE_MULTIPLE_APPS", with { $0.file("Payload/B.app/Info.plist", "<plist/>") })
        return cases
    }()
}

extension [UInt8] {
    /// Moves every offset back by `amount` bytes, as if the prefix were not there.
    func shiftingOffsetsBack(_ amount: UInt32) -> [UInt8] {
        guard let end = endRecordOffset(), let directoryOffset = uint32(at: end + 16) else { return self }
        var result = self
        let lowered = directoryOffset - amount
        result.replaceSubrange((end + 16)..<(end + 20), with: Swift.withUnsafeBytes(of: lowered.littleEndian) { Array($0) })
        return result
    }

    func endRecordOffset() -> Int? {
        var index = count - 22
        while index >= 0 {
            if self[index] == 0x50, self[index + 1] == 0x4B, self[index + 2] == 5, self[index + 3] == 6 { return index }
            index -= 1
        }
        return nil
    }

    func uint16(at index: Int) -> UInt16? {
        guard index >= 0, index + 2 <= count else { return nil }
        return UInt16(self[index]) | UInt16(self[index + 1]) << 8
    }

    func uint32(at index: Int) -> UInt32? {
        guard index >= 0, index + 4 <= count else { return nil }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(self[index + $1]) << (8 * $1) }
    }
}
