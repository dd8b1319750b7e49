import FormatSupport
import Foundation
import MachO
import TestSupport
import Testing

/// A file planned with `SigningLayout` and written with a recognisable, non-zero signature of
/// `written[i]` bytes per slice (the full reservation unless given).
struct SignedCopy {
    let input: [UInt8]
    let file: MachOFile
    let layout: SigningLayout
    let signatures: [[UInt8]]
    let output: [UInt8]

    init(_ input: [UInt8], signatureSizes: [Int], written: [Int]? = nil) throws {
        self.input = input
        file = try MachOFile(bytes: input)
        layout = try SigningLayout(file: file, signatureSizes: signatureSizes)
        signatures = (written ?? signatureSizes).enumerated().map { slice, count in
            (0..<count).map { UInt8(truncatingIfNeeded: 0xA1 &+ slice &* 16 &+ $0 % 13) }
        }
        var source = InMemoryByteSource(input)
        var output: [UInt8] = []
        let signatures = signatures
        try layout.write(from: &source, signature: { signatures[$0] }, to: { output += $0 })
        self.output = output
    }
}

/// Realistic signable binaries from `MachOBuilder`: `__PAGEZERO` (executables), `__TEXT` with code
/// and C strings, `__DATA`, `__LINKEDIT` with symbols and, optionally, a signature.
enum Signable {
    enum Architecture: String, CaseIterable, Sendable {
        /// 64-bit little-endian, 16 KiB pages.
        case arm64
        /// 32-bit little-endian, 16 KiB pages.
        case armv7
        /// 32-bit big-endian, 4 KiB pages.
        case ppc
        /// 64-bit big-endian, 4 KiB pages.
        case ppc64

        var cpu: (type: Int32, subtype: Int32) {
            switch self {
            case .arm64: (0x0100_000C, 0)
            case .armv7: (12, 9)
            case .ppc: (18, 0)
            case .ppc64: (0x0100_0012, 0)
            }
        }

        var is64Bit: Bool { self == .arm64 || self == .ppc64 }
        var byteOrder: Endianness { self == .arm64 || self == .armv7 ? .little : .big }
        var pageSize: UInt64 { self == .arm64 || self == .armv7 ? 0x4000 : 0x1000 }
    }

    /// `signed`: with an `LC_CODE_SIGNATURE` (its blob as small as the builder makes it, plus
    /// `reserved` bytes); otherwise without one, `headerPadding` bytes of room after the commands.
    static func builder(
        _ architecture: Architecture, signed: Bool = true, headerPadding: Int = 64, reserved: Int? = nil,
        segmentAlignment: Int = 0x4000, dylib: Bool = false
    ) -> MachOBuilder {
        var builder = dylib ? MachOBuilder.dylib(installName: "@rpath/Kit.framework/Kit") : MachOBuilder()
        (builder.cpuType, builder.cpuSubtype) = architecture.cpu
        builder.is64Bit = architecture.is64Bit
        builder.byteOrder = architecture.byteOrder
        builder.segmentAlignment = segmentAlignment
        builder.headerPadding = headerPadding
        builder.code = (0..<700).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        builder.cStrings = ["Signable \(architecture.rawValue)", "https://example.com"]
        builder.data = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 1) }
        builder.rpaths = ["@executable_path/Frameworks"]
        builder.symbols = [.defined("_main"), .defined("_helper", external: false), .imported("_printf", ordinal: 1)]
        if signed {
            var signature = MachOBuilder.CodeSignature(identifier: "com.example.signable")
            signature.flags = 0x2
            signature.reservedSize = reserved
            builder.codeSignature = signature
        }
        return builder
    }

    static func fat(_ slices: [MachOBuilder], fat64: Bool = false, alignment: UInt32 = 14) -> [UInt8] {
        MachOBuilder.fat(slices.map { MachOBuilder.FatSlice($0, alignment: alignment) }, fat64: fat64)
    }

    /// Small files of every kind a signature can be planned for, tightly laid out (16-byte
    /// segment alignment): committed under `Tests/Fixtures/macho/signable/NAME.macho` as
    /// `fuzz-macho` seeds.
    static let seeds: [(name: String, bytes: @Sendable () -> [UInt8])] = [
        ("arm64-signed", { builder(.arm64, segmentAlignment: 16).build() }),
        ("arm64-unsigned-headerpad", { builder(.arm64, signed: false, headerPadding: 16, segmentAlignment: 16).build() }),
        ("armv7-signed-reserved", { builder(.armv7, reserved: 2048, segmentAlignment: 16).build() }),
        ("ppc-dylib-unsigned", { builder(.ppc, signed: false, segmentAlignment: 16, dylib: true).build() }),
        (
            // Links as Xcode 16's linker writes them when it needs a dylib_use_command.
            "arm64-dylib-use-commands",
            {
                var linking = builder(.arm64, segmentAlignment: 16)
                linking.dylibs += [
                    .init("@rpath/Weak.framework/Weak", useFlags: 0x01), .init("@rpath/Late.framework/Late", useFlags: 0x08),
                ]
                return linking.build()
            }
        ),
        (
            "fat-armv7-arm64",
            {
                fat(
                    [builder(.armv7, segmentAlignment: 16), builder(.arm64, signed: false, segmentAlignment: 16)],
                    alignment: 4)
            }
        ),
        (
            "fat64-arm64-ppc64",
            {
                fat(
                    [builder(.arm64, segmentAlignment: 16), builder(.ppc64, signed: false, segmentAlignment: 16)],
                    fat64: true, alignment: 5)
            }
        ),
    ]
}

/// Checks a signed copy against what an independent reader (`oracle`) says about its input and
/// its output: load commands consistent and only the signature's fields changed, segments in
/// order with `__LINKEDIT` last and ending where the signature ends, the fat table aligned and in
/// order, and every byte outside the edited fields and the signature as it was.
func expectSignedLayout(
    _ copy: SignedCopy, before: LayoutFacts, after: LayoutFacts, oracle: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let layout = copy.layout
    #expect(after.slices.count == layout.slices.count, "\(oracle)", sourceLocation: sourceLocation)
    #expect(before.slices.count == layout.slices.count, "\(oracle)", sourceLocation: sourceLocation)
    #expect(UInt64(copy.output.count) == layout.size, sourceLocation: sourceLocation)
    if copy.file.isFat {
        #expect(after.fat.count == layout.slices.count, "\(oracle)", sourceLocation: sourceLocation)
        var previousEnd = UInt64(layout.fatHeaderBytes.count)
        for (index, (entry, planned)) in zip(after.fat, layout.slices).enumerated() {
            #expect(entry.offset == planned.offset && entry.size == planned.size, "\(oracle) fat entry \(index)", sourceLocation: sourceLocation)
            #expect(entry.alignment == before.fat[index].alignment, "\(oracle) fat entry \(index)", sourceLocation: sourceLocation)
            #expect(entry.offset % (1 << UInt64(entry.alignment)) == 0, "\(oracle) fat entry \(index)", sourceLocation: sourceLocation)
            #expect(entry.offset >= previousEnd, "\(oracle) fat entry \(index) overlaps", sourceLocation: sourceLocation)
            #expect(copy.output[Int(previousEnd)..<Int(entry.offset)].allSatisfy { $0 == 0 }, "fat padding", sourceLocation: sourceLocation)
            previousEnd = entry.offset + entry.size
        }
        #expect(previousEnd == UInt64(copy.output.count), sourceLocation: sourceLocation)
    } else {
        #expect(after.fat.isEmpty && layout.fatHeaderBytes.isEmpty, sourceLocation: sourceLocation)
    }

    for (index, planned) in layout.slices.enumerated()
    where index < after.slices.count && index < before.slices.count {
        let old = before.slices[index]
        let new = after.slices[index]
        let what = "\(oracle), \(planned.architecture.name) slice"
        let added = old.signature == nil
        #expect(new.commandCount == new.commands.count, "\(what)", sourceLocation: sourceLocation)
        #expect(new.commandsSize == new.commands.reduce(0) { $0 + $1.size }, "\(what)", sourceLocation: sourceLocation)
        #expect(
            new.commands.map(\.name) == old.commands.map(\.name) + (added ? ["LC_CODE_SIGNATURE"] : []),
            "\(what)", sourceLocation: sourceLocation)
        #expect(new.commands.last?.size == (added ? 16 : old.commands.last?.size), "\(what)", sourceLocation: sourceLocation)
        #expect((planned.change == .added) == added, "\(what)", sourceLocation: sourceLocation)

        // Segments: unchanged but __LINKEDIT, in file order, __LINKEDIT last in file and memory.
        guard let linkedit = new.linkedit, let oldLinkedit = old.linkedit, let signature = new.signature else {
            Issue.record("\(what): no __LINKEDIT or no LC_CODE_SIGNATURE", sourceLocation: sourceLocation)
            continue
        }
        #expect(
            new.segments.filter { $0.name != "__LINKEDIT" } == old.segments.filter { $0.name != "__LINKEDIT" },
            "\(what)", sourceLocation: sourceLocation)
        let inFile = new.segments.filter { $0.fileSize > 0 }.sorted { $0.fileOffset < $1.fileOffset }
        for (first, second) in zip(inFile, inFile.dropFirst()) {
            #expect(first.fileOffset + first.fileSize <= second.fileOffset, "\(what): segments overlap", sourceLocation: sourceLocation)
        }
        #expect(inFile.last?.name == "__LINKEDIT", "\(what)", sourceLocation: sourceLocation)
        for other in new.segments where other.name != "__LINKEDIT" && other.vmSize > 0 {
            #expect(other.vmAddress + other.vmSize <= linkedit.vmAddress, "\(what)", sourceLocation: sourceLocation)
        }
        #expect(linkedit.fileOffset == oldLinkedit.fileOffset && linkedit.vmAddress == oldLinkedit.vmAddress, "\(what)", sourceLocation: sourceLocation)
        #expect(linkedit.fileOffset + linkedit.fileSize == planned.size, "\(what)", sourceLocation: sourceLocation)
        #expect(linkedit.vmSize >= linkedit.fileSize, "\(what)", sourceLocation: sourceLocation)
        // codesign_allocate's page sizes: 16 KiB for ARM and ARM64, 4 KiB for PowerPC here.
        let pageSize: UInt64 = planned.architecture.cpuType & 0xFF == 12 ? 0x4000 : 0x1000
        if planned.change == .reused {
            #expect(linkedit == oldLinkedit && signature == old.signature, "\(what)", sourceLocation: sourceLocation)
        } else {
            let grown = (linkedit.fileSize + pageSize - 1) / pageSize * pageSize
            #expect(linkedit.vmSize == max(oldLinkedit.vmSize, grown), "\(what)", sourceLocation: sourceLocation)
        }

        // LC_CODE_SIGNATURE: 16-byte aligned, inside __LINKEDIT, at its end.
        #expect(signature.dataOffset == planned.codeLimit, "\(what)", sourceLocation: sourceLocation)
        #expect(signature.dataSize == UInt64(planned.signatureSpace), "\(what)", sourceLocation: sourceLocation)
        #expect(signature.dataOffset % 16 == 0 && signature.dataOffset >= linkedit.fileOffset, "\(what)", sourceLocation: sourceLocation)
        #expect(signature.dataOffset + signature.dataSize == linkedit.fileOffset + linkedit.fileSize, "\(what)", sourceLocation: sourceLocation)

        // Bytes: the header differs only in the fields of the edit; the rest is the input, then
        // zeros, the signature and zeros.
        let inputSlice = copy.file.slices[index]
        let oldBytes = Array(copy.input[Int(inputSlice.offset)..<Int(inputSlice.offset + inputSlice.size)])
        let newBytes = Array(copy.output[Int(planned.offset)..<Int(planned.offset + planned.size)])
        var edited: [Range<Int>] = []
        let signatureCommand = new.offset(ofCommand: signature.command)
        edited.append(added ? signatureCommand..<(signatureCommand + 16) : (signatureCommand + 8)..<(signatureCommand + 16))
        if added { edited.append(16..<24) }
        let segmentCommand = new.offset(ofCommand: linkedit.command)
        if new.commands[linkedit.command].name == "LC_SEGMENT_64" {
            edited += [(segmentCommand + 32)..<(segmentCommand + 40), (segmentCommand + 48)..<(segmentCommand + 56)]
        } else {
            edited += [(segmentCommand + 28)..<(segmentCommand + 32), (segmentCommand + 36)..<(segmentCommand + 40)]
        }
        let headerEnd = new.headerSize + new.commandsSize
        let changed = (0..<headerEnd).filter { newBytes[$0] != oldBytes[$0] }
        #expect(changed.allSatisfy { offset in edited.contains { $0.contains(offset) } }, "\(what): header bytes \(changed.prefix(8)) changed", sourceLocation: sourceLocation)
        let contentEnd = Int(old.signature?.dataOffset ?? (oldLinkedit.fileOffset + oldLinkedit.fileSize))
        let dataOffset = Int(signature.dataOffset)
        #expect(newBytes[headerEnd..<contentEnd] == oldBytes[headerEnd..<contentEnd], "\(what): content changed", sourceLocation: sourceLocation)
        #expect(newBytes[contentEnd..<dataOffset].allSatisfy { $0 == 0 }, "\(what)", sourceLocation: sourceLocation)
        let blob = copy.signatures[index]
        #expect(Array(newBytes[dataOffset..<(dataOffset + blob.count)]) == blob, "\(what): signature", sourceLocation: sourceLocation)
        #expect(newBytes[(dataOffset + blob.count)...].allSatisfy { $0 == 0 }, "\(what): zero fill", sourceLocation: sourceLocation)
    }
}

/// A `ByteSource` of `size` bytes that are zero except for the given pieces, to test files of
/// several GiB without allocating them.
struct SparseSource: ByteSource {
    let size: UInt64
    let pieces: [(offset: UInt64, bytes: [UInt8])]

    func read(offset: UInt64, count: Int) throws -> [UInt8] {
        try checkRange(offset: offset, count: count)
        var result = [UInt8](repeating: 0, count: count)
        let end = offset + UInt64(count)
        for piece in pieces {
            let start = max(offset, piece.offset)
            let stop = min(end, piece.offset + UInt64(piece.bytes.count))
            guard start < stop else { continue }
            for position in start..<stop {
                result[Int(position - offset)] = piece.bytes[Int(position - piece.offset)]
            }
        }
        return result
    }
}
