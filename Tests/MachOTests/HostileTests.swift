import CodeSignature
import FormatSupport
import Foundation
import TestSupport
import Testing

@testable import MachO

/// Malformed files give a `MachOError` with the expected code, never a trap.
@Suite struct HostileTests {
    @Test(arguments: HostileCases.all)
    func givesItsNamedError(_ hostile: HostileCase) throws {
        let bytes = hostile.bytes()
        do {
            try readEverything(bytes)
            Issue.record("\(hostile.fileName) was read without an error")
        } catch let error as MachOError {
            #expect(error.code == hostile.code, "\(error)")
            #expect(error.category == .invalidInput)
            #expect(!error.description.isEmpty && !error.description.contains("\n"))
        }
    }

    /// The committed copies under `Tests/Fixtures/macho/hostile` (run through the CLI by the
    /// reliability tests) are exactly the catalogue, and each still gives its named error.
    @Test(.disabled(if: ProcessInfo.processInfo.environment["IPAWRAP_WRITE_FIXTURES"] == "1", "being rewritten"))
    func committedFixturesMatchTheCatalogue() throws {
        let directory = Fixtures.url("macho/hostile")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".macho")
        }
        #expect(Set(names) == Set(HostileCases.all.map(\.fileName)), "regenerate with IPAWRAP_WRITE_FIXTURES=1")
        for name in names {
            let bytes = try Fixtures.bytes("macho/hostile/\(name)")
            let code = String(name.prefix { $0 != "-" })
            #expect(firstErrorCode(bytes) == code, "\(name)")
        }
    }

    /// `IPAWRAP_WRITE_FIXTURES=1 swift test --filter HostileTests/writeFixtures` rewrites them
    /// and the unsignable ones.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["IPAWRAP_WRITE_FIXTURES"] == "1"))
    func writeFixtures() throws {
        for (folder, cases) in [("macho/hostile", HostileCases.all), ("macho/unsignable", HostileCases.unsignable)] {
            let directory = Fixtures.url(folder)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for hostile in cases {
                try Data(hostile.bytes()).write(to: directory.appendingPathComponent(hostile.fileName))
            }
        }
        let signable = Fixtures.url("macho/signable")
        try FileManager.default.createDirectory(at: signable, withIntermediateDirectories: true)
        for seed in Signable.seeds {
            try Data(seed.bytes()).write(to: signable.appendingPathComponent(seed.name + ".macho"))
        }
    }

    /// The committed `Tests/Fixtures/macho/signable` seeds are what `Signable.seeds` writes, and
    /// each can be planned.
    @Test(.disabled(if: ProcessInfo.processInfo.environment["IPAWRAP_WRITE_FIXTURES"] == "1", "being rewritten"))
    func committedSignableSeedsMatch() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path("macho/signable"))
        #expect(Set(names) == Set(Signable.seeds.map { $0.name + ".macho" }), "regenerate with IPAWRAP_WRITE_FIXTURES=1")
        for seed in Signable.seeds {
            let bytes = seed.bytes()
            #expect(try Fixtures.bytes("macho/signable/\(seed.name).macho") == bytes, "\(seed.name)")
            let file = try MachOFile(bytes: bytes)
            _ = try SigningLayout(file: file, signatureSizes: Array(repeating: 4000, count: file.slices.count))
        }
    }

    /// Planning a signature for an unsignable file gives its named error, one line naming the
    /// slice; its headers read cleanly.
    @Test(arguments: HostileCases.unsignable)
    func unsignableGivesItsNamedError(_ hostile: HostileCase) throws {
        let file = try MachOFile(bytes: hostile.bytes())
        let sizes = Array(repeating: HostileCases.unsignableSignatureSize, count: file.slices.count)
        do {
            _ = try SigningLayout(file: file, signatureSizes: sizes)
            Issue.record("\(hostile.fileName) was planned without an error")
        } catch {
            #expect(error.code == hostile.code, "\(error)")
            #expect(error.category == .invalidInput)
            #expect(error.slice == file.slices.first?.architecture.name)
            #expect(error.description.hasPrefix("\(file.slices[0].architecture.name) slice: "))
            #expect(!error.description.contains("\n"))
        }
    }

    /// Inputs `fuzz-macho` once failed on (`Tests/Fixtures/macho/fuzz-regressions/CODE--what`):
    /// planning gives the named error; a plan for other sizes would have to re-read as planned.
    @Test func fuzzRegressionsAreRefusedByName() throws {
        let folder = "macho/fuzz-regressions"
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path(folder)).sorted()
        #expect(!names.isEmpty)
        for name in names {
            let file = try MachOFile(bytes: try Fixtures.bytes("\(folder)/\(name)"))
            for size in [1, 4104] {
                do {
                    _ = try SigningLayout(file: file, signatureSizes: Array(repeating: size, count: file.slices.count))
                    Issue.record("\(name) was planned with \(size) bytes")
                } catch {
                    #expect(error.code == String(name.prefix { $0 != "-" }), "\(name): \(error)")
                }
            }
        }
    }

    /// The committed `Tests/Fixtures/macho/unsignable` files are exactly that catalogue.
    @Test(.disabled(if: ProcessInfo.processInfo.environment["IPAWRAP_WRITE_FIXTURES"] == "1", "being rewritten"))
    func committedUnsignableFixturesMatchTheCatalogue() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path("macho/unsignable"))
        #expect(Set(names) == Set(HostileCases.unsignable.map(\.fileName)), "regenerate with IPAWRAP_WRITE_FIXTURES=1")
        for hostile in HostileCases.unsignable {
            #expect(try Fixtures.bytes("macho/unsignable/\(hostile.fileName)") == hostile.bytes(), "\(hostile.fileName)")
        }
    }

    /// Every strict prefix of a small valid file fails with a `MachOError`: nothing declared past
    /// the end is read or trusted.
    @Test(arguments: [false, true])
    func everyTruncationIsAnError(_ fat: Bool) throws {
        var bigEndian = HostileCases.base()
        bigEndian.byteOrder = .big
        bigEndian.is64Bit = false
        bigEndian.cpuType = 18
        let bytes =
            fat
            ? MachOBuilder.fat([HostileCases.slice(HostileCases.armv7()), HostileCases.slice()], fat64: true)
            : bigEndian.build()
        try readEverything(bytes)
        var unexpected: [String] = []
        for length in 0..<bytes.count {
            let code = firstErrorCode(Array(bytes.prefix(length)))
            if code == nil || code?.hasPrefix("MACHO_") != true {
                unexpected.append("\(length): \(code ?? "no error")")
            }
        }
        #expect(unexpected.isEmpty, "\(unexpected.prefix(5))")
    }

    /// Random corruption of a valid fat file: each variant either reads or fails with a
    /// `MachOError`. Deterministic, so a failure reproduces.
    @Test func randomCorruptionNeverTraps() throws {
        let original = MachOBuilder.fat(
            [HostileCases.slice(HostileCases.armv7()), HostileCases.slice(Samples.executable())], fat64: false)
        var random = SplitMix64(seed: 0x6D61_6368_6F21)
        let interesting: [UInt32] = [0, 1, 7, 8, 0xFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, UInt32(original.count)]
        var failures: [String] = []
        var errors = 0
        for iteration in 0..<4000 {
            var bytes = original
            for _ in 0..<(1 + random.next() % 3) {
                let at = Int(random.next() % UInt64(bytes.count - 4))
                if random.next() % 2 == 0 {
                    bytes[at] = UInt8(truncatingIfNeeded: random.next())
                } else {
                    let value = interesting[Int(random.next() % UInt64(interesting.count))]
                    MachOBuilder.patch(&bytes, uint32: value, at: at & ~3, random.next() % 2 == 0 ? .big : .little)
                }
            }
            if let code = firstErrorCode(bytes) {
                errors += 1
                if !code.hasPrefix("MACHO_") { failures.append("\(iteration): \(code)") }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        // Most corruptions land in code or padding; enough must hit structure to mean something.
        #expect(errors > 200)
    }

    @Test func fatHeaderChecksAreDirect() throws {
        // Parsing the table alone, as a caller holding only the first bytes would.
        let bytes = MachOBuilder.fat([HostileCases.slice(HostileCases.armv7()), HostileCases.slice()])
        let header = try FatHeader(bytes: Array(bytes.prefix(48)), fileSize: UInt64(bytes.count))
        #expect(header.entries.map(\.architecture.name) == ["armv7", "arm64"])
        #expect(throws: MachOError(.truncated, "the fat header's table needs 48 bytes but the file has 30")) {
            try FatHeader(bytes: Array(bytes.prefix(30)), fileSize: UInt64(bytes.count))
        }
        #expect(throws: MachOError.self) { try FatHeader(bytes: Array(bytes.prefix(48)), fileSize: 100) }
        #expect(throws: MachOError.self) { try FatHeader(bytes: [0xFE, 0xED, 0xFA, 0xCF], fileSize: 4) }
    }

    @Test func errorsNameTheSlice() throws {
        let hostile = try #require(HostileCases.all.first { $0.name == "fat-header-names-other-cpu" })
        do {
            try readEverything(hostile.bytes())
        } catch let error as MachOError {
            #expect(error.slice == "armv7")
            #expect(error.description.hasPrefix("armv7 slice: "))
        }
        var source = InMemoryByteSource(
            HostileCases.patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 1000, at: layout.codeSignatureOffset + 8, .big)
            })
        let slice = try #require(try MachOFile(reading: &source).slices.first)
        #expect(throws: MachOError.self) { try slice.readCodeSignature(from: &source) }
        do {
            _ = try slice.readCodeSignature(from: &source)
        } catch let error as MachOError {
            #expect(error.slice == "arm64")
            #expect(error.description.hasPrefix("arm64 slice: the SuperBlob lists 1000 blobs, more than its "))
        }
    }

    @Test func ioErrorsFromTheSourcePassThrough() throws {
        struct FailingSource: ByteSource {
            var size: UInt64 { 4096 }
            func read(offset: UInt64, count: Int) throws -> [UInt8] {
                throw FileReadError(path: "/x", reason: "disk on fire")
            }
        }
        var source = FailingSource()
        #expect(throws: FileReadError.self) { try MachOFile(reading: &source) }
    }
}
