import FormatSupport
import IPAArchive
import Testing
import TestSupport
import Zip

@Suite struct ReadingTests {
    @Test func listsEntriesAsTheIndependentReaderDoes() throws {
        let scratch = try ScratchDirectory("read")
        let path = try scratch.write("Sample.ipa", RealisticArchives.ipa())
        let archive = try IPAArchive(path: path)
        let oracle = try ZipOracle.entries(path)
        #expect(archive.appDirectory == "Payload/Sample.app/")
        #expect(archive.zip.entries.count == oracle.count)
        for (entry, expected) in zip(archive.zip.entries, oracle) {
            #expect(entry.name.bytes == ZipOracle.Entry.unhex(expected.name))
            #expect(entry.crc32 == expected.crc)
            #expect(entry.compressedSize == expected.compressedSize)
            #expect(entry.uncompressedSize == expected.fileSize)
            #expect(Int(entry.method) == expected.method)
            #expect(entry.unixMode == expected.mode)
            if let target = expected.symlinkTarget {
                #expect(entry.kind == .symlink)
                #expect(archive.zip.symlinkTarget(of: entry) == target)
            }
        }
    }

    @Test func readsAndStreamsContent() throws {
        let scratch = try ScratchDirectory("read")
        let archive = try IPAArchive(path: try scratch.write("Sample.ipa", RealisticArchives.ipa()))
        let plist = try #require(archive.appEntry("Info.plist"))
        let text = String(decoding: try archive.zip.read(plist, maximumSize: 1 << 20), as: UTF8.self)
        #expect(text.contains("com.example.sample"))
        #expect(throws: ArchiveError.self) { try archive.zip.read(plist, maximumSize: 10) }

        let described = try #require(archive.appEntry("described.bin"))
        var streamed: [UInt8] = []
        try archive.zip.stream(described, chunkSize: 1000) { streamed += $0 }
        #expect(streamed == Array(repeating: 0x41, count: 4000))
    }

    @Test func looksUpNamesAcrossUnicodeNormalization() throws {
        let scratch = try ScratchDirectory("read")
        let archive = try IPAArchive(path: try scratch.write("Sample.ipa", RealisticArchives.ipa()))
        // Stored as NFD; asked for in NFC.
        let entry = try #require(archive.appEntry("R\u{00E9}sum\u{00E9}.txt"))
        #expect(entry.name.bytes.contains(0xCC))  // the combining accent's first UTF-8 byte
        #expect(archive.appEntry("Frameworks/")?.kind == .directory)
    }

    @Test func givesRandomAccessToStoredAndCompressedEntries() throws {
        let scratch = try ScratchDirectory("read")
        var builder = ZipBuilder()
        let content = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        builder.directory("Payload/A.app/")
        builder.file("Payload/A.app/stored.bin", content, compression: .stored)
        builder.file("Payload/A.app/deflated.bin", content, compression: .deflate)
        let archive = try IPAArchive(path: try scratch.write("A.ipa", builder.bytes()))
        for name in ["stored.bin", "deflated.bin"] {
            let entry = try #require(archive.appEntry(name))
            let source = archive.zip.byteSource(for: entry)
            #expect(source.size == 200_000)
            #expect(try source.read(offset: 150_000, count: 16) == Array(content[150_000..<150_016]))
            // Backwards reads restart the stream; forward reads continue it.
            #expect(try source.read(offset: 10, count: 4) == Array(content[10..<14]))
            #expect(try source.read(offset: 199_990, count: 10) == Array(content[199_990..<200_000]))
            #expect(throws: OutOfBoundsError.self) { try source.read(offset: 199_999, count: 2) }
        }
    }

    /// Sources of one compressed entry opened one after another (as the binary checks, the
    /// signature summary and the entitlement check open them) share what was read: ranges read
    /// again and ranges further on give the entry's bytes, also interleaved with another entry and
    /// with a source still open, and a damaged entry fails every reader, not only the first.
    @Test func sourcesOfOneCompressedEntryShareWhatWasRead() throws {
        let scratch = try ScratchDirectory("read")
        var builder = ZipBuilder()
        let content = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 7) }
        let other = (0..<90_000).map { UInt8(truncatingIfNeeded: $0 &* 3) }
        builder.directory("Payload/A.app/")
        builder.file("Payload/A.app/A", content, compression: .deflate)
        builder.file("Payload/A.app/B", other, compression: .deflate)
        let archive = try IPAArchive(path: try scratch.write("A.ipa", builder.bytes()))
        let a = try #require(archive.appEntry("A"))
        let b = try #require(archive.appEntry("B"))
        func expectRange(_ source: ArchiveEntrySource, _ offset: Int, _ count: Int, of bytes: [UInt8]) throws {
            #expect(try source.read(offset: UInt64(offset), count: count) == Array(bytes[offset..<(offset + count)]))
        }
        do {
            let first = archive.zip.byteSource(for: a)
            try expectRange(first, 0, 64, of: content)
            try expectRange(first, 200_000, 5_000, of: content)
        }
        let open = archive.zip.byteSource(for: a)
        try expectRange(open, 100, 10, of: content)
        for _ in 0..<2 {
            let again = archive.zip.byteSource(for: a)
            try expectRange(again, 0, 64, of: content)  // kept
            try expectRange(again, 201_000, 1_000, of: content)  // inside a kept range
            try expectRange(again, 250_000, 50_000, of: content)  // further on
            try expectRange(again, 10, 20, of: content)  // behind: inflated again
            let interleaved = archive.zip.byteSource(for: b)
            try expectRange(interleaved, 80_000, 10_000, of: other)
            try expectRange(open, 299_000, 1_000, of: content)
        }

        // The same entry with its data damaged: every reader is refused, none served from a kept range.
        var damaged = builder.bytes()
        // The first copy of the name is the local header's; the data follows it (and a short extra field, if any).
        let name = Array("Payload/A.app/A".utf8)
        let nameAt = try #require((0...(damaged.count - name.count)).first { damaged[$0..<($0 + name.count)].elementsEqual(name) })
        let dataStart = nameAt + name.count
        for at in (dataStart + 1_000)..<(dataStart + 1_100) { damaged[at] ^= 0x5A }
        let broken = try IPAArchive(path: try scratch.write("Broken.ipa", damaged))
        let entry = try #require(broken.appEntry("A"))
        for _ in 0..<2 {
            #expect(throws: (any Error).self) { try broken.zip.byteSource(for: entry).read(offset: 290_000, count: 100) }
        }
    }

    @Test func refusesAZipWithNoApp() throws {
        let scratch = try ScratchDirectory("not-an-app")
        Self.expectNoApp(try scratch.write("NotAnApp.ipa", HostileArchives.notAnApp()))
    }

    /// The same on a zip another project made, isign's `NotAnApp.ipa` (`../shared`).
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func refusesTheIsignNotAnAppFixture() throws {
        Self.expectNoApp(IsignFixture.path("NotAnApp.ipa"))
    }

    static func expectNoApp(_ path: String) {
        #expect(throws: ArchiveError.noApp(archive: path)) { try IPAArchive(path: path) }
        // It is still a readable zip.
        #expect((try? ZipArchive(path: path).entries.map(\.path)) == ["NotAnApp.txt"])
    }

    @Test func convertsDOSTimestampsInUTC() {
        let stamp = DOSTimestamp(secondsSince1970: 1_700_000_000)  // 2023-11-14 22:13:20 UTC
        #expect(stamp.date == UInt16((2023 - 1980) << 9 | 11 << 5 | 14))
        #expect(stamp.time == UInt16(22 << 11 | 13 << 5 | 10))
        #expect(stamp.secondsSince1970 == 1_700_000_000)
        #expect(DOSTimestamp(secondsSince1970: 0).secondsSince1970 == 315_532_800)  // clamps to 1980
        // Any Int64 a user can type (--timestamp, SOURCE_DATE_EPOCH) clamps without overflowing.
        #expect(DOSTimestamp(secondsSince1970: .min) == .earliest)
        #expect(DOSTimestamp(secondsSince1970: .max).secondsSince1970 == 4_354_819_198)  // 2107-12-31 23:59:58
    }

    @Test(arguments: [
        ("a/../b", "'..'"), ("/etc/passwd", "absolute"), ("a\\b", "backslash"), ("a//b", "empty"),
        ("./a", "'.'"), ("a\u{1}b", "control"), ("", "empty"),
    ])
    func judgesNameSafety(name: String, reasonFragment: String) throws {
        let reason = try #require(EntryName(name).unsafeReason)
        #expect(reason.contains(reasonFragment))
    }

    @Test func acceptsOrdinaryNames() {
        for name in ["Payload/A.app/", "Payload/A.app/x..y", "Payload/A.app/.hidden", "Payload/A.app/Ré sumé"] {
            #expect(EntryName(name).unsafeReason == nil)
        }
    }
}
