// Fuzzes the Mach-O reader: `MachOFile(bytes:)`, then for each slice the code signature (and
// every CodeDirectory hash slot), the symbol table, the C strings and each section's contents.
// Checks that every refusal is a `MachOError` (the slice readers throw untyped), that a parsed
// file is recognised by `isMachO(prefix:)`, and that slices lie inside the file.
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
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
