import FormatSupport

extension CodeDirectory {
    /// Builds a CodeDirectory as codesign does: the lowest version that holds the fields set
    /// (0x20100 at least), special slots up to the highest one set, and code slots from hashing
    /// the code (`hashCode(of:…)`) or given.
    public struct Builder: Sendable {
        public var identifier: String
        public var teamIdentifier: String?
        public var hashType: HashType
        public var flags: Flags = []
        public var platform: UInt8 = 0
        /// 12 (4 KiB pages) as codesign writes for iOS.
        public var pageSizeLog2: UInt8 = 12
        /// Bytes the code slots cover: the signature's offset in the slice.
        public var codeLimit: UInt64 = 0
        /// One hash per page of `[0, codeLimit)`.
        public var codeHashes: HashArray?
        public var executableSegment: ExecutableSegment?
        /// The hardened-runtime SDK version; setting it raises the version to 0x20500.
        public var runtime: UInt32?
        /// Writes the page hashes a second time as pre-encryption hashes (version 0x20500).
        public var includesPreEncryptHashes = false
        /// The lowest version to write.
        public var minimumVersion: UInt32 = Version.scatter
        private var specialSlotHashes: [Int: [UInt8]] = [:]

        public init(identifier: String, teamIdentifier: String?, hashType: HashType) {
            self.identifier = identifier
            self.teamIdentifier = teamIdentifier
            self.hashType = hashType
        }

        /// Stores the hash of `data` (Info.plist, the requirement set blob, CodeResources, an
        /// entitlements blob) in special slot −`slot`.
        public mutating func setSpecialSlot(_ slot: SpecialSlot, hashing data: [UInt8]) throws(CodeSignatureError) {
            guard let digest = hashType.digest(data) else { throw unsupported() }
            specialSlotHashes[slot.rawValue] = digest
        }

        /// Stores a hash already computed in special slot −`slot`.
        public mutating func setSpecialSlot(_ slot: Int, hash: [UInt8]) {
            specialSlotHashes[slot] = hash
        }

        /// Hashes `[offset, offset + codeLimit)` of `source` into the code slots.
        public mutating func hashCode<Source: ByteSource>(of source: inout Source, offset: UInt64 = 0) throws {
            codeHashes = try CodePageHasher.hashPages(
                of: &source, offset: offset, length: codeLimit, pageSizeLog2: pageSizeLog2, hashTypes: [hashType]
            ).first
        }

        /// The version `build()` writes.
        public var version: UInt32 {
            let needed: UInt32 =
                if runtime != nil || includesPreEncryptHashes {
                    Version.runtime
                } else if let executableSegment, executableSegment.limit > 0 {
                    Version.executableSegment
                } else if codeLimit > UInt64(UInt32.max) {
                    Version.codeLimit64
                } else if let teamIdentifier, !teamIdentifier.isEmpty {
                    Version.teamIdentifier
                } else {
                    Version.earliest
                }
            return max(needed, minimumVersion)
        }

        public func build() throws(CodeSignatureError) -> CodeDirectory {
            guard let digestSize = hashType.digestSize else { throw unsupported() }
            let codeHashes = codeHashes ?? HashArray(hashSize: digestSize, storage: [])
            guard codeHashes.hashSize == digestSize else {
                throw CodeDirectory.invalid("the code hashes are \(codeHashes.hashSize) bytes each, not \(digestSize) as \(hashType) needs")
            }
            let version = self.version
            let specialCount = specialSlotHashes.keys.max() ?? 0
            guard specialCount <= 64, specialSlotHashes.keys.allSatisfy({ $0 >= 1 }),
                specialSlotHashes.values.allSatisfy({ $0.count == digestSize })
            else {
                throw CodeDirectory.invalid("special slots must be numbered 1 to 64 and hold \(digestSize)-byte hashes")
            }
            let special = HashArray(
                hashSize: digestSize,
                hashes: (1...max(1, specialCount)).prefix(specialCount).map { specialSlotHashes[$0] ?? [] })
            let needs64 = codeLimit > UInt64(UInt32.max)
            guard !needs64 || version >= Version.codeLimit64 else {
                throw CodeDirectory.invalid("a code limit of \(codeLimit) bytes needs version 0x20300 or later")
            }
            let bytes = try CodeDirectory.encode(
                version: version, flags: flags, identifier: Array(identifier.utf8),
                teamIdentifier: teamIdentifier.flatMap { $0.isEmpty ? nil : Array($0.utf8) }, hashType: hashType,
                platform: platform, pageSizeLog2: pageSizeLog2, spare2: 0, spare3: 0,
                codeLimit32: needs64 ? UInt32.max : UInt32(codeLimit), codeLimit64: needs64 ? codeLimit : 0,
                scatter: nil, executableSegment: executableSegment, runtime: runtime,
                preEncryptHashes: includesPreEncryptHashes ? codeHashes : nil, linkage: nil, specialSlots: special,
                codeSlots: codeHashes)
            // Reading back checks what was built: page count against the code limit, every offset.
            return try CodeDirectory(bytes: bytes)
        }

        private func unsupported() -> CodeSignatureError {
            CodeDirectory.invalid("the hash type \(hashType) is not one this signer can compute")
        }
    }
}
