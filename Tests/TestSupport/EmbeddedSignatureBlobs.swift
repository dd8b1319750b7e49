/// The slot-0 CodeDirectory and the CMS of one slice of a signed Mach-O file, found by walking the
/// fat table, the load commands and the SuperBlob index here, independently of ipawrap's `MachO`
/// and `CodeSignature` targets: how the CMS tests take Apple's signature out of a real build
/// (`../shared`) and out of the generated one at test time.
public enum EmbeddedSignatureBlobs {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// arm64's CPU type.
    public static let arm64: UInt32 = 0x0100_000C

    /// The slot-0 CodeDirectory blob (the CMS's detached content) and the CMS blob's payload (the
    /// `0xFADE0B01` blob without its 8-byte header, the signer's zero padding included) of the
    /// slice of `file` with `cpuType` (or of a thin file).
    public static func cms(in file: [UInt8], cpuType: UInt32 = arm64) throws -> (signature: [UInt8], codeDirectory: [UInt8]) {
        let slice = try self.slice(of: file, cpuType: cpuType)
        let superBlob = try signature(of: slice)
        var codeDirectory: [UInt8]?
        var signature: [UInt8]?
        for index in 0..<(try u32be(superBlob, 8)) {
            let slot = try u32be(superBlob, 12 + 8 * index)
            let offset = try u32be(superBlob, 16 + 8 * index)
            let magic = try u32be(superBlob, offset)
            let length = try u32be(superBlob, offset + 4)
            guard length >= 8, offset + length <= superBlob.count else { throw Failure(description: "a blob runs past the signature") }
            if slot == 0 { codeDirectory = Array(superBlob[offset..<(offset + length)]) }
            if slot == 0x10000, magic == 0xFADE_0B01 { signature = Array(superBlob[(offset + 8)..<(offset + length)]) }
        }
        guard let signature, let codeDirectory else { throw Failure(description: "the slice has no CodeDirectory or no CMS") }
        return (signature, codeDirectory)
    }

    static func slice(of file: [UInt8], cpuType: UInt32) throws -> ArraySlice<UInt8> {
        guard try u32be(file, 0) == 0xCAFE_BABE else { return file[...] }
        for index in 0..<(try u32be(file, 4)) {
            let entry = 8 + 20 * index
            guard try u32be(file, entry) == Int(cpuType) else { continue }
            let offset = try u32be(file, entry + 8)
            let size = try u32be(file, entry + 12)
            guard offset + size <= file.count else { throw Failure(description: "the slice runs past the file") }
            return file[offset..<(offset + size)]
        }
        throw Failure(description: "no slice of CPU type \(cpuType)")
    }

    /// The SuperBlob `LC_CODE_SIGNATURE` points at (its own length, without the reserved rest).
    static func signature(of slice: ArraySlice<UInt8>) throws -> [UInt8] {
        let bytes = Array(slice)
        let magic = try u32le(bytes, 0)
        guard magic == 0xFEED_FACF || magic == 0xFEED_FACE else { throw Failure(description: "not a little-endian Mach-O") }
        var offset = magic == 0xFEED_FACF ? 32 : 28
        for _ in 0..<(try u32le(bytes, 16)) {
            let command = try u32le(bytes, offset)
            let size = try u32le(bytes, offset + 4)
            if command == 0x1D {
                let start = try u32le(bytes, offset + 8)
                let length = try u32be(bytes, start + 4)
                guard start + length <= bytes.count else { throw Failure(description: "the signature runs past the slice") }
                return Array(bytes[start..<(start + length)])
            }
            guard size >= 8 else { throw Failure(description: "a load command is too small") }
            offset += size
        }
        throw Failure(description: "the slice has no LC_CODE_SIGNATURE")
    }

    static func u32be(_ bytes: [UInt8], _ at: Int) throws -> Int {
        guard at >= 0, at + 4 <= bytes.count else { throw Failure(description: "cut short at \(at)") }
        return bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
    }

    static func u32le(_ bytes: [UInt8], _ at: Int) throws -> Int {
        guard at >= 0, at + 4 <= bytes.count else { throw Failure(description: "cut short at \(at)") }
        return bytes[at..<(at + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
