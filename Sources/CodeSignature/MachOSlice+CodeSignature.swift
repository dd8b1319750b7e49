import FormatSupport
import MachO
import PropertyList

extension MachOSlice {
    /// Reads and parses the embedded signature, or returns nil when the slice has no
    /// `LC_CODE_SIGNATURE`. `source` must be the one this slice was parsed from.
    ///
    /// A malformed signature, or one whose CodeDirectory claims to cover bytes past the end of
    /// the slice, is a `MachOError` with code `MACHO_SIGNATURE` naming the slice.
    public func readCodeSignature<Source: ByteSource>(from source: inout Source) throws -> EmbeddedSignature? {
        guard let bytes = try readCodeSignatureBytes(from: &source) else { return nil }
        do throws(CodeSignatureError) {
            let signature = try EmbeddedSignature(bytes: bytes)
            for (slot, directory) in zip(signature.codeDirectorySlots, signature.codeDirectories) where directory.codeLimit > size {
                throw CodeSignatureError(
                    .codeDirectory,
                    "slot 0x\(hex(slot)): the CodeDirectory's code limit \(directory.codeLimit) lies past the end of the \(size)-byte slice")
            }
            return signature
        } catch {
            throw MachOError(.signature, error.message, slice: architecture.name)
        }
    }

    /// The CodeDirectory hash types Apple's signer gives this slice, by its deployment target: a
    /// SHA-1 primary plus SHA-256 for code that runs where the OS checks SHA-1 only (before iOS
    /// and tvOS 11, watchOS 4, macOS 10.12), SHA-256 alone after; both when the slice names no OS.
    package var appleCodeDirectoryHashTypes: [HashType] {
        guard let build = buildVersion else { return [.sha1, .sha256] }
        let first: MachOVersion
        switch build.platform {
        case .watchOS, .watchOSSimulator: first = MachOVersion(major: 4)
        case .macOS: first = MachOVersion(major: 10, minor: 12)
        default: first = MachOVersion(major: 11)
        }
        return build.minimumOS >= first ? [.sha256] : [.sha1, .sha256]
    }

    /// Where a signature's code slots must end: the offset of the signature in the slice, which
    /// codesign uses as the code limit.
    public var codeSigningLimit: UInt64? {
        codeSignatureRange.map { UInt64($0.offset) }
    }

    /// The executable segment (`__TEXT`) as codesign records it: the main-binary flag for
    /// executables, and the flags the signed `entitlements` imply (`get-task-allow` allows
    /// unsigned pages, …). Nil when the slice has no `__TEXT` segment.
    public func codeDirectoryExecutableSegment(entitlements: PropertyListDictionary = [:]) -> CodeDirectory.ExecutableSegment? {
        guard let text = segments.first(where: { $0.name == "__TEXT" }) else { return nil }
        let main = fileType == .execute ? CodeDirectory.ExecutableSegment.mainBinary : 0
        return CodeDirectory.ExecutableSegment(
            base: text.fileOffset, limit: text.fileSize,
            flags: main | CodeDirectory.ExecutableSegment.flags(forEntitlements: entitlements))
    }
}

extension MachOSlice {
    /// The largest embedded Info.plist read; real ones are a few KiB.
    public static let maximumEmbeddedInfoPlistSize = 1 << 20

    /// The property list in `__TEXT,__info_plist`, which a loose Mach-O (a dylib or tool outside
    /// a bundle) carries instead of an Info.plist file: special slot −1 hashes these bytes.
    /// Nil when the section does not exist.
    public func readEmbeddedInfoPlist<Source: ByteSource>(from source: inout Source) throws -> [UInt8]? {
        guard let section = section(segment: "__TEXT", name: "__info_plist") else { return nil }
        guard section.size <= UInt64(Self.maximumEmbeddedInfoPlistSize) else {
            throw MachOError(
                .section, "the embedded Info.plist is \(section.size) bytes, more than the \(Self.maximumEmbeddedInfoPlistSize)-byte limit",
                slice: architecture.name)
        }
        return try readContents(of: section, from: &source, maxBytes: Self.maximumEmbeddedInfoPlistSize)
    }
}

extension CodeDirectory.ExecutableSegment {
    public static let debugger: UInt64 = 0x20
    public static let jit: UInt64 = 0x40
    public static let skipLibraryValidation: UInt64 = 0x80
    public static let canLoadCDHash: UInt64 = 0x100
    public static let canExecuteCDHash: UInt64 = 0x200

    /// The `CS_EXECSEG_*` flags Apple's signer derives from entitlements set to true.
    public static func flags(forEntitlements entitlements: PropertyListDictionary) -> UInt64 {
        let implied: [(String, UInt64)] = [
            ("get-task-allow", allowUnsigned), ("com.apple.private.cs.debugger", debugger), ("dynamic-codesigning", jit),
            ("com.apple.private.skip-library-validation", skipLibraryValidation),
            ("com.apple.private.amfi.can-load-cdhash", canLoadCDHash),
            ("com.apple.private.amfi.can-execute-cdhash", canExecuteCDHash),
        ]
        return implied.reduce(0) { flags, pair in entitlements[pair.0]?.bool == true ? flags | pair.1 : flags }
    }
}
