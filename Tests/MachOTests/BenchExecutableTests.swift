import FormatSupport
import Foundation
import TestSupport
import Testing

@testable import MachO

/// The benchmark IPA's executable (`Scripts/make-bench-ipa`, `--small` here) is a real, ad-hoc
/// signed arm64 image that this layout can give a new signature.
@Suite struct BenchExecutableTests {
    static func executable(in scratch: ScratchDirectory) throws -> [UInt8] {
        let ipa = scratch.path("Small.ipa")
        let script = Fixtures.packageRoot.appendingPathComponent("Scripts/make-bench-ipa").path
        let made = try Command.run("python3", [script, ipa, "--small"])
        try #require(made.status == 0, "make-bench-ipa failed: \(made.stderr)")
        let unzipped = try Command.run("unzip", ["-q", ipa, "Payload/Bench.app/Bench", "-d", scratch.path])
        try #require(unzipped.status == 0, "unzip failed: \(unzipped.stderr)")
        return try Fixtures.bytesAt(scratch.path("Payload/Bench.app/Bench"))
    }

    @Test(.enabled(if: LLVMOracle.objdump != nil, "needs llvm-objdump that reads Mach-O"))
    func isSignedAdHocAndSignable() throws {
        let scratch = try ScratchDirectory("bench-executable")
        let bytes = try Self.executable(in: scratch)
        // 56 bytes more than the random body, rounded down to 16 so the signature is aligned.
        #expect(bytes.count == (56 + (200 << 10)) / 16 * 16)

        var source = InMemoryByteSource(bytes)
        let file = try MachOFile(reading: &source)
        let slice = try #require(file.slices.first)
        #expect(file.architectureNames == ["arm64"] && slice.fileType == .execute)
        #expect(slice.segments.map(\.name) == ["__PAGEZERO", "__TEXT", "__LINKEDIT"])
        #expect(slice.buildVersion?.minimumOS.description == "15.0" && slice.buildVersion?.sdk.description == "17.2")
        #expect(slice.linkedLibraries.map(\.path) == ["/usr/lib/libSystem.B.dylib"])
        let range = try #require(slice.codeSignatureRange)
        #expect(UInt64(range.offset) + UInt64(range.size) == UInt64(bytes.count) && range.offset % 16 == 0)

        let signature = try #require(try slice.readCodeSignature(from: &source))
        let directory = try #require(signature.codeDirectory)
        #expect(signature.isAdHoc && directory.identifier == "com.example.sample")
        #expect(directory.hashType == .sha256 && directory.pageSize == 4096)
        #expect(directory.codeLimit == UInt64(range.offset))
        #expect(directory.executableSegmentFlags == 1)
        // Every page hash, recomputed by Python's hashlib.
        let hashes = try Command.run(
            "python3",
            [
                "-c",
                "import hashlib, sys; d = open(sys.argv[1], 'rb').read()[:int(sys.argv[2])]; "
                    + "print('\\n'.join(hashlib.sha256(d[i:i + 4096]).hexdigest() for i in range(0, len(d), 4096)))",
                scratch.path("Payload/Bench.app/Bench"), "\(range.offset)",
            ])
        let expected = hashes.stdout.split(separator: "\n").map(String.init)
        #expect(expected.count == directory.codeSlotCount && expected.count == 50)
        let recorded = (0..<directory.codeSlotCount).map { index in
            (directory.hash(forCodeSlot: index) ?? []).map { String(format: "%02x", $0) }.joined()
        }
        #expect(recorded == expected)

        // The signature's space is reused for a signature as large, and grows for a larger one.
        let same = try SignedCopy(bytes, signatureSizes: [Int(range.size)])
        #expect(same.layout.slices.map(\.change) == [.reused])
        let larger = try SignedCopy(bytes, signatureSizes: [64 << 10])
        #expect(larger.layout.slices.map(\.change) == [.resized])
        try SigningLayoutTests.expectWellFormed(same)
        try SigningLayoutTests.expectWellFormed(larger)
    }
}
