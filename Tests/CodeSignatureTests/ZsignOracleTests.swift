import CodeSignature
import FormatSupport
import Foundation
import MachO
import PropertyList
import TestSupport
import Testing

/// zsign, an independent re-signer, signs a generated app; everything it wrote is read with this
/// model and checked against the bytes it seals and against what this model builds itself.
@Suite(.enabled(if: ZsignOracle.unavailable == nil, "\(ZsignOracle.unavailable ?? "")"))
struct ZsignOracleTests {
    static let bundleIdentifier = "com.example.sample"
    /// The subject CN of the committed test distribution identity zsign signs with.
    static let leafCommonName = "Apple Distribution: Example Corp (ABCDE12345)"

    /// An unpacked app zsign signed, kept alive with its scratch folder.
    struct SignedApp {
        let scratch: ScratchDirectory
        let app: URL
        var framework: URL { app.appendingPathComponent("Frameworks/Kit.framework") }
    }

    static func signed(legacySHA1: Bool = false) throws -> SignedApp {
        let scratch = try ScratchDirectory("zsign")
        var profile = ProfileBuilder(bundlePattern: bundleIdentifier)
        profile.developerCertificates = [try SigningFixtures.certificateDER("distribution")]
        let profilePath = try scratch.write("sample.mobileprovision", try profile.signed())

        func signable(_ fileType: UInt32, _ identifier: String) -> MachOBuilder {
            var builder = fileType == 6 ? MachOBuilder.dylib(installName: "@rpath/Kit.framework/Kit") : MachOBuilder()
            builder.version = .iOS("12.0", sdk: "17.2")
            builder.code = (0..<9000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            var signature = MachOBuilder.CodeSignature(identifier: identifier)
            signature.flags = 0x2
            builder.codeSignature = signature
            return builder
        }
        var armv7 = signable(2, bundleIdentifier)
        armv7.is64Bit = false
        armv7.cpuType = 12
        armv7.cpuSubtype = 9
        var ipa = IPABuilder(appName: "Sample", bundleIdentifier: bundleIdentifier)
        ipa.executable = MachOBuilder.fat([MachOBuilder.FatSlice(armv7), MachOBuilder.FatSlice(signable(2, bundleIdentifier))])
        ipa.profile = nil
        ipa.addFile("Base.lproj/Main.storyboardc/Info.plist", Array("<plist/>".utf8))
        ipa.addFile("fr.lproj/Localizable.strings", Array("\"Hello\" = \"Bonjour\";".utf8))
        ipa.addFile("fr.lproj/locversion.plist", Array("<plist/>".utf8))
        ipa.addFile("images/logo.dat", (0..<5000).map { UInt8(truncatingIfNeeded: $0) })
        ipa.addFile("images/.DS_Store", [0, 0, 0, 1])
        ipa.addFramework("Kit", bundleIdentifier: "com.example.kit")
        ipa.nested[0].executable = MachOBuilder.fat([MachOBuilder.FatSlice(signable(6, "com.example.kit"))])
        let input = try scratch.write("input.ipa", try ipa.bytes())
        let output = scratch.path("output.ipa")
        try ZsignOracle.sign(
            input, output: output, profile: profilePath, extraArguments: legacySHA1 ? ["-L"] : [])
        let unzipped = scratch.path("unzipped")
        let unzip = try Command.run("unzip", ["-q", output, "-d", unzipped])
        try #require(unzip.status == 0, "\(unzip.stderr)")
        return SignedApp(
            scratch: scratch, app: URL(fileURLWithPath: unzipped).appendingPathComponent("Payload/Sample.app"))
    }

    struct SignedSlice {
        let slice: MachOSlice
        let bytes: [UInt8]
        let signature: EmbeddedSignature
        let superBlob: [UInt8]
    }

    static func slices(of url: URL) throws -> [SignedSlice] {
        let file = [UInt8](try Data(contentsOf: url))
        var source = InMemoryByteSource(file)
        return try MachOFile(reading: &source).slices.map { slice in
            let signature = try #require(try slice.readCodeSignature(from: &source))
            let start = Int(slice.offset) + Int(try #require(slice.codeSignatureRange).offset)
            let length = Int(try ByteReader(file).uint32(at: start + 4, .big))
            return SignedSlice(
                slice: slice, bytes: Array(file[Int(slice.offset)..<Int(slice.offset + slice.size)]), signature: signature,
                superBlob: Array(file[start..<(start + length)]))
        }
    }

    /// Each slice's signature: every blob round-trips, page hashes and special slots match what
    /// they seal, the requirement is the one this model builds for the identity, and the DER
    /// entitlements are this model's encoding of the XML ones (zsign sorts keys by bytes too).
    @Test(arguments: [false, true])
    func signaturesAgreeWithWhatTheySeal(legacySHA1: Bool) throws {
        let signed = try Self.signed(legacySHA1: legacySHA1)
        for (bundle, executable, identifier) in [
            (signed.app, "Sample", Self.bundleIdentifier), (signed.framework, "Kit", "com.example.kit"),
        ] {
            let infoPlist = [UInt8](try Data(contentsOf: bundle.appendingPathComponent("Info.plist")))
            let codeResources = [UInt8](try Data(contentsOf: bundle.appendingPathComponent("_CodeSignature/CodeResources")))
            for slice in try Self.slices(of: bundle.appendingPathComponent(executable)) {
                let signature = slice.signature
                let name = "\(executable) \(slice.slice.architecture.name)"
                #expect(try signature.serialized() == slice.superBlob, "\(name)")
                #expect(signature.codeDirectories.map(\.hashType) == (legacySHA1 ? [.sha1, .sha256] : [.sha256]), "\(name)")
                #expect(signature.identifier == identifier)
                #expect(signature.teamIdentifier == "ABCDE12345")
                #expect(signature.hasCMSSignature)

                let requirements = try #require(signature.blob(inSlot: 2))
                let designated = RequirementSet(
                    designated: .iOSDesignated(identifier: identifier, leafCommonName: Self.leafCommonName))
                #expect(try designated.serialized() == requirements, "\(name)")
                let entitlementsBlob = try #require(signature.blob(inSlot: 5))
                let xml = try #require(try signature.entitlements?.dictionary())
                // zsign gives frameworks an empty XML dictionary and no DER blob.
                let derBlob = signature.blob(inSlot: 7)
                if executable == "Kit" {
                    #expect(xml.isEmpty && derBlob == nil)
                } else {
                    #expect(xml["application-identifier"]?.string == "ABCDE12345.\(Self.bundleIdentifier)")
                    #expect(try DEREntitlements(dictionary: xml).blob() == derBlob, "\(name)")
                    #expect(try signature.derEntitlements()?.dictionary == xml)
                }

                for directory in signature.codeDirectories {
                    #expect(try directory.serialized() == directory.bytes, "\(name)")
                    #expect(directory.codeLimit == slice.slice.codeSigningLimit)
                    var source = InMemoryByteSource(slice.bytes)
                    let pages = try CodePageHasher.hashPages(
                        of: &source, offset: 0, length: directory.codeLimit, pageSizeLog2: directory.pageSizeLog2,
                        hashTypes: [directory.hashType])
                    #expect(pages == [directory.codeSlots], "\(name) \(directory.hashType)")
                    let type = directory.hashType
                    #expect(directory.hash(for: .infoPlist) == type.digest(infoPlist), "\(name)")
                    #expect(directory.hash(for: .requirements) == type.digest(requirements))
                    #expect(directory.hash(for: .resourceDirectory) == type.digest(codeResources), "\(name)")
                    #expect(directory.hash(for: .entitlements) == type.digest(entitlementsBlob))
                    // Without DER entitlements zsign stops at special slot −5.
                    #expect(directory.hash(for: .derEntitlements) == derBlob.flatMap { type.digest($0) })
                    #expect(directory.specialSlotCount == (derBlob == nil ? 5 : 7))
                }
            }
        }
    }

    /// This model's builder, given what zsign hashed, writes zsign's CodeDirectories byte for
    /// byte: same version, fields, layout.
    @Test func builderWritesZsignsDirectories() throws {
        let signed = try Self.signed()
        let infoPlist = [UInt8](try Data(contentsOf: signed.app.appendingPathComponent("Info.plist")))
        let codeResources = [UInt8](try Data(contentsOf: signed.app.appendingPathComponent("_CodeSignature/CodeResources")))
        for slice in try Self.slices(of: signed.app.appendingPathComponent("Sample")) {
            let original = try #require(slice.signature.codeDirectory)
            var builder = CodeDirectory.Builder(identifier: Self.bundleIdentifier, teamIdentifier: "ABCDE12345", hashType: .sha256)
            builder.codeLimit = try #require(slice.slice.codeSigningLimit)
            let entitlements = try #require(try slice.signature.entitlements?.dictionary())
            builder.executableSegment = slice.slice.codeDirectoryExecutableSegment(entitlements: entitlements)
            builder.flags = original.flags
            var source = InMemoryByteSource(slice.bytes)
            try builder.hashCode(of: &source)
            try builder.setSpecialSlot(.infoPlist, hashing: infoPlist)
            try builder.setSpecialSlot(.requirements, hashing: try #require(slice.signature.blob(inSlot: 2)))
            try builder.setSpecialSlot(.resourceDirectory, hashing: codeResources)
            try builder.setSpecialSlot(.entitlements, hashing: try #require(slice.signature.blob(inSlot: 5)))
            try builder.setSpecialSlot(.derEntitlements, hashing: try #require(slice.signature.blob(inSlot: 7)))
            let built = try builder.build()
            #expect(built.version == original.version)
            #expect(built.executableSegment == original.executableSegment)
            #expect(built.bytes == original.bytes, "\(slice.slice.architecture.name)")
        }
    }

    /// zsign's CodeResources reads and writes back byte for byte; it verifies against the bundle with no
    /// discrepancy; and this model's builder, with Apple's iOS rules, seals the same files with
    /// the same digests. The one difference is explained: zsign marks every `.lproj/` file
    /// optional, while Apple's `^Base\.lproj/` rule (weight 1010, not optional) outweighs the
    /// optional `^.*\.lproj/` rule (1000) for Base.lproj.
    @Test func codeResourcesAgree() throws {
        let signed = try Self.signed()
        for (bundle, executable) in [(signed.app, "Sample"), (signed.framework, "Kit")] {
            let bytes = [UInt8](try Data(contentsOf: bundle.appendingPathComponent("_CodeSignature/CodeResources")))
            let zsigns = try CodeResources(bytes: bytes)
            #expect(try zsigns.serialized() == bytes)
            // The same rules, in zsign's insertion order rather than Core Foundation's sorted one.
            let byPattern = { (rules: [ResourceRule]?) in (rules ?? []).sorted { $0.pattern < $1.pattern } }
            #expect(byPattern(zsigns.rules) == byPattern(ResourceRule.iOSRules))
            #expect(byPattern(zsigns.rules2) == byPattern(ResourceRule.iOSRules2))

            let entries = try BundleOnDisk.entries(of: bundle)
            let verification = try BundleOnDisk.facts(for: try zsigns.verificationRequests(for: entries), in: bundle)
            #expect(try zsigns.discrepancies(for: entries, mainExecutable: executable, facts: verification) == [])

            let builder = CodeResourcesBuilder()
            let facts = try BundleOnDisk.facts(for: try builder.requests(for: entries, mainExecutable: executable), in: bundle)
            let ours = try builder.build(for: entries, mainExecutable: executable, facts: facts)
            func explained(_ seals: [CodeResources.Seal]?) -> [CodeResources.Seal] {
                (seals ?? []).map { seal in
                    var seal = seal
                    if seal.path.hasPrefix("Base.lproj/") { seal.optional = true }
                    return seal
                }
            }
            #expect(explained(ours.files2) == zsigns.files2)
            #expect(explained(ours.files) == zsigns.files)
        }
        // The app's seal covers the framework file by file, as iOS seals do.
        let app = try CodeResources(bytes: [UInt8](try Data(contentsOf: signed.app.appendingPathComponent("_CodeSignature/CodeResources"))))
        #expect(app.seal(for: "Frameworks/Kit.framework/Kit") != nil)
        #expect(app.seal(for: "Frameworks/Kit.framework/_CodeSignature/CodeResources") != nil)
        #expect(app.seal(for: "images/.DS_Store") == nil)
        #expect(app.seal(for: "Info.plist") == nil)
    }

    /// LIEF (PyPI), a second Mach-O reader, finds each slice's signature where this one does and
    /// reads the same SuperBlob header.
    @Test(.enabled(if: PythonOracle.canRun("lief"), "needs the Python oracle with lief (Scripts/test makes it)"))
    func liefFindsTheSameSignatures() throws {
        let signed = try Self.signed()
        let path = signed.app.appendingPathComponent("Sample").path
        let script = """
            import lief, sys
            fat = lief.MachO.parse(sys.argv[1])
            # Iterating the FatBinary itself crashes LIEF 1.0; index it and keep it alive.
            for index in range(fat.size):
                binary = fat.at(index)
                signature = binary.code_signature
                content = bytes(signature.content)
                print(int(binary.header.cpu_type.value), signature.data_offset, signature.data_size, content[:12].hex())
            """
        let output = try PythonOracle.run(script, arguments: [path], packages: ["lief"])
        var expected: [String] = []
        for slice in try Self.slices(of: signed.app.appendingPathComponent("Sample")) {
            let range = try #require(slice.slice.codeSignatureRange)
            expected.append("\(slice.slice.architecture.cpuType) \(range.offset) \(range.size) \(hex(Array(slice.superBlob.prefix(12))))")
        }
        #expect(output.split(separator: "\n").map(String.init) == expected)
    }
}
