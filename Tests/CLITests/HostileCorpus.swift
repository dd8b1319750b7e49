import Foundation
import TestSupport

/// The hostile corpus committed in `Tests/Fixtures/hostile/`: files of every kind ipawrap reads,
/// each listed in `cases.tsv` with the commands that must refuse (or report) it and the codes they
/// must give. `HostileCorpusTests` runs every line through the command line; this type is how the
/// files and the manifest were made (`IPAWRAP_WRITE_FIXTURES=1 swift test --filter
/// HostileCorpusTests/writeCorpus` writes them again, and a test checks they still match).
enum HostileCorpus {
    static let folder = "hostile"
    static let manifestName = "cases.tsv"

    /// What one command must do with one file.
    struct Expectation: Sendable {
        /// `inspect`, `check`, `wrap`, `sign`, `repack`, `icon`, `assets`, `profile`, `policy` or `verify`.
        var command: String
        var exit: Int32
        /// The first is the code of the error (exit 64, 65, 74) or of a finding (exit 0, 1); the
        /// others must appear in the same message (the underlying format's code).
        var codes: [String]
        /// Extra options, e.g. a lowered limit.
        var arguments: [String] = []
    }

    struct Item {
        var file: String
        var what: String
        var bytes: [UInt8]
        var expectations: [Expectation]
    }

    // MARK: The manifest

    static let header = "# file\tcommand\texit\tcodes\targuments\twhat"

    /// One line per expectation, tab-separated; codes joined by `+`, arguments by spaces.
    static func manifest(_ items: [Item]) -> String {
        var lines = [
            "# The hostile corpus: each file, the command run on it, the exit status and the codes it must give",
            "# (the first is the error or finding; the others must appear in its message). Made by",
            "# Tests/CLITests/HostileCorpus.swift; run by HostileCorpusTests. Columns:",
            header,
        ]
        for item in items {
            for expectation in item.expectations {
                lines.append([
                    item.file, expectation.command, String(expectation.exit), expectation.codes.joined(separator: "+"),
                    expectation.arguments.joined(separator: " "), item.what,
                ].joined(separator: "\t"))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: The files

    /// An app whose files lie `levels` folders deep: `trees` folder trees (`a/a/…`, `b/b/…`),
    /// each with `filesPerTree` files at the bottom, and no folder entries (a folder entry for
    /// every level would make the archive quadratic in the depth).
    static func deepNames(trees: Int, filesPerTree: Int, levels: Int = 32_000) -> [UInt8] {
        var zip = ZipBuilder()
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        for tree in 0..<trees {
            let folder = String(repeating: String(UnicodeScalar(UInt8(ascii: "a") + UInt8(tree % 26))) + "/", count: levels)
            for file in 0..<filesPerTree {
                zip.file("Payload/A.app/" + folder + "f\(file)", [UInt8(file & 0xFF)], compression: .stored)
            }
        }
        return zip.bytes()
    }

    /// `count` SEQUENCEs nested in one another around an INTEGER.
    static func nestedDER(_ count: Int, indefinite: Bool) -> [UInt8] {
        guard indefinite else {
            var value: [UInt8] = [0x02, 0x01, 0x00]
            for _ in 0..<count { value = tlv(0x30, value) }
            return value
        }
        return [UInt8](repeating: 0, count: count * 2).enumerated().map { $0.offset.isMultiple(of: 2) ? 0x30 : 0x80 }
            + [0x02, 0x01, 0x00] + [UInt8](repeating: 0, count: count * 2)
    }

    /// The CMS `CMSBuilder` wrote for a test signature (`cms/codesign-rsa.cms`, DER), with `extra`
    /// empty SEQUENCEs added to its certificates after the real chain of three.
    static func cmsWithExtraCertificates(_ extra: Int) throws -> [UInt8] {
        /// The TLVs inside a definite-length DER element's content.
        func children(_ element: ArraySlice<UInt8>) throws -> [ArraySlice<UInt8>] {
            var content = try contentRange(element)
            var result: [ArraySlice<UInt8>] = []
            while !content.isEmpty {
                let range = try contentRange(content)
                let end = range.endIndex
                result.append(content[content.startIndex..<end])
                content = content[end...]
            }
            return result
        }
        /// The content of the TLV that starts `bytes`.
        func contentRange(_ bytes: ArraySlice<UInt8>) throws -> ArraySlice<UInt8> {
            let start = bytes.startIndex
            guard bytes.count >= 2 else { throw CorpusError(message: "a DER element is truncated") }
            let first = Int(bytes[start + 1])
            var length = first
            var header = 2
            if first & 0x80 != 0 {
                let size = first & 0x7F
                guard size > 0, size <= 4, bytes.count >= 2 + size else { throw CorpusError(message: "unexpected DER length") }
                length = bytes[(start + 2)..<(start + 2 + size)].reduce(0) { $0 << 8 | Int($1) }
                header += size
            }
            guard bytes.count >= header + length else { throw CorpusError(message: "a DER element runs past its parent") }
            return bytes[(start + header)..<(start + header + length)]
        }
        let cms = try Fixtures.bytes("cms/codesign-rsa.cms")
        let contentInfo = try children(cms[...])
        guard contentInfo.count == 2, let signedData = try children(contentInfo[1]).first else {
            throw CorpusError(message: "cms/codesign-rsa.cms is not a ContentInfo")
        }
        var fields = try children(signedData)
        guard fields.count == 5, fields[3].first == 0xA0 else { throw CorpusError(message: "the SignedData has no certificates") }
        fields[3] = ArraySlice(tlv(0xA0, Array(try contentRange(fields[3])) + Array(repeating: [0x30, 0x00], count: extra).flatMap { $0 }))
        return tlv(0x30, Array(contentInfo[0]) + tlv(0xA0, tlv(0x30, fields.flatMap { Array($0) })))
    }

    static func items() throws -> [Item] {
        var items: [Item] = []
        func add(_ file: String, _ what: String, _ bytes: [UInt8], _ expectations: [Expectation]) {
            items.append(Item(file: file, what: what, bytes: bytes, expectations: expectations))
        }
        /// The archive is refused, whatever the command.
        func refused(_ code: String, _ arguments: [String] = []) -> [Expectation] {
            ["inspect", "wrap", "repack"].map { Expectation(command: $0, exit: 65, codes: [code], arguments: arguments) }
        }

        // Archives: unsafe names (zip slip, absolute, backslashes, control bytes), duplicates,
        // symlinks that escape or loop, encryption, LZFSE and unknown methods, sizes and data
        // descriptors that lie, zip bombs, overlapping entries, damaged structure, app layout.
        for hostile in HostileArchives.all {
            add("archive-\(hostile.name).ipa", "archive: \(hostile.name.replacingOccurrences(of: "-", with: " "))", hostile.bytes,
                refused(hostile.code))
        }
        add("archive-zip-slip-trailing-dotdot.ipa", "archive: a name ending in a .. component", {
            var zip = ZipBuilder()
            zip.directory("Payload/")
            zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
            zip.file("Payload/A.app/..", "x")
            return zip.bytes()
        }(), refused("ARCHIVE_UNSAFE_NAME"))
        add("archive-zip-slip-empty-component.ipa", "archive: a name with an empty component (Payload//x)", {
            var zip = ZipBuilder()
            zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
            zip.file("Payload//A.app/x", "x")
            return zip.bytes()
        }(), refused("ARCHIVE_UNSAFE_NAME"))
        add("archive-total-size-bomb.ipa",
            "archive: 100 entries of 1 MiB of zeros, each under the ratio check, 100 MiB in all (64M limit)", {
            var zip = ZipBuilder()
            zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
            let zeros = [UInt8](repeating: 0, count: (1 << 20) - 1)
            for index in 0..<100 { zip.file("Payload/A.app/zeros-\(index)", zeros) }
            return zip.bytes()
        }(), refused("ARCHIVE_TOTAL_SIZE_LIMIT", ["--max-total-size", "64M"]))
        add("archive-too-many-entries.ipa", "archive: 300 entries (limit 256)", {
            var zip = ZipBuilder()
            zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
            for index in 0..<299 { zip.file("Payload/A.app/f\(index)", [UInt8(index & 0xFF)], compression: .stored) }
            return zip.bytes()
        }(), refused("ARCHIVE_TOO_MANY_ENTRIES", ["--max-entries", "256"]))
        add("archive-not-an-app.ipa", "archive: a zip with no Payload/, only NotAnApp.txt", HostileArchives.notAnApp(),
            refused("ARCHIVE_NO_APP"))
        // A name 32,000 folders deep (64 KB): its folders cost memory and time linear in its
        // bytes (the folder index and name checks were quadratic: 1.09 GB under 16M). More deep
        // names are generated by `deepNames` for DeepNameTests: too large to commit.
        add("archive-name-32000-levels-deep.ipa", "archive: a file 32,000 folders deep, under a 16 MiB memory limit",
            deepNames(trees: 1, filesPerTree: 1), [
                Expectation(command: "inspect", exit: 0, codes: [], arguments: ["--max-memory", "16M"]),
                Expectation(command: "wrap", exit: 1, codes: ["ICON_NOT_FOUND"], arguments: ["--max-memory", "16M"]),
            ])

        // Resource limits on an ordinary app: refused, not processed slowly.
        var padded = IPABuilder()
        padded.addPrimaryIcon()
        padded.info["Padding"] = .data([UInt8](repeating: 0x5A, count: 2 << 20))
        add("limit-large-info-plist.ipa", "an Info.plist of 2.7 MB (memory limit 1M)", try padded.bytes(), [
            Expectation(command: "inspect", exit: 65, codes: ["ARCHIVE_MEMORY_LIMIT"], arguments: ["--max-memory", "1M"]),
            Expectation(command: "wrap", exit: 65, codes: ["ARCHIVE_MEMORY_LIMIT"], arguments: ["--max-memory", "1M"]),
            Expectation(command: "inspect", exit: 0, codes: []),
        ])
        var plain = IPABuilder()
        plain.addPrimaryIcon()
        add("limit-time.ipa", "an ordinary app given a microsecond", try plain.bytes(), [
            Expectation(command: "inspect", exit: 65, codes: ["ARCHIVE_TIME_LIMIT"], arguments: ["--time-limit", "0.000001"]),
            Expectation(command: "wrap", exit: 65, codes: ["ARCHIVE_TIME_LIMIT"], arguments: ["--time-limit", "0.000001"]),
            Expectation(command: "repack", exit: 65, codes: ["ARCHIVE_TIME_LIMIT"], arguments: ["--time-limit", "0.000001"]),
        ])

        // Info.plists: binary plists with cycles and huge counts, 10,000-deep nesting, XML entity
        // bombs and external entities. The app cannot be read: refused.
        for name in [
            "PLIST_CYCLE--self-referencing-array", "PLIST_CYCLE--dict-array-cycle", "PLIST_BINARY_COUNT--array-count-2e60",
            "PLIST_BINARY_COUNT--dict-count-2e60", "PLIST_BINARY_TRAILER--object-count-2e60",
            "PLIST_BINARY_REF--array-ref-out-of-range", "PLIST_BINARY_TRAILER--truncated-trailer",
            "PLIST_TOO_DEEP--10000-nested-arrays", "PLIST_TOO_DEEP--10000-nested-xml-arrays",
            "PLIST_TOO_MANY_OBJECTS--shared-reference-bomb", "PLIST_XML_ENTITY--billion-laughs",
            "PLIST_XML_ENTITY--external-entity", "PLIST_XML_ENTITY--external-parameter-entity",
        ] {
            let code = String(name.prefix { $0 != "-" })
            var builder = IPABuilder()
            builder.rawInfoPlist = try Fixtures.bytes("plist/hostile/\(name).plist")
            let what = name.components(separatedBy: "--").last ?? name
            add("info-plist-\(what).ipa", "Info.plist: \(what.replacingOccurrences(of: "-", with: " "))", try builder.bytes(), [
                    Expectation(command: "inspect", exit: 65, codes: ["BUNDLE_INFO_PLIST_INVALID", code]),
                    Expectation(command: "wrap", exit: 65, codes: ["BUNDLE_INFO_PLIST_INVALID", code]),
                ])
        }

        // Provisioning profiles: DER lengths past the end, cut short, garbage.
        let profile = try Fixtures.bytes("profiles/generated/app.mobileprovision")
        // The outer SEQUENCE's two-byte length (30 82 hi lo) made to claim 1,000 bytes more than there are.
        guard profile.count > 4, profile[0] == 0x30, profile[1] == 0x82 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "app.mobileprovision is not DER as expected"])
        }
        var longer = profile
        let length = (Int(profile[2]) << 8 | Int(profile[3])) + 1000
        longer[2] = UInt8(truncatingIfNeeded: length >> 8)
        longer[3] = UInt8(length & 0xFF)
        let profiles: [(String, String, [UInt8], String)] = [
            ("profile-length-past-end.mobileprovision", "profile: the outer DER length claims 1,000 more bytes", longer, "PROFILE_TRUNCATED"),
            ("profile-cut-in-half.mobileprovision", "profile: the DER cut in half", Array(profile.prefix(profile.count / 2)), "PROFILE_TRUNCATED"),
            ("profile-bytes-after-the-end.mobileprovision", "profile: bytes after the outer DER element", profile + [0, 1, 2, 3], "PROFILE_MALFORMED_ASN1"),
        ]
        for (file, what, bytes, code) in profiles {
            add(file, what, bytes, [Expectation(command: "profile", exit: 65, codes: [code])])
            var embedded = IPABuilder()
            embedded.addPrimaryIcon()
            embedded.profile = bytes
            add(file.replacingOccurrences(of: ".mobileprovision", with: "-embedded.ipa"), what + ", embedded in an app",
                try embedded.bytes(), [
                    Expectation(command: "check", exit: 1, codes: ["PROFILE_UNREADABLE", code]),
                    Expectation(command: "wrap", exit: 1, codes: ["PROFILE_UNREADABLE", code]),
                ])
        }

        // Policy files: entity bombs and external entities.
        for name in ["billion-laughs", "external-entity"] {
            add("policy-\(name).xml", "policy: \(name.replacingOccurrences(of: "-", with: " "))",
                try Fixtures.bytes("policy/invalid/XML_ENTITY_DECLARATION.\(name).xml"),
                [Expectation(command: "policy", exit: 65, codes: ["POLICY_INVALID", "XML_ENTITY_DECLARATION"])])
        }

        // Executables: load commands past the header, and other damage. A finding, not a crash.
        for name in [
            "MACHO_LOAD_COMMANDS--ncmds-past-header", "MACHO_LOAD_COMMANDS--cmdsize-past-area",
            "MACHO_TRUNCATED--sizeofcmds-past-file", "MACHO_FAT_OVERLAP--fat-slices-overlap",
            "MACHO_SYMBOL_TABLE--nsyms-2-to-the-31",
        ] {
            let code = String(name.prefix { $0 != "-" })
            var builder = IPABuilder()
            builder.addPrimaryIcon()
            builder.executable = try Fixtures.bytes("macho/hostile/\(name).macho")
            add("executable-\(name.components(separatedBy: "--").last ?? name).ipa", "executable: \(name.components(separatedBy: "--").last ?? name)",
                try builder.bytes(), [Expectation(command: "inspect", exit: 0, codes: ["BINARY_UNREADABLE", code])])
        }
        // Code signatures: reading the signed entitlements meets the damage. A finding, not a crash.
        for (name, what) in [
            ("superblob-count-past-blob", "a code signature whose blob count runs past it"),
            ("blobs-overlap", "a code signature whose blobs overlap"),
            ("code-limit-past-slice", "a CodeDirectory covering more than the slice"),
            ("requirement-nesting-too-deep", "a requirement nested 10,000 levels deep"),
        ] {
            var signature = IPABuilder()
            signature.addPrimaryIcon()
            signature.executable = try Fixtures.bytes("macho/hostile/MACHO_SIGNATURE--\(name).macho")
            add("executable-signature-\(name.replacingOccurrences(of: "superblob-", with: "")).ipa", "executable: \(what)",
                try signature.bytes(), [Expectation(command: "inspect", exit: 0, codes: ["SIGNED_ENTITLEMENTS_UNREADABLE", "MACHO_SIGNATURE"])])
        }
        var deepDER = IPABuilder()
        deepDER.addPrimaryIcon()
        deepDER.executable = IPABuilder.executable { builder in
            var value: [UInt8] = [0x01, 0x01, 0xFF]
            for _ in 0..<200 { value = tlv(0x30, value) }
            var signature = MachOBuilder.CodeSignature(identifier: "com.example.sample")
            signature.entitlementsDER = tlv(0x70, [0x02, 0x01, 0x01] + tlv(0xB0, tlv(0x30, [0x0C, 0x01, 0x6B] + value)))
            builder.codeSignature = signature
        }
        add("executable-der-entitlements-nested-200-deep.ipa", "executable: DER entitlements nested 200 levels deep",
            // The finding's message gives the DER error's sentence without its code.
            try deepDER.bytes(), [Expectation(command: "inspect", exit: 0, codes: ["SIGNED_ENTITLEMENTS_UNREADABLE"])])

        // CMS signatures through verify: a finding for the slice, never a crash.
        for (file, what, cms, details) in [
            ("verify-cms-10000-certificates.ipa", "a code signature's CMS carrying 10,000 certificates beside its chain",
             try cmsWithExtraCertificates(10_000), ["CMS_TOO_MANY_CERTIFICATES", "10003 certificates"]),
            ("verify-cms-nested-10000-deep.ipa", "a code signature's CMS nested 10,000 SEQUENCEs deep (definite lengths)",
             nestedDER(10_000, indefinite: false), ["cannot be read", "CMS_MALFORMED_ASN1", "nested more than"]),
            ("verify-cms-nested-100000-deep-indefinite.ipa", "a code signature's CMS nested 100,000 SEQUENCEs deep (indefinite lengths)",
             nestedDER(100_000, indefinite: true), ["cannot be read", "CMS_MALFORMED_ASN1", "nested more than"]),
        ] {
            var signed = IPABuilder()
            signed.addPrimaryIcon()
            signed.executable = IPABuilder.executable { builder in
                var signature = MachOBuilder.CodeSignature(identifier: "com.example.sample")
                signature.cms = .bytes(cms)
                builder.codeSignature = signature
            }
            add(file, what, try signed.bytes(), [Expectation(command: "verify", exit: 1, codes: ["SIGNATURE_CMS_INVALID"] + details)])
        }

        // Icons: PNG dimensions that overflow or exceed the decoder's bounds.
        for (name, inspected) in [
            ("PNG_DIMENSIONS-7fffffff-square", nil), ("PNG_DIMENSIONS-over-pixel-limit", nil),
            ("PNG_DIMENSIONS-width-over-2-31", "ICON_UNREADABLE"),
        ] as [(String, String?)] {
            var builder = IPABuilder()
            builder.info["CFBundleIconFiles"] = ["Icon"]
            builder.addFile("Icon.png", try Fixtures.bytes("png/hostile/\(name).png"))
            var expectations = [Expectation(command: "icon", exit: inspected == nil ? 65 : 1, codes: inspected == nil ? ["PNG_DIMENSIONS"] : [])]
            if let inspected { expectations.append(Expectation(command: "inspect", exit: 0, codes: [inspected, "PNG_DIMENSIONS"])) }
            add("icon-\(name.dropFirst("PNG_DIMENSIONS-".count)).ipa", "icon: \(name.dropFirst("PNG_DIMENSIONS-".count))",
                try builder.bytes(), expectations)
        }

        // Asset catalogs: trees that loop.
        for name in ["index-node-is-its-own-child", "leaf-forward-to-itself", "leaves-link-back"] {
            var builder = IPABuilder()
            builder.info["CFBundleIconName"] = "AppIcon"
            builder.addFile("Assets.car", try Fixtures.bytes("assets/hostile/CAR_TREE_LOOP.\(name).car"))
            add("assets-tree-loop-\(name).ipa", "Assets.car: a tree where the \(name.replacingOccurrences(of: "-", with: " "))",
                try builder.bytes(), [
                    Expectation(command: "assets", exit: 65, codes: ["CAR_TREE_LOOP"]),
                    Expectation(command: "inspect", exit: 0, codes: ["ICON_UNREADABLE", "CAR_TREE_LOOP"]),
                ])
        }

        // Bundles: a main executable named outside the bundle, into another bundle, or not there;
        // or a file the code signature owns (its Info.plist, its seal, its profile: never a
        // resource, so never the executable), by name, in another case, or through a symlink.
        for (name, executable, code) in [
            ("escapes", "../../../../bin/sh", "EXECUTABLE_INVALID"), ("absolute", "/bin/sh", "EXECUTABLE_INVALID"),
            ("into-plugins", "PlugIns/Share.appex/Share", "EXECUTABLE_INVALID"), ("missing", "Sample", "EXECUTABLE_MISSING"),
            ("info-plist", "Info.plist", "EXECUTABLE_INVALID"), ("info-plist-upper-case", "INFO.PLIST", "EXECUTABLE_INVALID"),
            ("code-resources", "_CodeSignature/CodeResources", "EXECUTABLE_INVALID"),
            ("embedded-profile", "embedded.mobileprovision", "EXECUTABLE_INVALID"),
        ] {
            var builder = IPABuilder()
            builder.addPrimaryIcon()
            builder.info["CFBundleExecutable"] = .string(executable)
            // The builder stores the executable under its CFBundleExecutable name: none, so the zip stays safe.
            builder.executable = nil
            add("bundle-executable-\(name).ipa", "bundle: CFBundleExecutable '\(executable)'\(code == "EXECUTABLE_MISSING" ? ", not in the archive" : "")",
                try builder.bytes(), ["check", "wrap", "sign"].map { Expectation(command: $0, exit: 1, codes: [code]) })
        }
        var linked = IPABuilder()
        linked.addPrimaryIcon()
        linked.executable = nil
        linked.addSymlink("Sample", to: "Info.plist")
        add("bundle-executable-symlink-to-info-plist.ipa", "bundle: CFBundleExecutable 'Sample', a symlink to Info.plist",
            try linked.bytes(), ["check", "wrap", "sign"].map { Expectation(command: $0, exit: 1, codes: ["EXECUTABLE_INVALID"]) })
        return items
    }
}

/// A corpus builder's input is not what it expects.
struct CorpusError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
