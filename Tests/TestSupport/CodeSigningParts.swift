import CLibcrypto
import Foundation

/// The parts of an Xcode-style code signature, written here from Apple's published formats and
/// sharing no code with ipawrap's `CodeSignature`, `CMS` or `Signing` targets, so that the readers
/// and the verifier are tested against an independent writer: digests (OpenSSL's libcrypto), a
/// designated requirement (codesign's `DRMaker` form), a `_CodeSignature/CodeResources` (codesign's
/// XML), and a detached CMS signature of a CodeDirectory in the layout codesign writes (BER with
/// indefinite lengths around the content, the chain leaf → WWDR → root, signed attributes
/// contentType, signingTime, messageDigest, the CDHashes plist and CDHashes2), signed by
/// `openssl dgst -sign` with the committed test identity (`Tests/Fixtures/signing`).
public enum CodeSigningParts {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    // MARK: Digests

    /// SHA-1 (`hashType` 1) or SHA-256 (2) of `bytes`, by libcrypto.
    public static func digest(_ hashType: UInt8, _ bytes: [UInt8]) -> [UInt8] {
        let algorithm = hashType == 1 ? EVP_sha1() : EVP_sha256()
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = bytes.withUnsafeBufferPointer { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, algorithm, nil)
        }
        return status == 1 ? Array(output.prefix(Int(length))) : []
    }

    // MARK: Designated requirement

    /// The requirement set codesign writes for code signed by an Apple-issued iOS certificate:
    /// `designated => identifier "ID" and anchor apple generic and certificate leaf[subject.CN] =
    /// "CN" and certificate 1[field.1.2.840.113635.100.6.2.1] /* exists */`, each `and` holding the
    /// next term and the rest, as codesign writes it (`A and (B and (C and D))`).
    public static func designatedRequirementSet(identifier: String, leafCommonName: String) -> [UInt8] {
        func data(_ bytes: [UInt8]) -> [UInt8] {
            bigEndian(UInt32(bytes.count)) + bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
        }
        let opAnd = bigEndian(6)
        var expression = opAnd + bigEndian(2) + data(Array(identifier.utf8))  // opIdent
        expression += opAnd + bigEndian(15)  // opAppleGenericAnchor
        expression += opAnd
        // opCertField, leaf (0), "subject.CN", matchEqual (1)
        expression += bigEndian(11) + bigEndian(0) + data(Array("subject.CN".utf8)) + bigEndian(1)
            + data(Array(leafCommonName.utf8))
        // opCertGeneric, certificate 1, Apple's WWDR marker OID, matchExists (0)
        expression += bigEndian(14) + bigEndian(1) + data(oidContent("1.2.840.113635.100.6.2.1")) + bigEndian(0)
        let requirement = bigEndian(0xFADE_0C00) + bigEndian(UInt32(12 + expression.count)) + bigEndian(1) + expression
        // A set of one: its type 3 (designated) at offset 20.
        return bigEndian(0xFADE_0C01) + bigEndian(UInt32(20 + requirement.count)) + bigEndian(1) + bigEndian(3)
            + bigEndian(20) + requirement
    }

    // MARK: CodeResources

    /// One `files`/`files2` entry of a seal.
    public struct Seal: Sendable {
        public var path: String
        /// The sealed bytes (a file that is absent from the bundle may still be listed).
        public var contents: [UInt8]
        public var optional = false
        /// Listed in `files2` (the version 2 seal); `files` lists every seal.
        public var inFiles2 = true

        public init(path: String, contents: [UInt8], optional: Bool = false, inFiles2: Bool = true) {
            self.path = path
            self.contents = contents
            self.optional = optional
            self.inFiles2 = inFiles2
        }
    }

    /// `rules` and `rules2` as current codesign writes them for an iOS bundle, in Core
    /// Foundation's key order: (pattern, weight, flags) with weight nil for a bare `true`.
    static let rules: [(String, Int?, [String])] = [
        ("^.*", nil, []),
        ("^.*\\.lproj/", 1000, ["optional"]),
        ("^.*\\.lproj/locversion.plist$", 1100, ["omit"]),
        ("^Base\\.lproj/", 1010, []),
        ("^version.plist$", nil, []),
    ]
    static let rules2: [(String, Int?, [String])] = [
        (".*\\.dSYM($|/)", 11, []),
        ("^(.*/)?\\.DS_Store$", 2000, ["omit"]),
        ("^.*", nil, []),
        ("^.*\\.lproj/", 1000, ["optional"]),
        ("^.*\\.lproj/locversion.plist$", 1100, ["omit"]),
        ("^Base\\.lproj/", 1010, []),
        ("^Info\\.plist$", 20, ["omit"]),
        ("^PkgInfo$", 20, ["omit"]),
        ("^embedded\\.provisionprofile$", 20, []),
        ("^version\\.plist$", 20, []),
    ]

    /// `_CodeSignature/CodeResources` as codesign writes it (XML, tab-indented, keys sorted by
    /// their UTF-16 code units, `<data>` as base64 on its own line): `files` with SHA-1 digests,
    /// `files2` with `hash` (SHA-1) and `hash2` (SHA-256), then Apple's iOS rules, and in rules2
    /// `extraRules2` (pattern, weight) too.
    public static func codeResources(_ seals: [Seal], extraRules2: [(pattern: String, weight: Int)] = []) -> [UInt8] {
        func dataElement(_ bytes: [UInt8], indent: String) -> String {
            "\(indent)<data>\n\(indent)\(Data(bytes).base64EncodedString())\n\(indent)</data>\n"
        }
        func sortedKeys<T>(_ items: [(String, T)]) -> [(String, T)] {
            items.sorted { Array($0.0.utf16).lexicographicallyPrecedes(Array($1.0.utf16)) }
        }
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>files</key>
            \t<dict>

            """
        for (path, seal) in sortedKeys(seals.map { ($0.path, $0) }) {
            text += "\t\t<key>\(escaped(path))</key>\n"
            let sha1 = digest(1, seal.contents)
            if seal.optional {
                text += "\t\t<dict>\n\t\t\t<key>hash</key>\n" + dataElement(sha1, indent: "\t\t\t")
                text += "\t\t\t<key>optional</key>\n\t\t\t<true/>\n\t\t</dict>\n"
            } else {
                text += dataElement(sha1, indent: "\t\t")
            }
        }
        text += "\t</dict>\n\t<key>files2</key>\n\t<dict>\n"
        for (path, seal) in sortedKeys(seals.filter(\.inFiles2).map { ($0.path, $0) }) {
            text += "\t\t<key>\(escaped(path))</key>\n\t\t<dict>\n"
            text += "\t\t\t<key>hash</key>\n" + dataElement(digest(1, seal.contents), indent: "\t\t\t")
            text += "\t\t\t<key>hash2</key>\n" + dataElement(digest(2, seal.contents), indent: "\t\t\t")
            if seal.optional { text += "\t\t\t<key>optional</key>\n\t\t\t<true/>\n" }
            text += "\t\t</dict>\n"
        }
        text += "\t</dict>\n"
        for (name, list) in [("rules", rules), ("rules2", rules2 + extraRules2.map { ($0.pattern, $0.weight, []) })] {
            text += "\t<key>\(name)</key>\n\t<dict>\n"
            for (pattern, rule) in sortedKeys(list.map { ($0.0, ($0.1, $0.2)) }) {
                text += "\t\t<key>\(escaped(pattern))</key>\n"
                guard let weight = rule.0 else {
                    text += "\t\t<true/>\n"
                    continue
                }
                text += "\t\t<dict>\n"
                for flag in rule.1.sorted() { text += "\t\t\t<key>\(flag)</key>\n\t\t\t<true/>\n" }
                text += "\t\t\t<key>weight</key>\n\t\t\t<real>\(weight)</real>\n\t\t</dict>\n"
            }
            text += "\t</dict>\n"
        }
        text += "</dict>\n</plist>\n"
        return Array(text.utf8)
    }

    // MARK: CMS

    /// The committed test identity (`Tests/Fixtures/signing`): the distribution leaf, its key,
    /// the WWDR stand-in and the root, as codesign embeds the chain.
    public struct Identity: Sendable {
        public var leafDER: [UInt8]
        public var keyPEMPath: String
        public var chainDER: [[UInt8]]

        public static func testDistribution() throws -> Identity {
            Identity(
                leafDER: try Fixtures.bytes("signing/distribution.cer"),
                keyPEMPath: SigningFixtures.path("distribution.key.pem"),
                chainDER: [try Fixtures.bytes("signing/wwdr.cer"), try Fixtures.bytes("signing/root.cer")])
        }
    }

    /// A detached CMS `SignedData` over `codeDirectories[0]` (the slot-0 CodeDirectory, the
    /// content codesign signs), with SHA-256 and RSA, in codesign's layout; `signingTime` is
    /// `YYMMDDhhmmssZ`. The CDHashes plist lists every directory's hash cut to 20 bytes, and
    /// CDHashes2 every directory's full hash with its algorithm, as Xcode writes them.
    public static func cmsSignature(
        codeDirectories: [(hashType: UInt8, bytes: [UInt8])], identity: Identity, signingTime: String
    ) throws -> [UInt8] {
        guard let content = codeDirectories.first?.bytes else { throw Failure(description: "no CodeDirectory to sign") }
        let (issuer, serial) = try issuerAndSerial(of: identity.leafDER)
        let cdHashes = codeDirectories.map { Array(digest($0.hashType, $0.bytes).prefix(20)) }
        var plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>cdhashes</key>
            \t<array>

            """
        for hash in cdHashes { plist += "\t\t<data>\n\t\t\(Data(hash).base64EncodedString())\n\t\t</data>\n" }
        plist += "\t</array>\n</dict>\n</plist>\n"
        let cdHashes2 = codeDirectories.map { directory in
            DER.sequence(
                DER.oid(directory.hashType == 1 ? "1.3.14.3.2.26" : "2.16.840.1.101.3.4.2.1"),
                DER.tlv(0x04, digest(directory.hashType, directory.bytes)))
        }
        let attributes = [
            attribute("1.2.840.113549.1.9.3", [DER.oid("1.2.840.113549.1.7.1")]),
            attribute("1.2.840.113549.1.9.5", [DER.tlv(0x17, Array(signingTime.utf8))]),
            attribute("1.2.840.113549.1.9.4", [DER.tlv(0x04, digest(2, content))]),
            attribute("1.2.840.113635.100.9.1", [DER.tlv(0x04, Array(plist.utf8))]),
            attribute("1.2.840.113635.100.9.2", cdHashes2),
        ]
        // The signature covers the attributes as a DER SET; the SignerInfo holds them as [0].
        let signedSet = DER.setOf(attributes)
        let signature = try rsaSign(signedSet, keyPEMPath: identity.keyPEMPath)
        let sha256 = DER.sequence(DER.oid("2.16.840.1.101.3.4.2.1"), DER.tlv(0x05, []))
        let signerInfo = DER.sequence(
            DER.tlv(0x02, [1]),
            DER.sequence(issuer, serial),
            sha256,
            [0xA0] + Array(signedSet.dropFirst()),
            DER.sequence(DER.oid("1.2.840.113549.1.1.1"), DER.tlv(0x05, [])),
            DER.tlv(0x04, signature))
        let certificates = DER.tlv(0xA0, ([identity.leafDER] + identity.chainDER).flatMap { $0 })
        let signedData = DER.indefinite(
            0x30,
            DER.tlv(0x02, [1]) + DER.tlv(0x31, sha256)
                + DER.indefinite(0x30, DER.oid("1.2.840.113549.1.7.1")) + certificates + DER.tlv(0x31, signerInfo))
        return DER.indefinite(0x30, DER.oid("1.2.840.113549.1.7.2") + DER.indefinite(0xA0, signedData))
    }

    static func attribute(_ oid: String, _ values: [[UInt8]]) -> [UInt8] {
        DER.sequence(DER.oid(oid), DER.setOf(values))
    }

    /// The issuer Name and serial INTEGER of a certificate, as its TBSCertificate holds them.
    static func issuerAndSerial(of certificate: [UInt8]) throws -> (issuer: [UInt8], serial: [UInt8]) {
        let outer = try DER.children(of: certificate)
        guard let tbs = outer.first else { throw Failure(description: "the certificate has no TBSCertificate") }
        var fields = try DER.children(of: tbs)
        if fields.first?.first == 0xA0 { fields.removeFirst() }  // [0] version
        guard fields.count > 2 else { throw Failure(description: "the TBSCertificate is too short") }
        return (fields[2], fields[0])
    }

    /// PKCS #1 v1.5 RSA over SHA-256 of `message`, by `openssl dgst -sign` (deterministic).
    static func rsaSign(_ message: [UInt8], keyPEMPath: String) throws -> [UInt8] {
        let scratch = try ScratchDirectory("cms-sign")
        let input = try scratch.write("attributes.der", message)
        let output = scratch.path("signature")
        let result = try Command.run("openssl", ["dgst", "-sha256", "-sign", keyPEMPath, "-out", output, input])
        guard result.status == 0 else { throw Failure(description: "openssl dgst -sign failed: \(result.stderr)") }
        return try Fixtures.bytesAt(output)
    }

    // MARK: Helpers

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    /// The content octets of an OBJECT IDENTIFIER.
    static func oidContent(_ dotted: String) -> [UInt8] {
        let arcs = dotted.split(separator: ".").compactMap { UInt64($0) }
        guard arcs.count >= 2 else { return [] }
        var bytes = [UInt8(arcs[0] * 40 + arcs[1])]
        for arc in arcs.dropFirst(2) {
            var groups = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            bytes += groups
        }
        return bytes
    }

    /// Minimal DER: definite-length TLVs, indefinite-length constructed values, sorted SETs,
    /// and reading one level of children.
    enum DER {
        static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
            var length: [UInt8] = []
            if content.count < 0x80 {
                length = [UInt8(content.count)]
            } else {
                var value = content.count
                while value > 0 {
                    length.insert(UInt8(value & 0xFF), at: 0)
                    value >>= 8
                }
                length.insert(0x80 | UInt8(length.count), at: 0)
            }
            return [tag] + length + content
        }

        static func indefinite(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
            [tag, 0x80] + content + [0, 0]
        }

        static func sequence(_ parts: [UInt8]...) -> [UInt8] {
            tlv(0x30, parts.flatMap { $0 })
        }

        static func oid(_ dotted: String) -> [UInt8] {
            tlv(0x06, oidContent(dotted))
        }

        /// A SET OF, its elements in ascending order of their encodings (X.690 11.6).
        static func setOf(_ elements: [[UInt8]]) -> [UInt8] {
            tlv(0x31, elements.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 })
        }

        /// The complete TLVs inside a definite-length constructed value.
        static func children(of element: [UInt8]) throws -> [[UInt8]] {
            let (start, end) = try bounds(element, at: 0)
            var children: [[UInt8]] = []
            var offset = start
            while offset < end {
                let (childStart, childEnd) = try bounds(element, at: offset)
                _ = childStart
                children.append(Array(element[offset..<childEnd]))
                offset = childEnd
            }
            return children
        }

        /// Where the content of the TLV at `offset` starts and where the TLV ends.
        static func bounds(_ bytes: [UInt8], at offset: Int) throws -> (contentStart: Int, end: Int) {
            guard offset + 1 < bytes.count else { throw Failure(description: "DER cut short at \(offset)") }
            let first = Int(bytes[offset + 1])
            var length = first
            var header = 2
            if first & 0x80 != 0 {
                let count = first & 0x7F
                guard count > 0, count <= 4, offset + 2 + count <= bytes.count else {
                    throw Failure(description: "unsupported DER length at \(offset)")
                }
                length = bytes[(offset + 2)..<(offset + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
                header += count
            }
            guard offset + header + length <= bytes.count else { throw Failure(description: "DER past its end at \(offset)") }
            return (offset + header, offset + header + length)
        }
    }
}
