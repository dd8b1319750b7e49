import FormatSupport
import Foundation
import TestSupport
import Testing

@testable import MachO

/// A second opinion on `SigningLayout`: Python's lief reads every output the way llvm-objdump
/// does in `SigningLayoutTests`.
@Suite struct SigningLayoutOracleTests {
    /// Inputs of every kind with the sizes they are signed with.
    static let cases: [(name: String, bytes: @Sendable () throws -> [UInt8], sizes: [Int])] = [
        ("xcode-executable-reused", { try XcodeShapedApp.bytes(XcodeShapedApp.appName) }, [9000, 9000]),
        ("xcode-executable-grown", { try XcodeShapedApp.bytes(XcodeShapedApp.appName) }, [40000, 90000]),
        ("xcode-dylib-grown", { try XcodeShapedApp.bytes(XcodeShapedApp.dylibPath) }, [30000, 9000, 30000]),
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
}
