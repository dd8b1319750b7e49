import CodeSignature
import FormatSupport
import Foundation
import MachO
import PropertyList
import TestSupport
import Testing

/// Signatures in the layout codesign writes: every blob must read, write back byte for byte, and
/// agree with the bytes it seals. Checked on the generated Xcode-shaped app (`XcodeShapedApp`: SHA-1
/// and SHA-256 CodeDirectories, DER entitlements, CDHashes, by an independent writer) and on Xcode
/// 7.2's own in isign's `Test.app` (`../shared`: SHA-1 only).
struct XcodeSigned: Sendable {
    let name: String
    let executable: String
    let dylib: String
    let identifier: String
    let dylibIdentifier: String
    let team: String
    let leafCommonName: String
    let read: @Sendable (String) throws -> [UInt8]

    static let generated = XcodeSigned(
        name: "generated", executable: XcodeShapedApp.appName, dylib: XcodeShapedApp.dylibPath,
        identifier: XcodeShapedApp.bundleIdentifier, dylibIdentifier: XcodeShapedApp.dylibIdentifier,
        team: XcodeShapedApp.teamIdentifier, leafCommonName: XcodeShapedApp.leafCommonName, read: { try XcodeShapedApp.bytes($0) })
    static let isign = XcodeSigned(
        name: "isign", executable: "isignTestApp", dylib: "Frameworks/libswiftContacts.dylib",
        identifier: "com.saucelabs.isignTestApp", dylibIdentifier: "com.apple.dt.runtime.swiftContacts", team: "L37S4Z6BE9",
        leafCommonName: "iPhone Developer: Neil Kandalgaonkar (PJ5C3PEW8Z)", read: { try IsignFixture.bytes("Test.app/" + $0) })

    struct SignedSlice {
        let slice: MachOSlice
        let signature: EmbeddedSignature
        /// The SuperBlob's own bytes (without the signer's padding).
        let superBlob: [UInt8]
        /// The slice's bytes.
        let bytes: [UInt8]
    }

    func signedSlices(_ path: String) throws -> [SignedSlice] {
        let file = try read(path)
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

    /// The designated requirement as codesign prints it: an identifier of letters and digits bare,
    /// others quoted.
    func designatedText(_ identifier: String) -> String {
        let bare = identifier.unicodeScalars.allSatisfy { ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }
        let shown = bare ? identifier : "\"\(identifier)\""
        return "identifier \(shown) and anchor apple generic and certificate leaf[subject.CN] = \"\(leafCommonName)\""
            + " and certificate 1[field.1.2.840.113635.100.6.2.1] /* exists */"
    }

    // MARK: Checks

    func everyBlobWritesBackByteForByte() throws {
        for path in [executable, dylib] {
            for signed in try signedSlices(path) {
                let signature = signed.signature
                #expect(signature.superBlob.isCanonicalLayout, "\(path)")
                #expect(try signature.serialized() == signed.superBlob, "\(path)")
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
                    entitlements: signature.entitlements, derEntitlements: try signature.derEntitlements(),
                    cmsSignature: signature.cmsSignature)
                #expect(try rebuilt.serialized() == signed.superBlob, "\(path)")
            }
        }
    }

    /// Every page hash of every CodeDirectory, against the slice's bytes; Python's hashlib as the
    /// oracle for one page of each.
    func pageHashesMatchTheSliceBytes() throws {
        for path in [executable, dylib] {
            for signed in try signedSlices(path) {
                for directory in signed.signature.codeDirectories {
                    #expect(directory.codeLimit == signed.slice.codeSigningLimit)
                    var source = InMemoryByteSource(signed.bytes)
                    let hashes = try CodePageHasher.hashPages(
                        of: &source, offset: 0, length: directory.codeLimit, pageSizeLog2: directory.pageSizeLog2,
                        hashTypes: [directory.hashType])
                    #expect(hashes == [directory.codeSlots])
                    let page = Array(signed.bytes[4096..<8192])
                    let algorithm = directory.hashType == .sha1 ? "sha1" : "sha256"
                    let oracle = try Command.run(
                        "python3", ["-c", "import hashlib,sys; print(hashlib.\(algorithm)(sys.stdin.buffer.read()).hexdigest())"],
                        input: page)
                    #expect(oracle.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == hex(directory.codeSlots[1]))
                }
            }
        }
    }

    /// The executable's special slots seal the Info.plist, the requirements, CodeResources and the
    /// entitlements (and the DER ones where there are), in every CodeDirectory's hash type.
    func specialSlotsSealTheFilesAndBlobs() throws {
        let infoPlist = try read("Info.plist")
        let codeResources = try read("_CodeSignature/CodeResources")
        for signed in try signedSlices(executable) {
            for directory in signed.signature.codeDirectories {
                let type = directory.hashType
                #expect(directory.specialSlotCount == (signed.signature.entitlementsDER == nil ? 5 : 7))
                #expect(directory.hash(for: .infoPlist) == type.digest(infoPlist))
                #expect(directory.hash(for: .requirements) == type.digest(try #require(signed.signature.blob(inSlot: 2))))
                #expect(directory.hash(for: .resourceDirectory) == type.digest(codeResources))
                #expect(directory.hash(for: .application) == Array(repeating: 0, count: type.digestSize ?? 0))
                #expect(directory.hash(for: .entitlements) == type.digest(try #require(signed.signature.blob(inSlot: 5))))
                if let der = signed.signature.blob(inSlot: 7) { #expect(directory.hash(for: .derEntitlements) == type.digest(der)) }
            }
        }
    }

    func requirementsPrintAsCodesignPrintsThem() throws {
        for signed in try signedSlices(executable) {
            #expect(signed.signature.requirements?.text == "designated => " + designatedText(identifier) + "\n")
        }
        for signed in try signedSlices(dylib) {
            #expect(signed.signature.requirements?.designated?.text == designatedText(dylibIdentifier))
        }
    }

    /// The designated requirement a signer builds for an Apple-issued iOS certificate is the one
    /// codesign wrote, byte for byte.
    func builtDesignatedRequirementIsCodesigns() throws {
        for (path, identifier) in [(executable, identifier), (dylib, dylibIdentifier)] {
            let signed = try #require(try signedSlices(path).first)
            let built = RequirementSet(designated: .iOSDesignated(identifier: identifier, leafCommonName: leafCommonName))
            #expect(try built.serialized() == signed.signature.blob(inSlot: 2))
        }
    }

    /// Building each CodeDirectory again from the slice and the sealed files gives codesign's
    /// bytes, so the builder lays out, versions and hashes as codesign does.
    func builderReproducesCodesignsDirectories() throws {
        let infoPlist = try read("Info.plist")
        let codeResources = try read("_CodeSignature/CodeResources")
        for path in [executable, dylib] {
            for signed in try signedSlices(path) {
                for original in signed.signature.codeDirectories {
                    var builder = CodeDirectory.Builder(identifier: original.identifier, teamIdentifier: team, hashType: original.hashType)
                    builder.codeLimit = try #require(signed.slice.codeSigningLimit)
                    builder.flags = original.flags
                    builder.executableSegment = original.executableSegment
                    var source = InMemoryByteSource(signed.bytes)
                    try builder.hashCode(of: &source)
                    try builder.setSpecialSlot(.requirements, hashing: try #require(signed.signature.blob(inSlot: 2)))
                    var sliceSource = InMemoryByteSource(signed.bytes)
                    let slice = try MachOSlice(reading: &sliceSource, offset: 0, size: UInt64(signed.bytes.count))
                    if let embedded = try slice.readEmbeddedInfoPlist(from: &sliceSource) {
                        try builder.setSpecialSlot(.infoPlist, hashing: embedded)
                    } else if path == executable {
                        try builder.setSpecialSlot(.infoPlist, hashing: infoPlist)
                    }
                    if path == executable {
                        try builder.setSpecialSlot(.resourceDirectory, hashing: codeResources)
                        try builder.setSpecialSlot(.entitlements, hashing: try #require(signed.signature.blob(inSlot: 5)))
                        if let der = signed.signature.blob(inSlot: 7) { try builder.setSpecialSlot(.derEntitlements, hashing: der) }
                    }
                    let built = try builder.build()
                    #expect(built.version == original.version, "\(path)")
                    #expect(built.bytes == original.bytes, "\(path) \(original.hashType)")
                    #expect(built.cdhash == original.cdhash)
                }
            }
        }
    }

    func entitlementsAndCMSAreKept() throws {
        for signed in try signedSlices(executable) {
            let entitlements = try #require(try signed.signature.entitlements?.dictionary())
            #expect(entitlements["application-identifier"] == .string("\(team).\(identifier)"))
            #expect(entitlements["get-task-allow"] == true)
            if let der = try signed.signature.derEntitlements() { #expect(der.dictionary == entitlements) }
            // The CMS is SignedData; openssl is the oracle that it is one.
            let scratch = try ScratchDirectory("cms")
            let cms = try scratch.write("signature.der", try #require(signed.signature.cmsSignature))
            let parsed = try Command.run("openssl", ["cms", "-cmsout", "-print", "-inform", "DER", "-in", cms])
            #expect(parsed.status == 0, "\(parsed.stderr)")
            #expect(parsed.stdout.contains("pkcs7-signedData"))
        }
    }

    func cdhashIsTheDirectoryDigestCutTo20Bytes() throws {
        for directory in try #require(try signedSlices(executable).first?.signature.codeDirectories) {
            let algorithm = directory.hashType == .sha1 ? "sha1" : "sha256"
            let oracle = try Command.run(
                "python3", ["-c", "import hashlib,sys; print(hashlib.\(algorithm)(sys.stdin.buffer.read()).hexdigest()[:40])"],
                input: directory.bytes)
            #expect(hex(try #require(directory.cdhash)) == oracle.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(directory.digest?.count == directory.hashType.digestSize)
        }
    }
}

@Suite struct XcodeShapedSignatureTests {
    let signed = XcodeSigned.generated

    @Test func everyBlobWritesBackByteForByte() throws { try signed.everyBlobWritesBackByteForByte() }
    @Test func pageHashesMatchTheSliceBytes() throws { try signed.pageHashesMatchTheSliceBytes() }
    @Test func specialSlotsSealTheFilesAndBlobs() throws { try signed.specialSlotsSealTheFilesAndBlobs() }
    @Test func requirementsPrintAsCodesignPrintsThem() throws { try signed.requirementsPrintAsCodesignPrintsThem() }
    @Test func builtDesignatedRequirementIsCodesigns() throws { try signed.builtDesignatedRequirementIsCodesigns() }
    @Test func builderReproducesCodesignsDirectories() throws { try signed.builderReproducesCodesignsDirectories() }
    @Test func entitlementsAndCMSAreKept() throws { try signed.entitlementsAndCMSAreKept() }
    @Test func cdhashIsTheDirectoryDigestCutTo20Bytes() throws { try signed.cdhashIsTheDirectoryDigestCutTo20Bytes() }

    /// Blobs back to back after the index, in slot order: SHA-1 directory, requirements, XML and
    /// DER entitlements, SHA-256 directory, CMS.
    @Test func blobsAreContiguousInSlotOrder() throws {
        for slice in try signed.signedSlices(XcodeShapedApp.appName) {
            let blobs = slice.signature.blobs
            #expect(blobs.map(\.slot) == [0, 2, 5, 7, 0x1000, 0x10000])
            #expect(blobs.first?.offset == 12 + 8 * blobs.count)
            for (blob, next) in zip(blobs, blobs.dropFirst()) { #expect(blob.offset + blob.length == next.offset) }
            #expect(slice.signature.codeDirectories.map(\.hashType) == [.sha1, .sha256])
        }
        // A loose dylib has no Info.plist: its directories have two special slots, the first empty.
        for slice in try signed.signedSlices(XcodeShapedApp.dylibPath) {
            #expect(slice.signature.blobs.map(\.slot) == [0, 2, 0x1000, 0x10000])
            for directory in slice.signature.codeDirectories {
                #expect(directory.specialSlotCount == 2)
                #expect(directory.hash(for: .infoPlist) == Array(repeating: 0, count: directory.hashType.digestSize ?? 0))
            }
        }
    }
}

@Suite(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
struct XcodeSignatureTests {
    let signed = XcodeSigned.isign

    @Test func everyBlobWritesBackByteForByte() throws { try signed.everyBlobWritesBackByteForByte() }
    @Test func pageHashesMatchTheSliceBytes() throws { try signed.pageHashesMatchTheSliceBytes() }
    @Test func specialSlotsSealTheFilesAndBlobs() throws { try signed.specialSlotsSealTheFilesAndBlobs() }
    @Test func requirementsPrintAsCodesignPrintsThem() throws { try signed.requirementsPrintAsCodesignPrintsThem() }
    @Test func builtDesignatedRequirementIsCodesigns() throws { try signed.builtDesignatedRequirementIsCodesigns() }
    @Test func builderReproducesCodesignsDirectories() throws { try signed.builderReproducesCodesignsDirectories() }
    @Test func entitlementsAndCMSAreKept() throws { try signed.entitlementsAndCMSAreKept() }
    @Test func cdhashIsTheDirectoryDigestCutTo20Bytes() throws { try signed.cdhashIsTheDirectoryDigestCutTo20Bytes() }

    /// codesign lays blobs out back to back after the index, in slot order, with no padding:
    /// the CMS wrapper of the executable starts at an odd offset.
    @Test func blobsAreContiguousAndUnaligned() throws {
        let slice = try #require(try signed.signedSlices(signed.executable).first)
        #expect(slice.signature.blobs.map(\.slot) == [0, 2, 5, 0x10000])
        #expect(slice.signature.blobs.map(\.offset) == [44, 594, 790, 1301])
        #expect(slice.signature.blobs.map(\.length) == [550, 196, 511, 4370])
    }

    /// Xcode 7.2 signed with SHA-1 alone, version 0x20200; a loose dylib's slot −1 seals the
    /// plist in its `__TEXT,__info_plist`.
    @Test func xcode7SignaturesAreSHA1AndBindTheDylibsPlist() throws {
        for slice in try signed.signedSlices(signed.executable) {
            #expect(slice.signature.codeDirectories.map(\.hashType) == [.sha1])
            #expect(slice.signature.codeDirectory?.version == 0x20200)
            #expect(slice.signature.entitlementsDER == nil)
            #expect(slice.signature.cmsSignature?.count == 4362)
        }
        for slice in try signed.signedSlices(signed.dylib) {
            let directory = try #require(slice.signature.codeDirectory)
            var source = InMemoryByteSource(slice.bytes)
            let embedded = try #require(
                try MachOSlice(reading: &source, offset: 0, size: UInt64(slice.bytes.count)).readEmbeddedInfoPlist(from: &source))
            #expect(embedded.count == 585)
            #expect(directory.specialSlotCount == 2)
            #expect(directory.hash(for: .infoPlist) == HashType.sha1.digest(embedded))
        }
    }
}
