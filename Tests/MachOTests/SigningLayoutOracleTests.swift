import FormatSupport
import Foundation
import TestSupport
import Testing

@testable import MachO

/// Second and third opinions on `SigningLayout`: Python's lief reads every output the way
/// llvm-objdump does in `SigningLayoutTests`, and zsign, which grows and adds signature space
/// too, lays out the same inputs.
@Suite struct SigningLayoutOracleTests {
    /// Inputs of every kind with the sizes they are signed with.
    static let cases: [(name: String, bytes: @Sendable () throws -> [UInt8], sizes: [Int])] = [
        ("xcode-executable-reused", { try Fixtures.bytes(FixtureTests.executablePath) }, [9000, 9000]),
        ("xcode-executable-grown", { try Fixtures.bytes(FixtureTests.executablePath) }, [40000, 90000]),
        ("xcode-dylib-grown", { try Fixtures.bytes(FixtureTests.dylibPath) }, [20000, 9000, 30000]),
        (
            "fat-reused-added-resized",
            {
                MachOBuilder.fat(
                    [
                        MachOBuilder.FatSlice(Signable.builder(.armv7, reserved: 12000)),
                        MachOBuilder.FatSlice(Signable.builder(.arm64, signed: false)),
                        MachOBuilder.FatSlice(Signable.builder(.ppc), alignment: 12),
                    ])  // lief 1.0 reads no 0xCAFEBABF file; llvm-objdump checks those (SigningLayoutTests)
            }, [10000, 7000, 30000]
        ),
        ("thin-ppc64-added", { Signable.builder(.ppc64, signed: false).build() }, [5000]),
        ("thin-armv7-dylib-resized", { Signable.builder(.armv7, dylib: true).build() }, [5000]),
    ]

    @Test(.enabled(if: PythonOracle.canRun("lief"), "needs the Python oracle with lief (Scripts/test makes it)"), arguments: 0..<cases.count)
    func liefReadsEveryOutput(_ index: Int) throws {
        let testCase = Self.cases[index]
        let copy = try SignedCopy(try testCase.bytes(), signatureSizes: testCase.sizes)
        let before = try LiefLayout.facts(of: copy.input)
        let after = try LiefLayout.facts(of: copy.output)
        expectSignedLayout(copy, before: before, after: after, oracle: "lief (\(testCase.name))")
        // The two readers agree on everything they both report.
        if let objdump = try ObjdumpLayout.facts(of: copy.output) {
            #expect(objdump.fat == after.fat, "\(testCase.name)")
            for (lief, llvm) in zip(after.slices, objdump.slices) {
                #expect(lief.segments == llvm.segments && lief.signature == llvm.signature, "\(testCase.name)")
                #expect(lief.commands.map(\.size) == llvm.commands.map(\.size), "\(testCase.name)")
            }
        }
    }

    // MARK: zsign

    /// zsign finds room the way this layout does where both can: in place when its signature
    /// fits; otherwise at the end of `__LINKEDIT` (adding `LC_CODE_SIGNATURE` after the load
    /// commands if needed) with the same `dataoff`, `datasize`, `__LINKEDIT` `filesize` and fat
    /// sizes for the same reservation, and every byte before the signature equal but one field.
    ///
    /// Where the two differ, by design:
    /// - `__LINKEDIT.vmsize`: zsign adds the growth to the old vmsize and rounds up to 4 KiB,
    ///   even on ARM; `codesign_allocate` (and this layout) rounds the new filesize up to the
    ///   segment alignment, 16 KiB on ARM, and never shrinks it. Both cover the filesize.
    /// - zsign always reserves `align4K((codeLimit / 4096 + 1) × 52) + 32 KiB` when it grows;
    ///   this layout reserves what the signer asks (here, zsign's own sizes, to compare).
    /// - zsign pads every fat slice, the last one too, to the next 16 KiB boundary strictly
    ///   after it (a whole 16 KiB when it ends on one) and sets every alignment to 2^14; this
    ///   layout aligns each slice to its own alignment and adds nothing after the last one.
    @Test(.enabled(if: ZsignOracle.unavailable == nil, Comment(rawValue: ZsignOracle.unavailable ?? "")))
    func zsignReusesTheSpaceOfXcodeBinaries() throws {
        for path in [FixtureTests.executablePath, FixtureTests.dylibPath] {
            let input = try Fixtures.bytes(path)
            let zsigned = try ZsignOracle.signAdHoc(input)
            let signed = try #require(zsigned.signed, "zsign failed on \(path): \(zsigned.output)")
            #expect(signed.count == input.count, "\(path)")
            let zsign = try #require(try ObjdumpLayout.facts(of: signed))
            let file = try MachOFile(bytes: input)
            // zsign's signatures are smaller than the old ones: ask for as much.
            let sizes = try MachOFile(bytes: signed).slices.map { slice in
                var source = InMemoryByteSource(signed)
                return try #require(try slice.readCodeSignature(from: &source)).blobs.reduce(12) { $0 + 8 + $1.length }
            }
            let copy = try SignedCopy(input, signatureSizes: sizes)
            #expect(copy.layout.slices.allSatisfy { $0.change == .reused }, "\(path)")
            let ours = try #require(try ObjdumpLayout.facts(of: copy.output))
            #expect(zsign == ours, "\(path)")
            for (slice, planned) in zip(file.slices, copy.layout.slices) {
                let start = Int(planned.offset)
                let end = start + Int(planned.codeLimit)
                #expect(signed[start..<end] == input[Int(slice.offset)..<(Int(slice.offset) + Int(planned.codeLimit))], "\(path)")
            }
        }
    }

    @Test(.enabled(if: ZsignOracle.unavailable == nil, Comment(rawValue: ZsignOracle.unavailable ?? "")))
    func zsignGrowsAndAddsTheSameWay() throws {
        // Signatures smaller than zsign's ad-hoc one (a single SHA-256 CodeDirectory): one hash
        // per 64 KiB page, no requirements, no CMS blob.
        func tiny(_ architecture: Signable.Architecture) -> MachOBuilder {
            var builder = Signable.builder(architecture)
            builder.codeSignature?.pageSizeLog2 = 16
            builder.codeSignature?.includeRequirements = false
            builder.codeSignature?.cms = .absent
            return builder
        }
        let inputs: [(String, [UInt8])] = [
            ("fat, small signatures", Signable.fat([tiny(.armv7), tiny(.arm64)])),
            ("thin, no signature", Signable.builder(.arm64, signed: false).build()),
            ("thin armv7 dylib, no signature", Signable.builder(.armv7, signed: false, dylib: true).build()),
        ]
        for (name, input) in inputs {
            let zsigned = try ZsignOracle.signAdHoc(input)
            let signed = try #require(zsigned.signed, "zsign failed on \(name): \(zsigned.output)")
            let zsign = try #require(try ObjdumpLayout.facts(of: signed), "\(name)")
            let sizes = zsign.slices.map { Int($0.signature?.dataSize ?? 0) }
            let copy = try SignedCopy(input, signatureSizes: sizes)
            let ours = try #require(try ObjdumpLayout.facts(of: copy.output), "\(name)")
            #expect(copy.layout.slices.allSatisfy { $0.change != .reused }, "\(name): zsign grew every slice")

            for (index, (theirs, mine)) in zip(zsign.slices, ours.slices).enumerated() {
                let what = "\(name), slice \(index)"
                #expect(theirs.commandCount == mine.commandCount && theirs.commandsSize == mine.commandsSize, "\(what)")
                #expect(theirs.commands.map(\.name) == mine.commands.map(\.name), "\(what)")
                #expect(theirs.signature == mine.signature, "\(what)")
                #expect(theirs.segments.filter { $0.name != "__LINKEDIT" } == mine.segments.filter { $0.name != "__LINKEDIT" }, "\(what)")
                let zsignLinkedit = try #require(theirs.linkedit)
                let linkedit = try #require(mine.linkedit)
                #expect(zsignLinkedit.fileOffset == linkedit.fileOffset && zsignLinkedit.fileSize == linkedit.fileSize, "\(what)")
                #expect(zsignLinkedit.vmAddress == linkedit.vmAddress, "\(what)")
                // The one difference inside the slice: vmsize, 4 KiB-rounded by zsign, 16 KiB here.
                #expect(zsignLinkedit.vmSize >= zsignLinkedit.fileSize && zsignLinkedit.vmSize % 0x1000 == 0, "\(what)")
                #expect(linkedit.vmSize >= linkedit.fileSize && linkedit.vmSize % 0x4000 == 0, "\(what)")

                let planned = copy.layout.slices[index]
                let zsignStart = Int(zsign.fat.isEmpty ? 0 : zsign.fat[index].offset)
                let vmSizeField = mine.offset(ofCommand: linkedit.command) + (mine.is64Bit ? 32 : 28)
                let differing = (0..<Int(planned.codeLimit)).filter {
                    signed[zsignStart + $0] != copy.output[Int(planned.offset) + $0]
                }
                #expect(differing.allSatisfy { (vmSizeField..<(vmSizeField + (mine.is64Bit ? 8 : 4))).contains($0) }, "\(what): bytes \(differing.prefix(8)) differ")
            }
            if !zsign.fat.isEmpty {
                #expect(zsign.fat.map(\.size) == ours.fat.map(\.size), "\(name)")
                // zsign adds a whole 16 KiB after a slice ending on a boundary; none does here.
                #expect(ours.fat.dropLast().allSatisfy { ($0.offset + $0.size) % 0x4000 != 0 }, "\(name)")
                #expect(zsign.fat.map(\.offset) == ours.fat.map(\.offset), "\(name)")
            }
        }
    }

    /// Without `LC_CODE_SIGNATURE` and with no byte between the load commands and `__text`,
    /// both refuse. (zsign asks for only 4 free bytes, so with 4 to 15 it writes its 16-byte
    /// command over the start of `__text`; this layout refuses those too.)
    @Test(.enabled(if: ZsignOracle.unavailable == nil, Comment(rawValue: ZsignOracle.unavailable ?? "")))
    func bothRefuseWhenThereIsNoRoom() throws {
        var builder = Signable.builder(.arm64, signed: false, headerPadding: 0)
        // An rpath whose length makes the load commands end on a 16-byte boundary.
        for length in 1...16 {
            builder.rpaths = ["@executable_path/" + String(repeating: "x", count: length)]
            if builder.buildWithLayout().layout.commandsEnd % 16 == 0 { break }
        }
        let (input, layout) = builder.buildWithLayout()
        try #require(layout.commandsEnd == layout.textOffset)
        let zsigned = try ZsignOracle.signAdHoc(input)
        #expect(zsigned.signed == nil, "zsign signed a binary without room: \(zsigned.output)")
        #expect(throws: MachOError.self) { try SigningLayout(file: try MachOFile(bytes: input), signatureSizes: [4000]) }
    }
}
