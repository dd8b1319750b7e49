import CodeSignature
import FormatSupport
import Foundation
import MachO
import PropertyList
import TestSupport
import Testing

/// The signatures Xcode 7.2's codesign wrote into isign's Test.app: a fat armv7+arm64 executable
/// and a fat armv7+armv7s+arm64 dylib. Each blob must read, write back byte for byte, and agree
/// with the bytes it seals.
@Suite struct XcodeSignatureTests {
    static let app = "isign/Test.app"
    static let executable = "\(app)/isignTestApp"
    static let dylib = "\(app)/Frameworks/libswiftContacts.dylib"
    static let designatedText =
        "designated => identifier \"com.saucelabs.isignTestApp\" and anchor apple generic"
        + " and certificate leaf[subject.CN] = \"iPhone Developer: Neil Kandalgaonkar (PJ5C3PEW8Z)\""
        + " and certificate 1[field.1.2.840.113635.100.6.2.1] /* exists */\n"

    struct SignedSlice {
        let slice: MachOSlice
        let signature: EmbeddedSignature
        /// The SuperBlob's own bytes (without the signer's padding).
        let superBlob: [UInt8]
        /// The slice's bytes.
        let bytes: [UInt8]
    }

    static func signedSlices(_ path: String) throws -> [SignedSlice] {
        let file = try Fixtures.bytes(path)
        var source = InMemoryByteSource(file)
        return try MachOFile(reading: &source).slices.map { slice in
            let signature = try #require(try slice.readCodeSignature(from: &source))
            let range = try #require(slice.codeSignatureRange)
            let start = Int(slice.offset) + Int(range.offset)
            let length = Int(try ByteReader(file).uint32(at: start + 4, .big))
            return SignedSlice(
                slice: slice, signature: signature, superBlob: Array(file[start..<(start + length)]),
                bytes: Array(file[Int(slice.offset)..<Int(slice.offset + slice.size)]))
        }
    }

    @Test(arguments: [executable, dylib])
    func everyBlobWritesBackByteForByte(_ path: String) throws {
        for signed in try Self.signedSlices(path) {
            let signature = signed.signature
            #expect(signature.superBlob.isCanonicalLayout)
            #expect(try signature.serialized() == signed.superBlob)
            for directory in signature.codeDirectories {
                #expect(try directory.serialized() == directory.bytes)
                #expect(try CodeDirectory(bytes: directory.serialized()) == directory)
            }
            let requirements = try #require(signature.requirements)
            #expect(try requirements.serialized() == signature.blob(inSlot: 2))
            #expect(try signature.entitlements?.blob() == signature.blob(inSlot: 5))
            // Assembling the parts again gives the same SuperBlob.
            let rebuilt = try EmbeddedSignature(
                codeDirectories: signature.codeDirectories, requirements: requirements,
                entitlements: signature.entitlements, derEntitlements: nil, cmsSignature: signature.cmsSignature)
            #expect(try rebuilt.serialized() == signed.superBlob)
        }
    }

    /// codesign lays blobs out back to back after the index, in slot order, with no padding:
    /// the CMS wrapper of the executable starts at an odd offset.
    @Test func blobsAreContiguousAndUnaligned() throws {
        let signed = try #require(try Self.signedSlices(Self.executable).first)
        #expect(signed.signature.blobs.map(\.slot) == [0, 2, 5, 0x10000])
        #expect(signed.signature.blobs.map(\.offset) == [44, 594, 790, 1301])
        #expect(signed.signature.blobs.map(\.length) == [550, 196, 511, 4370])
    }

    @Test(arguments: [executable, dylib])
    func pageHashesMatchTheSliceBytes(_ path: String) throws {
        for signed in try Self.signedSlices(path) {
            let directory = try #require(signed.signature.codeDirectory)
            #expect(directory.codeLimit == signed.slice.codeSigningLimit)
            var source = InMemoryByteSource(signed.bytes)
            let hashes = try CodePageHasher.hashPages(
                of: &source, offset: 0, length: directory.codeLimit, pageSizeLog2: directory.pageSizeLog2,
                hashTypes: [directory.hashType])
            #expect(hashes == [directory.codeSlots])
            // Python's hashlib as the oracle for one page.
            let page = Array(signed.bytes[4096..<8192])
            let oracle = try Command.run(
                "python3", ["-c", "import hashlib,sys; print(hashlib.sha1(sys.stdin.buffer.read()).hexdigest())"],
                input: page)
            #expect(oracle.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == hex(directory.codeSlots[1]))
        }
    }

    @Test func specialSlotsSealTheFilesAndBlobs() throws {
        let infoPlist = try Fixtures.bytes("\(Self.app)/Info.plist")
        let codeResources = try Fixtures.bytes("\(Self.app)/_CodeSignature/CodeResources")
        for signed in try Self.signedSlices(Self.executable) {
            let directory = try #require(signed.signature.codeDirectory)
            #expect(directory.specialSlotCount == 5)
            #expect(directory.hash(for: .infoPlist) == HashType.sha1.digest(infoPlist))
            #expect(directory.hash(for: .requirements) == HashType.sha1.digest(try #require(signed.signature.blob(inSlot: 2))))
            #expect(directory.hash(for: .resourceDirectory) == HashType.sha1.digest(codeResources))
            #expect(directory.hash(for: .application) == Array(repeating: 0, count: 20))
            #expect(directory.hash(for: .entitlements) == HashType.sha1.digest(try #require(signed.signature.blob(inSlot: 5))))
        }
        // A loose dylib has no Info.plist file: slot −1 seals the plist in its __TEXT,__info_plist.
        for signed in try Self.signedSlices(Self.dylib) {
            let directory = try #require(signed.signature.codeDirectory)
            var source = InMemoryByteSource(signed.bytes)
            let embedded = try #require(try MachOSlice(reading: &source, offset: 0, size: UInt64(signed.bytes.count)).readEmbeddedInfoPlist(from: &source))
            #expect(embedded.count == 585)
            #expect(directory.specialSlotCount == 2)
            #expect(directory.hash(for: .infoPlist) == HashType.sha1.digest(embedded))
            #expect(directory.hash(for: .requirements) == HashType.sha1.digest(try #require(signed.signature.blob(inSlot: 2))))
        }
    }

    @Test func requirementsPrintAsCodesignPrintsThem() throws {
        for signed in try Self.signedSlices(Self.executable) {
            #expect(signed.signature.requirements?.text == Self.designatedText)
        }
        for signed in try Self.signedSlices(Self.dylib) {
            #expect(
                signed.signature.requirements?.designated?.text
                    == "identifier \"com.apple.dt.runtime.swiftContacts\" and anchor apple generic and certificate leaf[subject.CN]"
                    + " = \"iPhone Developer: Neil Kandalgaonkar (PJ5C3PEW8Z)\" and certificate 1[field.1.2.840.113635.100.6.2.1] /* exists */"
            )
        }
    }

    /// The designated requirement a signer builds for an Apple-issued iOS certificate is the
    /// one codesign wrote, byte for byte.
    @Test func builtDesignatedRequirementIsCodesigns() throws {
        for (path, identifier) in [(Self.executable, "com.saucelabs.isignTestApp"), (Self.dylib, "com.apple.dt.runtime.swiftContacts")] {
            let signed = try #require(try Self.signedSlices(path).first)
            let built = RequirementSet(
                designated: .iOSDesignated(
                    identifier: identifier, leafCommonName: "iPhone Developer: Neil Kandalgaonkar (PJ5C3PEW8Z)"))
            #expect(try built.serialized() == signed.signature.blob(inSlot: 2))
        }
    }

    /// Building each CodeDirectory again from the slice and the sealed files gives codesign's
    /// bytes, so the builder lays out, versions and hashes as codesign does.
    @Test(arguments: [executable, dylib])
    func builderReproducesCodesignsDirectories(_ path: String) throws {
        let infoPlist = try Fixtures.bytes("\(Self.app)/Info.plist")
        let codeResources = try Fixtures.bytes("\(Self.app)/_CodeSignature/CodeResources")
        for signed in try Self.signedSlices(path) {
            let original = try #require(signed.signature.codeDirectory)
            var builder = CodeDirectory.Builder(
                identifier: original.identifier, teamIdentifier: "L37S4Z6BE9", hashType: .sha1)
            builder.codeLimit = try #require(signed.slice.codeSigningLimit)
            var source = InMemoryByteSource(signed.bytes)
            try builder.hashCode(of: &source)
            try builder.setSpecialSlot(.requirements, hashing: try #require(signed.signature.blob(inSlot: 2)))
            var sliceSource = InMemoryByteSource(signed.bytes)
            let slice = try MachOSlice(reading: &sliceSource, offset: 0, size: UInt64(signed.bytes.count))
            try builder.setSpecialSlot(.infoPlist, hashing: try slice.readEmbeddedInfoPlist(from: &sliceSource) ?? infoPlist)
            if path == Self.executable {
                try builder.setSpecialSlot(.resourceDirectory, hashing: codeResources)
                try builder.setSpecialSlot(.entitlements, hashing: try #require(signed.signature.blob(inSlot: 5)))
            }
            let built = try builder.build()
            #expect(built.version == 0x20200)
            #expect(built.bytes == original.bytes)
            #expect(built.cdhash == original.cdhash)
        }
    }

    @Test func entitlementsAndCMSAreKept() throws {
        for signed in try Self.signedSlices(Self.executable) {
            let entitlements = try #require(try signed.signature.entitlements?.dictionary())
            #expect(entitlements["application-identifier"] == "L37S4Z6BE9.com.saucelabs.isignTestApp")
            #expect(entitlements["get-task-allow"] == true)
            #expect(signed.signature.entitlementsDER == nil)
            #expect(signed.signature.cmsSignature?.count == 4362)
            // The CMS is DER SignedData; openssl is the oracle that it is one.
            let scratch = try ScratchDirectory("cms")
            let cms = try scratch.write("signature.der", try #require(signed.signature.cmsSignature))
            let parsed = try Command.run("openssl", ["cms", "-cmsout", "-print", "-inform", "DER", "-in", cms])
            #expect(parsed.status == 0, "\(parsed.stderr)")
            #expect(parsed.stdout.contains("pkcs7-signedData"))
        }
    }

    @Test func cdhashIsTheDirectoryDigestCutTo20Bytes() throws {
        let directory = try #require(try Self.signedSlices(Self.executable).first?.signature.codeDirectory)
        let oracle = try Command.run(
            "python3", ["-c", "import hashlib,sys; print(hashlib.sha1(sys.stdin.buffer.read()).hexdigest())"],
            input: directory.bytes)
        #expect(hex(try #require(directory.cdhash)) == oracle.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(directory.digest?.count == 20)
    }
}
