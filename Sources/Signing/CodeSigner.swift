import CMS
import CodeSignature
import FormatSupport
import Foundation
import MachO
import SigningIdentity
import SwiftASN1
import X509

/// What one piece of code is signed with, besides its bytes.
struct CodeSigningInputs: Sendable {
    /// The CodeDirectory identifier: the bundle ID, or a loose dylib's file name.
    var identifier: String
    /// Info.plist's bytes (special slot 1), for a bundle's main executable.
    var infoPlist: [UInt8]?
    /// Bind each slice's own embedded Info.plist (`__TEXT,__info_plist`, as the Swift runtime's
    /// dylibs carry) in special slot 1, as codesign does for loose code.
    var bindsEmbeddedInfoPlist = false
    /// `_CodeSignature/CodeResources` (special slot 3), for a bundle's main executable. Asked for
    /// when the signature is written, after every code page is hashed, so the bundle's resources
    /// can still be hashed on the other cores while the pages are (`ArchiveSigner`).
    var codeResources: (@Sendable () throws -> [UInt8])?
    /// The entitlements (slots 5 and 7); nil for frameworks and dylibs.
    var entitlements: SignedEntitlements?
    /// Told the signed file's length as soon as its layout is decided, before any page is hashed
    /// (an early copy places the archive's later entries after it: `RepackForecast`).
    var laidOut: (@Sendable (UInt64) -> Void)?
}

/// The entitlements a bundle is signed with, in both encodings.
struct SignedEntitlements: Sendable {
    let xml: EntitlementsBlob
    let der: DEREntitlements
    let getTaskAllow: Bool
}

/// Signed code: the new file and how a parent seal names it.
struct SignedCode: Sendable {
    let bytes: [UInt8]
    /// The primary CodeDirectory's cdhash of the first slice (what CodeResources records).
    let cdhash: [UInt8]
    /// The designated requirement, as text.
    let requirement: String
}

/// Signs every slice of one Mach-O file: the layout from `SigningLayout` (reused, grown or added
/// `LC_CODE_SIGNATURE`), code pages hashed while the file streams through, then per slice the
/// CodeDirectories, requirements, entitlements and the detached CMS.
struct CodeSigner: Sendable {
    let identity: SigningIdentity
    let signingTime: Date
    /// `subject.CN` of the leaf, for the designated requirement.
    let leafCommonName: String
    let teamIdentifier: String?

    static let pageSizeLog2: UInt8 = 12

    /// Signs the Mach-O file `file` read from `source`; a Mach-O error names `path`. With
    /// `hashingOnAllCores`, large runs of pages are hashed on every core (for a file signed while
    /// nothing else runs, such as a bundle's main executable).
    /// `codeWritten` is given the new file's bytes up to its last slice's signature, and the
    /// file's whole length, once that slice's code pages are hashed and before its signature asks
    /// for `inputs.codeResources` (for a thin file, before anything waits for it).
    func sign<Source: ByteSource>(
        file: MachOFile, source: inout Source, inputs: CodeSigningInputs, path: String, hashingOnAllCores: Bool = false,
        codeWritten: ((_ code: [UInt8], _ length: UInt64) throws -> Void)? = nil
    ) throws -> SignedCode {
        do {
            return try signUnnamed(
                file: file, source: &source, inputs: inputs, path: path, hashingOnAllCores: hashingOnAllCores,
                codeWritten: codeWritten)
        } catch let error as MachOError {
            throw error.naming(path)
        }
    }

    private func signUnnamed<Source: ByteSource>(
        file: MachOFile, source: inout Source, inputs: CodeSigningInputs, path: String, hashingOnAllCores: Bool,
        codeWritten: ((_ code: [UInt8], _ length: UInt64) throws -> Void)?
    ) throws -> SignedCode {
        let requirement = Requirement.iOSDesignated(identifier: inputs.identifier, leafCommonName: leafCommonName)
        let requirements = RequirementSet(designated: requirement)
        let requirementsBlob = try requirements.serialized()
        let entitlementsXMLBlob = try inputs.entitlements.map { try $0.xml.blob() }
        let entitlementsDERBlob = try inputs.entitlements.map { try $0.der.blob() }

        let hashTypesBySlice = file.slices.map(\.appleCodeDirectoryHashTypes)
        let certificateBytes = try ([identity.certificate] + identity.chain).reduce(0) { total, certificate in
            total + (try CMSSigning.derLength(certificate))
        }
        var sizes: [Int] = []
        for (slice, types) in zip(file.slices, hashTypesBySlice) {
            let placement = try slice.signaturePlacement()
            let pages = Int((placement.codeLimit + (1 << UInt64(Self.pageSizeLog2)) - 1) >> UInt64(Self.pageSizeLog2))
            let directories = types.reduce(0) { total, type in
                total + 128 + inputs.identifier.utf8.count + (teamIdentifier?.utf8.count ?? 0) + 2
                    + (pages + 7) * (type.digestSize ?? 32)
            }
            let estimate = 12 + 8 * 6 + directories + requirementsBlob.count + (entitlementsXMLBlob?.count ?? 0)
                + (entitlementsDERBlob?.count ?? 0) + certificateBytes + 4096
            sizes.append(estimate)
        }
        let layout = try SigningLayout(file: file, signatureSizes: sizes)
        inputs.laidOut?(layout.size)
        var slotOne: [[UInt8]?] = []
        for slice in file.slices {
            slotOne.append(inputs.bindsEmbeddedInfoPlist ? try Self.embeddedInfoPlist(of: slice, from: &source) : inputs.infoPlist)
        }

        var hashers: [CodePageHasher] = []
        for types in hashTypesBySlice {
            hashers.append(
                try CodePageHasher(pageSizeLog2: Self.pageSizeLog2, hashTypes: types, allowsConcurrency: hashingOnAllCores))
        }
        var output: [UInt8] = []
        output.reserveCapacity(Int(layout.size))
        var firstCDHash: [UInt8]?
        try layout.write(
            from: &source, pageSize: 1 << Int(Self.pageSizeLog2),
            hashing: { index, pages in pages.withUnsafeBytes { hashers[index].update($0) } },
            signature: { index in
                let slice = file.slices[index]
                let laidOut = layout.slices[index]
                let hashes = hashers[index].finalize()
                if index == file.slices.count - 1 { try codeWritten?(output, layout.size) }
                let resources = try inputs.codeResources?()
                var directories: [CodeDirectory] = []
                for (type, codeHashes) in zip(hashTypesBySlice[index], hashes) {
                    var builder = CodeDirectory.Builder(
                        identifier: inputs.identifier, teamIdentifier: teamIdentifier, hashType: type)
                    builder.codeLimit = laidOut.codeLimit
                    builder.codeHashes = codeHashes
                    builder.executableSegment = Self.executableSegment(
                        slice, getTaskAllow: inputs.entitlements?.getTaskAllow ?? false)
                    if let infoPlist = slotOne[index] { try builder.setSpecialSlot(.infoPlist, hashing: infoPlist) }
                    try builder.setSpecialSlot(.requirements, hashing: requirementsBlob)
                    if let resources { try builder.setSpecialSlot(.resourceDirectory, hashing: resources) }
                    if let entitlementsXMLBlob { try builder.setSpecialSlot(.entitlements, hashing: entitlementsXMLBlob) }
                    if let entitlementsDERBlob { try builder.setSpecialSlot(.derEntitlements, hashing: entitlementsDERBlob) }
                    directories.append(try builder.build())
                }
                guard let primary = directories.first else {
                    throw CodeSignatureError(.codeDirectory, "no CodeDirectory was built for \(path)")
                }
                var cdHashes: [CMSCodeDirectoryHash] = []
                for directory in directories {
                    guard let digest = directory.digest, let algorithm = CMSSigning.algorithm(directory.hashType) else {
                        throw CodeSignatureError(.codeDirectory, "the CodeDirectory of \(path) has no computable hash")
                    }
                    cdHashes.append(CMSCodeDirectoryHash(algorithm: algorithm, digest: digest))
                }
                let cms = try CMSBuilder.detachedSignature(
                    content: primary.bytes, identity: identity, signingTime: signingTime, cdHashes: cdHashes)
                if index == 0 { firstCDHash = primary.cdhash }
                let signature = try EmbeddedSignature(
                    codeDirectories: directories, requirements: requirements, entitlements: inputs.entitlements?.xml,
                    derEntitlements: inputs.entitlements?.der, cmsSignature: cms)
                return try signature.serialized()
            },
            to: { bytes in output.append(contentsOf: bytes) })
        guard let cdhash = firstCDHash else {
            throw CodeSignatureError(.codeDirectory, "\(path) has no slice to sign")
        }
        return SignedCode(bytes: output, cdhash: cdhash, requirement: requirement.text)
    }

    /// A slice's embedded Info.plist (`__TEXT,__info_plist`), or nil when it has none. One over
    /// `MachOSlice.maximumEmbeddedInfoPlistSize` is refused (`MACHO_SECTION`), as `verify` refuses
    /// it, rather than signed unbound.
    static func embeddedInfoPlist<Source: ByteSource>(of slice: MachOSlice, from source: inout Source) throws -> [UInt8]? {
        guard let section = slice.section(segment: "__TEXT", name: "__info_plist"), !section.isZeroFill, section.size > 0
        else { return nil }
        return try slice.readEmbeddedInfoPlist(from: &source)
    }

    /// `__TEXT`'s file range, flagged as the main binary for an executable (and allowing
    /// unsigned pages when debugging is allowed), as codesign writes it.
    static func executableSegment(_ slice: MachOSlice, getTaskAllow: Bool) -> CodeDirectory.ExecutableSegment? {
        guard let text = slice.segments.first(where: { $0.name == "__TEXT" }) else { return nil }
        var flags: UInt64 = 0
        if slice.fileType == .execute {
            flags |= CodeDirectory.ExecutableSegment.mainBinary
            if getTaskAllow { flags |= CodeDirectory.ExecutableSegment.allowUnsigned }
        }
        return CodeDirectory.ExecutableSegment(base: text.fileOffset, limit: text.fileSize, flags: flags)
    }
}

/// Small bridges between the code-signature model and CMS.
enum CMSSigning {
    static func algorithm(_ type: HashType) -> CMSDigestAlgorithm? {
        switch type {
        case .sha1: .sha1
        case .sha256: .sha256
        case .sha384: .sha384
        default: nil
        }
    }

    static func derLength(_ certificate: Certificate) throws -> Int {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes.count
    }
}
