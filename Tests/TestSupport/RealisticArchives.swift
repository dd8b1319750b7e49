/// Archives shaped like real IPAs, built with `ZipBuilder`, for round-trip and reading tests.
public enum RealisticArchives {
    /// An IPA with the variety a faithful repack must preserve: folder entries, Unix modes,
    /// extended-timestamp extras, data descriptors (with and without signature), stored and
    /// deflated entries, an NFD name, a non-UTF-8 name, symlinks (file and framework style),
    /// an executable, and root items outside the app (SwiftSupport, iTunesMetadata.plist).
    public static func ipa(appName: String = "Sample") -> [UInt8] {
        var zip = ZipBuilder()
        let app = "Payload/\(appName).app/"
        let stamp = ZipBuilder.extendedTimestamp(1_700_000_000)
        func add(_ entry: ZipBuilder.Entry) {
            var entry = entry
            entry.localExtra = stamp
            entry.centralExtra = stamp
            zip.entries.append(entry)
        }
        func directory(_ name: String) {
            add(.init(name: Array(name.utf8), data: [], mode: 0o040755, compression: .stored))
        }
        func file(_ name: String, _ data: [UInt8], mode: UInt16 = 0o100644, compression: ZipBuilder.Compression = .deflate) {
            add(.init(name: Array(name.utf8), data: data, mode: mode, compression: compression))
        }
        directory("Payload/")
        directory(app)
        file(app + "Info.plist", Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>"
            + "<key>CFBundleIdentifier</key><string>com.example.sample</string></dict></plist>\n").utf8))
        file(app + appName, [0xCF, 0xFA, 0xED, 0xFE] + (0..<6000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }, mode: 0o100755)
        file(app + "PkgInfo", Array("APPL????".utf8), compression: .stored)
        // NFD: "Résumé.txt" with combining acute accents.
        file(app + "Re\u{0301}sume\u{0301}.txt", Array(String(repeating: "text ", count: 300).utf8))
        var described = ZipBuilder.Entry(
            name: Array((app + "described.bin").utf8), data: Array(repeating: 0x41, count: 4000), mode: 0o100644,
            compression: .deflate)
        described.dataDescriptor = true
        add(described)
        var bare = ZipBuilder.Entry(
            name: Array((app + "bare-descriptor.bin").utf8), data: Array("no signature".utf8), mode: 0o100644,
            compression: .deflate)
        bare.dataDescriptor = true
        bare.descriptorSignature = false
        add(bare)
        // A name that is not UTF-8 (Latin-1 é), as old Windows tools write.
        add(.init(name: Array((app + "caf").utf8) + [0xE9] + Array(".txt".utf8), data: Array("latin".utf8),
                  mode: 0o100644, compression: .deflate))
        directory(app + "Frameworks/")
        directory(app + "Frameworks/Kit.framework/")
        directory(app + "Frameworks/Kit.framework/Versions/")
        directory(app + "Frameworks/Kit.framework/Versions/A/")
        file(app + "Frameworks/Kit.framework/Versions/A/Kit", [0xCF, 0xFA, 0xED, 0xFE, 1, 2, 3], mode: 0o100755)
        add(.init(name: Array((app + "Frameworks/Kit.framework/Versions/Current").utf8), data: Array("A".utf8),
                  mode: 0o120755, compression: .stored))
        add(.init(name: Array((app + "Frameworks/Kit.framework/Kit").utf8), data: Array("Versions/Current/Kit".utf8),
                  mode: 0o120755, compression: .stored))
        add(.init(name: Array((app + "Default.png").utf8), data: Array("Info.plist".utf8),
                  mode: 0o120755, compression: .stored))
        directory("SwiftSupport/")
        directory("SwiftSupport/iphoneos/")
        file("SwiftSupport/iphoneos/libswiftCore.dylib", [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 0], mode: 0o100755)
        file("iTunesMetadata.plist", Array("<plist/>".utf8))
        zip.comment = Array("made by RealisticArchives".utf8)
        return zip.bytes()
    }
}
