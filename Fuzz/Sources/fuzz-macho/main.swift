// Fuzzes the Mach-O reader: `MachOFile(bytes:)`, then for each slice the code signature (and
// every CodeDirectory hash slot), the symbol table, the C strings and each section's contents.
// Checks that every refusal is a `MachOError` (the slice readers throw untyped), that a parsed
// file is recognised by `isMachO(prefix:)`, and that slices lie inside the file.
// Then plans room for a new signature in every slice (`SigningLayout`) with a few sizes: a
// refusal is a typed `MachOError`; a plan writes a file that re-parses with each slice where the
// plan puts it, `LC_CODE_SIGNATURE` at its code limit, pages equal to the written bytes, and
// that can be planned again with the same code limits.
import CodeSignature
import FormatSupport
import FuzzDriver
import MachO

func expectMachOError(_ error: any Error, _ what: String) {
    precondition(error is MachOError, "\(what) threw \(type(of: error)) instead of MachOError: \(error)")
}

func fuzzOne(_ bytes: [UInt8]) {
    let file: MachOFile
    do {
        file = try MachOFile(bytes: bytes)
    } catch {
        return
    }
    precondition(MachOFile.isMachO(prefix: bytes.prefix(8)), "a parsed file is not recognised as Mach-O by its prefix")
    precondition(file.size == UInt64(bytes.count), "file size \(file.size) for \(bytes.count) bytes")
    var source = InMemoryByteSource(bytes)
    for slice in file.slices {
        precondition(slice.offset <= file.size && slice.size <= file.size - slice.offset, "a slice lies outside the file")
        precondition(file.slice(named: slice.architecture.name) != nil, "slice \(slice.architecture.name) is not found by name")
        do {
            if let signature = try slice.readCodeSignature(from: &source) {
                _ = (signature.identifier, signature.teamIdentifier, signature.isAdHoc, signature.entitlementsXML?.count)
                for directory in signature.codeDirectories {
                    // Slot numbers come from the input: check the first ones and the last one.
                    for special in [Array(1...min(max(1, directory.specialSlotCount), 16)), [directory.specialSlotCount]].joined() {
                        let hash = directory.hash(forSpecialSlot: special)
                        precondition(hash == nil || hash?.count == directory.hashSize, "special slot hash of the wrong size")
                    }
                    for index in [Array(0..<min(directory.codeSlotCount, 16)), [directory.codeSlotCount - 1, directory.codeSlotCount]].joined() {
                        let hash = directory.hash(forCodeSlot: index)
                        precondition(hash == nil || hash?.count == directory.hashSize, "code slot hash of the wrong size")
                    }
                    _ = directory.pageSize
                }
            }
        } catch {
            expectMachOError(error, "readCodeSignature")
        }
        do {
            if let table = try slice.readSymbolTable(from: &source) {
                precondition(table.defined.count + table.imported.count <= table.declaredSymbolCount,
                             "more symbols than declared")
            }
        } catch {
            expectMachOError(error, "readSymbolTable")
        }
        do {
            _ = try slice.readCStrings(from: &source, maxBytes: 1 << 16)
        } catch {
            expectMachOError(error, "readCStrings")
        }
        for segment in slice.segments {
            for section in segment.sections {
                do {
                    let contents = try slice.readContents(of: section, from: &source, maxBytes: 4096)
                    precondition(contents.count <= 4096, "readContents ignored maxBytes")
                } catch {
                    expectMachOError(error, "readContents")
                }
            }
        }
    }
    checkSigningLayout(file, bytes)
}

func checkSigningLayout(_ file: MachOFile, _ bytes: [UInt8]) {
    let existing = file.slices.first?.codeSignatureRange.map { Int($0.size) } ?? 1
    for size in [1, 4104, existing] {
        let layout: SigningLayout
        do {
            layout = try SigningLayout(file: file, signatureSizes: Array(repeating: size, count: file.slices.count))
        } catch {
            // Typed: every refusal is a MachOError.
            continue
        }
        var output: [UInt8] = []
        var source = InMemoryByteSource(bytes)
        do {
            try layout.write(
                from: &source, signature: { [UInt8](repeating: 0xA5, count: min(Int(layout.slices[$0].signatureSpace), 40)) },
                to: { output += $0 })
        } catch {
            preconditionFailure("writing a planned layout failed: \(error)")
        }
        precondition(UInt64(output.count) == layout.size, "the output is \(output.count) bytes, the plan says \(layout.size)")
        let reread: MachOFile
        do {
            reread = try MachOFile(bytes: output)
        } catch {
            preconditionFailure("the planned file does not parse: \(error)")
        }
        precondition(reread.slices.count == layout.slices.count, "the planned file has other slices")
        for (slice, planned) in zip(reread.slices, layout.slices) {
            precondition(slice.offset == planned.offset && slice.size == planned.size, "a slice is not where the plan puts it")
            precondition(
                slice.codeSignatureRange?.offset == UInt32(planned.codeLimit)
                    && slice.codeSignatureRange?.size == planned.signatureSpace,
                "LC_CODE_SIGNATURE is not where the plan puts it")
            precondition((try? slice.signaturePlacement())?.codeLimit == planned.codeLimit, "the planned slice cannot be planned again")
            var pages: [UInt8] = []
            var pageSource = InMemoryByteSource(bytes)
            do {
                try planned.forEachPage(from: &pageSource) { pages += $0 }
            } catch {
                preconditionFailure("reading the pages failed: \(error)")
            }
            precondition(pages[...] == output[Int(planned.offset)..<Int(planned.offset + planned.codeLimit)], "the pages are not what is written")
        }
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
