import FormatSupport
import Foundation
import TestSupport
import Testing

@testable import MachO

/// Room for a new embedded signature in every slice: planned by `SigningLayout`, written by it,
/// and read back by llvm-objdump (lief in `SigningLayoutOracleTests`) and by our own reader.
@Suite struct SigningLayoutTests {
    /// Reads the input and output with llvm-objdump and checks the layout, then re-reads the
    /// output with our reader: same slices, and `LC_CODE_SIGNATURE` where the layout says.
    static func expectWellFormed(_ copy: SignedCopy, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try #require(try ObjdumpLayout.facts(of: copy.input), "llvm-objdump cannot read the input")
        let after = try #require(try ObjdumpLayout.facts(of: copy.output), "llvm-objdump cannot read the output")
        expectSignedLayout(copy, before: before, after: after, oracle: "llvm-objdump", sourceLocation: sourceLocation)

        let reread = try MachOFile(bytes: copy.output)
        #expect(reread.architectureNames == copy.file.architectureNames, sourceLocation: sourceLocation)
        #expect(reread.fatHeader?.kind == copy.file.fatHeader?.kind, sourceLocation: sourceLocation)
        for (slice, planned) in zip(reread.slices, copy.layout.slices) {
            #expect(slice.offset == planned.offset && slice.size == planned.size, sourceLocation: sourceLocation)
            #expect(
                slice.codeSignatureRange
                    == LinkeditDataRange(offset: UInt32(planned.codeLimit), size: planned.signatureSpace),
                sourceLocation: sourceLocation)
            #expect(slice.headerAndCommandBytes == planned.headerBytes, sourceLocation: sourceLocation)
        }
    }

    // MARK: Reservations

    @Test func reservationsAreEstimatesRoundedUpToSixteen() throws {
        #expect(try SigningLayout.reservation(forEstimate: 1) == 16)
        #expect(try SigningLayout.reservation(forEstimate: 16) == 16)
        #expect(try SigningLayout.reservation(forEstimate: 17) == 32)
        #expect(try SigningLayout.reservation(forEstimate: 9001) == 9008)
        let largest = SigningLayout.maximumSignatureSize
        #expect(try SigningLayout.reservation(forEstimate: largest) == UInt32(largest))
        for estimate in [0, -16, largest + 1, Int.max] {
            #expect(throws: MachOError.self) { try SigningLayout.reservation(forEstimate: estimate) }
            do {
                _ = try SigningLayout.reservation(forEstimate: estimate)
            } catch {
                #expect(error.code == "MACHO_SIGNATURE_SPACE")
            }
        }
    }

    /// The code limit (where the signature goes, and the end of what is hashed) does not depend
    /// on the size reserved, so a signer can count its pages before choosing the size.
    @Test func codeLimitIsKnownBeforeTheSize() throws {
        let files = [
            try XcodeShapedApp.bytes(XcodeShapedApp.appName),
            Signable.fat([Signable.builder(.armv7), Signable.builder(.arm64, signed: false)]),
        ]
        for bytes in files {
            let file = try MachOFile(bytes: bytes)
            let placements = try file.signaturePlacements()
            for size in [1, 4000, 10304, 10305, 200_000, 1 << 24] {
                let layout = try SigningLayout(file: file, signatureSizes: Array(repeating: size, count: file.slices.count))
                #expect(layout.slices.map(\.codeLimit) == placements.map(\.codeLimit), "\(size)")
            }
        }
    }

    // MARK: Xcode-built fixtures

    /// A fat executable and a 3-arch dylib as Xcode signs them keep their layout byte for byte
    /// when the new signature fits the old range; only the signature bytes change.
    @Test(
        .enabled(if: LLVMOracle.objdump != nil, "needs llvm-objdump that reads Mach-O"),
        arguments: [XcodeShapedApp.appName, XcodeShapedApp.dylibPath])
    func xcodeBinariesReuseTheirSignatureSpace(_ path: String) throws {
        try Self.expectReused(try XcodeShapedApp.bytes(path))
    }

    /// The same on isign's real Xcode 7.2 build.
    @Test(
        .enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote),
        .enabled(if: LLVMOracle.objdump != nil, "needs llvm-objdump that reads Mach-O"),
        arguments: [FixtureTests.executablePath, FixtureTests.dylibPath])
    func isignBinariesReuseTheirSignatureSpace(_ path: String) throws {
        try Self.expectReused(try IsignFixture.bytes(path))
    }

    static func expectReused(_ input: [UInt8]) throws {
        let file = try MachOFile(bytes: input)
        let spaces = file.slices.map { Int($0.codeSignatureRange?.size ?? 0) }
        let copy = try SignedCopy(input, signatureSizes: spaces, written: spaces.map { $0 - 3000 })
        #expect(copy.layout.slices.allSatisfy { $0.change == .reused })
        #expect(copy.layout.size == UInt64(input.count))
        #expect(copy.layout.slices.map(\.offset) == file.slices.map(\.offset))
        #expect(copy.layout.fatHeaderBytes == Array(input.prefix(copy.layout.fatHeaderBytes.count)))
        #expect(copy.layout.slices.map(\.codeLimit) == file.slices.map { UInt64($0.codeSignatureRange?.offset ?? 0) })
        try expectWellFormed(copy)
    }

    /// A larger signature grows `__LINKEDIT` and moves the next slices, each 16 KiB aligned: the
    /// generated executable, each slice's size its code limit plus the new signature.
    @Test(.enabled(if: LLVMOracle.objdump != nil, "needs llvm-objdump that reads Mach-O"))
    func xcodeShapedExecutableGrowsAndItsSlicesMove() throws {
        let input = try XcodeShapedApp.bytes(XcodeShapedApp.appName)
        let file = try MachOFile(bytes: input)
        let limits = file.slices.map { Int($0.codeSignatureRange?.offset ?? 0) }
        let copy = try SignedCopy(input, signatureSizes: [40_000, 40_000])
        #expect(copy.layout.slices.map(\.change) == [.resized, .resized])
        #expect(copy.layout.slices.map(\.size) == limits.map { UInt64($0 + 40_000) })
        let second = (Int(file.slices[0].offset) + limits[0] + 40_000 + 0x3FFF) / 0x4000 * 0x4000
        #expect(copy.layout.slices.map(\.offset) == [file.slices[0].offset, UInt64(second)])
        #expect(copy.layout.size == UInt64(second + limits[1] + 40_000))
        try Self.expectWellFormed(copy)
        let after = try #require(try ObjdumpLayout.facts(of: copy.output))
        #expect(after.slices.allSatisfy { ($0.linkedit?.vmSize ?? 1) % 0x4000 == 0 && ($0.linkedit?.vmSize ?? 0) >= ($0.linkedit?.fileSize ?? 1) })
    }

    /// The same on isign's real Xcode 7.2 build, whose figures are known.
    @Test(
        .enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote),
        .enabled(if: LLVMOracle.objdump != nil, "needs llvm-objdump that reads Mach-O"))
    func isignExecutableGrowsAndItsSlicesMove() throws {
        let input = try IsignFixture.bytes(FixtureTests.executablePath)
        let copy = try SignedCopy(input, signatureSizes: [40_000, 40_000])
        #expect(copy.layout.slices.map(\.change) == [.resized, .resized])
        // armv7: dataoff 71920 + 40000; arm64: dataoff 73440 + 40000.
        #expect(copy.layout.slices.map(\.size) == [111_920, 113_440])
        #expect(copy.layout.slices.map(\.offset) == [16384, 131_072])
        #expect(copy.layout.size == 131_072 + 113_440)
        try Self.expectWellFormed(copy)
        let after = try #require(try ObjdumpLayout.facts(of: copy.output))
        // __LINKEDIT (fileoff 49152) now holds 62768 and 64288 bytes: 4 pages of 16 KiB each.
        #expect(after.slices.map { $0.linkedit?.fileSize } == [62768, 64288])
        #expect(after.slices.map { $0.linkedit?.vmSize } == [0x10000, 0x10000])
    }

    // MARK: Generated binaries

    /// Every architecture and byte order: an existing signature range grows, a slice without one
    /// gains the command, and a range large enough is reused.
    @Test(
        .enabled(if: LLVMOracle.objdump != nil, "needs llvm-objdump that reads Mach-O"),
        arguments: Signable.Architecture.allCases, [SigningLayout.Slice.Change.reused, .resized, .added])
    func thinSlices(_ architecture: Signable.Architecture, _ change: SigningLayout.Slice.Change) throws {
        let builder = Signable.builder(architecture, signed: change != .added, reserved: change == .reused ? 9000 : nil)
        let input = builder.build()
        let copy = try SignedCopy(input, signatureSizes: [change == .reused ? 8000 : 5000], written: [4321])
        #expect(copy.layout.slices.map(\.change) == [change])
        let placement = try #require(try copy.file.signaturePlacements().first)
        #expect(placement.segmentPageSize == architecture.pageSize)
        #expect(placement.addsCommand == (change == .added))
        try Self.expectWellFormed(copy)
    }

    /// Fat files of both kinds, slices of each change, order and alignments kept.
    @Test(.enabled(if: LLVMOracle.objdump != nil, "needs llvm-objdump that reads Mach-O"), arguments: [false, true])
    func fatFiles(_ fat64: Bool) throws {
        let input = MachOBuilder.fat(
            [
                MachOBuilder.FatSlice(Signable.builder(.armv7, reserved: 12000), alignment: 14),
                MachOBuilder.FatSlice(Signable.builder(.arm64, signed: false), alignment: 14),
                MachOBuilder.FatSlice(Signable.builder(.ppc), alignment: 12),
            ], fat64: fat64)
        let copy = try SignedCopy(input, signatureSizes: [10000, 7000, 30000], written: [10000, 6000, 1])
        #expect(copy.layout.slices.map(\.change) == [.reused, .added, .resized])
        #expect(copy.layout.slices.map(\.architecture.name) == ["armv7", "arm64", "ppc"])
        #expect(copy.layout.slices.map { $0.offset % 4096 } == [0, 0, 0])
        #expect(copy.layout.fatHeaderBytes.count == 8 + 3 * (fat64 ? 32 : 20))
        try Self.expectWellFormed(copy)
    }

    /// A dylib (no `__PAGEZERO`, `LC_ID_DYLIB`) in three architectures.
    @Test(.enabled(if: LLVMOracle.objdump != nil, "needs llvm-objdump that reads Mach-O"))
    func fatDylib() throws {
        let input = Signable.fat([
            Signable.builder(.armv7, dylib: true), Signable.builder(.arm64, signed: false, dylib: true),
            Signable.builder(.ppc64, dylib: true),
        ])
        let copy = try SignedCopy(input, signatureSizes: [20000, 20000, 20000])
        #expect(copy.layout.slices.map(\.change) == [.resized, .added, .resized])
        try Self.expectWellFormed(copy)
    }

    /// The same input and sizes give the same bytes.
    @Test func layoutsAreDeterministic() throws {
        let input = Signable.fat([Signable.builder(.armv7), Signable.builder(.arm64, signed: false)], fat64: true)
        let first = try SignedCopy(input, signatureSizes: [9000, 17000])
        let second = try SignedCopy(input, signatureSizes: [9000, 17000])
        #expect(first.layout == second.layout)
        #expect(first.output == second.output)
    }

    // MARK: Streaming

    /// The pages of `[0, codeLimit)` are the output's bytes; `write` hands the same pages to its
    /// hasher before asking for each signature, and reads the input once, in chunks.
    @Test func pagesAreWhatIsWrittenAndTheInputIsReadOnce() throws {
        var big = Signable.builder(.arm64)
        big.code = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        let input = Signable.fat([Signable.builder(.armv7, signed: false), big])
        let copy = try SignedCopy(input, signatureSizes: [3000, 200_000])
        for slice in copy.layout.slices {
            var source = CountingSource(input)
            var pages: [[UInt8]] = []
            try slice.forEachPage(from: &source) { pages.append(Array($0)) }
            #expect(pages.count == Int((slice.codeLimit + 4095) / 4096))
            #expect(pages.dropLast().allSatisfy { $0.count == 4096 })
            #expect(Array(pages.joined()) == Array(copy.output[Int(slice.offset)..<Int(slice.offset + slice.codeLimit)]))
            #expect(source.largestRead <= SigningLayout.chunkSize)
            #expect(UInt64(source.bytesRead) <= slice.codeLimit)
        }

        var source = CountingSource(input)
        var hashed: [[UInt8]] = []
        var pageCounts: [Int] = []
        var output: [UInt8] = []
        try copy.layout.write(
            from: &source, pageSize: 16384,
            hashing: { slice, pages in
                #expect(slice == pageCounts.count)
                // Whole pages, at most a chunk; a short page only at the end of a slice's code.
                #expect(pages.count <= SigningLayout.chunkSize)
                if hashed.count > (pageCounts.last ?? 0), let last = hashed.last { #expect(last.count == 16384) }
                SigningLayout.forEachPage(of: Array(pages), pageSize: 16384) { hashed.append(Array($0)) }
            },
            signature: { slice in
                pageCounts.append(hashed.count)
                return copy.signatures[slice]
            },
            to: { output += $0 })
        #expect(output == copy.output)
        let expectedPages = copy.layout.slices.map { Int(($0.codeLimit + 16383) / 16384) }
        #expect(pageCounts == [expectedPages[0], expectedPages[0] + expectedPages[1]])
        #expect(source.largestRead <= SigningLayout.chunkSize)
        // Each input byte after the load commands and before the old signature is read, once.
        #expect(source.bytesRead == copy.layout.slices.reduce(0) { $0 + Int($1.contentEnd) - $1.headerBytes.count })
    }

    @Test func aSignatureLargerThanItsSpaceIsRefused() throws {
        let input = Signable.builder(.arm64).build()
        let layout = try SigningLayout(file: try MachOFile(bytes: input), signatureSizes: [1000])
        var source = InMemoryByteSource(input)
        do {
            try layout.write(
                from: &source, signature: { _ in [UInt8](repeating: 1, count: 1009) }, to: { _ in })
            Issue.record("a 1009-byte signature was written into 1008 bytes")
        } catch let error as MachOError {
            #expect(error.code == "MACHO_SIGNATURE_SPACE")
            #expect(error.slice == "arm64")
        }
        for pageSize in [0, 100, 3000, 1 << 21] {
            #expect(throws: MachOError.self) {
                try layout.write(from: &source, pageSize: pageSize, signature: { _ in [] }, to: { _ in })
            }
        }
        #expect(throws: MachOError.self) { try SigningLayout(file: try MachOFile(bytes: input), signatureSizes: [1, 2]) }
    }

    // MARK: What cannot be signed

    /// No `LC_CODE_SIGNATURE` and less than 16 bytes after the load commands: the error names the
    /// slice, in a thin file and in the second slice of a fat one.
    @Test(arguments: Signable.Architecture.allCases)
    func noRoomForTheCommand(_ architecture: Signable.Architecture) throws {
        let tight = Signable.builder(architecture, signed: false, headerPadding: 0)
        let other = Signable.builder(architecture == .arm64 ? .armv7 : .arm64)
        for bytes in [tight.build(), Signable.fat([other, tight])] {
            let file = try MachOFile(bytes: bytes)
            do {
                _ = try SigningLayout(file: file, signatureSizes: Array(repeating: 4000, count: file.slices.count))
                Issue.record("a slice without room was planned")
            } catch {
                #expect(error.code == "MACHO_NO_ROOM_FOR_SIGNATURE")
                #expect(error.slice == architecture.rawValue)
                #expect(error.description.hasPrefix("\(architecture.rawValue) slice: "))
                #expect(error.description.contains("-headerpad") && !error.description.contains("\n"))
            }
        }
        // 16 bytes of padding are exactly enough.
        let roomy = Signable.builder(architecture, signed: false, headerPadding: 16).build()
        let placement = try MachOFile(bytes: roomy).slices[0].signaturePlacement()
        #expect(placement.addsCommand)
    }

    /// Offsets and sizes past 32 bits, on sparse files of several GiB: a 0xCAFEBABE table cannot
    /// hold the grown slice (0xCAFEBABF can), a 64-bit slice cannot put its signature past 4 GiB,
    /// and a 32-bit slice cannot grow past its 32-bit fields.
    @Test func offsetsPastThirtyTwoBits() throws {
        func plan(_ source: SparseSource, size: Int) throws -> SigningLayout {
            var source = source
            let file = try MachOFile(reading: &source)
            return try SigningLayout(file: file, signatureSizes: Array(repeating: size, count: file.slices.count))
        }
        func code(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch let error as MachOError {
                return error.code
            } catch {
                return "not a MachOError: \(error)"
            }
        }

        // A 4 GiB − 1 MiB arm64 slice: its signature is moved to the end of a longer __LINKEDIT.
        let huge = Self.stretched(Signable.builder(.arm64), to: 0xFFF0_0000)
        for fat64 in [false, true] {
            let header = Self.fatHeader(slices: [(0x0100_000C, 0, 0x4000, 0xFFF0_0000)], fat64: fat64)
            let source = SparseSource(size: 0x4000 + 0xFFF0_0000, pieces: [(0, header), (0x4000, huge)])
            #expect(code { _ = try plan(source, size: 1 << 10) } == nil, "fits as it is")
            let grown = code { _ = try plan(source, size: 4 << 20) }
            #expect(grown == (fat64 ? nil : "MACHO_TOO_LARGE"), "fat64: \(fat64)")
        }
        let thin = SparseSource(size: 0xFFF0_0000, pieces: [(0, huge)])
        let layout = try plan(thin, size: 4 << 20)
        #expect(layout.size == 0xFFF0_0000 - 2048 + (4 << 20))

        // A 64-bit slice whose __LINKEDIT ends past 4 GiB with no signature yet.
        let past = Self.stretched(Signable.builder(.arm64, signed: false), to: 0x1_0000_0008)
        #expect(code { _ = try plan(SparseSource(size: 0x1_0000_0008, pieces: [(0, past)]), size: 16) } == "MACHO_TOO_LARGE")

        // A 32-bit slice 4 GiB − 8 KiB long growing by 64 KiB.
        let armv7 = Self.stretched(Signable.builder(.armv7), to: 0xFFFF_E000)
        #expect(code { _ = try plan(SparseSource(size: 0xFFFF_E000, pieces: [(0, armv7)]), size: 1024) } == nil)
        #expect(code { _ = try plan(SparseSource(size: 0xFFFF_E000, pieces: [(0, armv7)]), size: 64 << 10) } == "MACHO_TOO_LARGE")
    }

    /// The header and load commands of `builder`'s file, with `__LINKEDIT` grown so the slice is
    /// `size` bytes: a signature is moved to the new end with 2048 bytes of space.
    static func stretched(_ builder: MachOBuilder, to size: UInt64) -> [UInt8] {
        let (bytes, layout) = builder.buildWithLayout()
        var header = Array(bytes.prefix(layout.commandsEnd))
        let order = builder.byteOrder
        let segments = layout.commands.filter { $0.command == 0x1 || $0.command == 0x19 }
        guard let linkedit = segments.last?.offset else { return header }
        let linkeditSize = size - UInt64(layout.linkeditOffset)
        if builder.is64Bit {
            MachOBuilder.patch(&header, uint64: linkeditSize, at: linkedit + 48, order)
            MachOBuilder.patch(&header, uint64: (linkeditSize + 0x3FFF) & ~0x3FFF, at: linkedit + 32, order)
        } else {
            MachOBuilder.patch(&header, uint32: UInt32(linkeditSize), at: linkedit + 36, order)
            MachOBuilder.patch(&header, uint32: UInt32((linkeditSize + 0x3FFF) & ~0x3FFF), at: linkedit + 28, order)
        }
        if let signature = layout.offset(of: 0x1D) {
            MachOBuilder.patch(&header, uint32: UInt32(size - 2048), at: signature + 8, order)
            MachOBuilder.patch(&header, uint32: 2048, at: signature + 12, order)
        }
        return header
    }

    /// A fat header for `(cputype, cpusubtype, offset, size)` slices, alignment 2^14.
    static func fatHeader(slices: [(Int32, Int32, UInt64, UInt64)], fat64: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        func put(_ value: UInt64, _ size: Int) {
            for index in (0..<size).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(index * 8))) }
        }
        put(fat64 ? 0xCAFE_BABF : 0xCAFE_BABE, 4)
        put(UInt64(slices.count), 4)
        for (type, subtype, offset, size) in slices {
            put(UInt64(UInt32(bitPattern: type)), 4)
            put(UInt64(UInt32(bitPattern: subtype)), 4)
            put(offset, fat64 ? 8 : 4)
            put(size, fat64 ? 8 : 4)
            put(14, 4)
            if fat64 { put(0, 4) }
        }
        return bytes
    }
}
