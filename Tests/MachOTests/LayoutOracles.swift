import Foundation
import TestSupport

/// What an independent reader says about a Mach-O file's layout: the fat table, and per slice
/// the load commands (in order, with sizes), segments and `LC_CODE_SIGNATURE`. Filled from
/// `llvm-objdump --macho` or decoded from the JSON the lief script prints, so the same
/// assertions run on both.
struct LayoutFacts: Equatable, Decodable {
    struct FatEntry: Equatable, Decodable {
        var offset: UInt64
        var size: UInt64
        var alignment: UInt32
    }

    struct Command: Equatable, Decodable {
        /// As `LC_SEGMENT_64`.
        var name: String
        var size: Int
    }

    struct Segment: Equatable, Decodable {
        var name: String
        var vmAddress: UInt64
        var vmSize: UInt64
        var fileOffset: UInt64
        var fileSize: UInt64
        /// Index of its load command.
        var command: Int
    }

    struct Signature: Equatable, Decodable {
        var dataOffset: UInt64
        var dataSize: UInt64
        var command: Int
    }

    struct Slice: Equatable, Decodable {
        var is64Bit: Bool
        var commandCount: Int
        var commandsSize: Int
        var commands: [Command]
        var segments: [Segment]
        var signature: Signature?

        var headerSize: Int { is64Bit ? 32 : 28 }

        /// Offset of load command `index` in the slice.
        func offset(ofCommand index: Int) -> Int {
            headerSize + commands.prefix(index).reduce(0) { $0 + $1.size }
        }

        var linkedit: Segment? { segments.first { $0.name == "__LINKEDIT" } }
    }

    /// Empty for a thin file.
    var fat: [FatEntry] = []
    var slices: [Slice] = []
}

/// `llvm-objdump --macho --private-headers` and `--universal-headers`, read into `LayoutFacts`.
enum ObjdumpLayout {
    static func facts(of bytes: [UInt8]) throws -> LayoutFacts? {
        guard let headers = try LLVMOracle.objdump(["--macho", "--private-headers", "--arch=all"], bytes: bytes),
            headers.status == 0, !headers.stderr.contains("truncated or malformed")
        else { return nil }
        var facts = LayoutFacts()
        for part in split(headers.stdout) {
            guard let slice = slice(part) else { return nil }
            facts.slices.append(slice)
        }
        if bytes.starts(with: [0xCA, 0xFE, 0xBA]) {
            guard let universal = try LLVMOracle.objdump(["--macho", "--universal-headers"], bytes: bytes),
                universal.status == 0
            else { return nil }
            let offsets = OracleParsing.values(universal.stdout, key: "offset").compactMap { UInt64($0) }
            let sizes = OracleParsing.values(universal.stdout, key: "size").compactMap { UInt64($0) }
            let alignments = OracleParsing.values(universal.stdout, key: "align").compactMap {
                UInt32($0.dropFirst(2).prefix { $0.isNumber })
            }
            guard offsets.count == sizes.count, sizes.count == alignments.count else { return nil }
            facts.fat = zip(zip(offsets, sizes), alignments).map { .init(offset: $0.0, size: $0.1, alignment: $1) }
        }
        return facts
    }

    /// One piece per architecture: the lines after each `FILE:` or `FILE (architecture X):` line.
    private static func split(_ output: String) -> [String] {
        var parts: [String] = []
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" "), line.hasSuffix(":") {
                parts.append("")
            } else if !parts.isEmpty {
                parts[parts.count - 1] += line + "\n"
            }
        }
        return parts
    }

    private static func slice(_ text: String) -> LayoutFacts.Slice? {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let headerIndex = lines.firstIndex(where: { $0.hasPrefix("magic cputype") }),
            headerIndex + 1 < lines.count
        else { return nil }
        let header = lines[headerIndex + 1].split(separator: " ", omittingEmptySubsequences: true)
        guard header.count >= 7, let count = Int(header[5]), let size = Int(header[6]) else { return nil }
        var slice = LayoutFacts.Slice(
            is64Bit: header[0] == "MH_MAGIC_64" || header[0] == "MH_CIGAM_64", commandCount: count,
            commandsSize: size, commands: [], segments: [], signature: nil)
        for (index, command) in OracleParsing.commands(text).enumerated() {
            guard let cmdsize = command.fields["cmdsize"].flatMap({ Int($0) }) else { return nil }
            slice.commands.append(.init(name: command.name, size: cmdsize))
            let fields = command.fields
            if command.name == "LC_SEGMENT" || command.name == "LC_SEGMENT_64" {
                guard let name = fields["segname"], let vmAddress = fields["vmaddr"].flatMap(hexValue),
                    let vmSize = fields["vmsize"].flatMap(hexValue),
                    let fileOffset = fields["fileoff"].flatMap({ UInt64($0) }),
                    let fileSize = fields["filesize"].flatMap({ UInt64($0) })
                else { return nil }
                slice.segments.append(
                    .init(
                        name: name, vmAddress: vmAddress, vmSize: vmSize, fileOffset: fileOffset, fileSize: fileSize,
                        command: index))
            } else if command.name == "LC_CODE_SIGNATURE" {
                guard let offset = fields["dataoff"].flatMap({ UInt64($0) }),
                    let size = fields["datasize"].flatMap({ UInt64($0) })
                else { return nil }
                slice.signature = .init(dataOffset: offset, dataSize: size, command: index)
            }
        }
        return slice
    }

    private static func hexValue(_ text: String) -> UInt64? {
        text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : nil
    }
}

/// Python's lief (PyPI, pinned in Scripts/lib/setup.sh) as a second independent reader of
/// Mach-O layouts, run through `PythonOracle`.
enum LiefLayout {
    /// Reads the fat table with `struct` (lief does not expose the alignments) and every slice
    /// with lief; prints one JSON object.
    static let script = #"""
        import json, struct, sys
        import lief
        lief.logging.disable()
        path = sys.argv[1]
        data = open(path, "rb").read()
        fat = []
        magic = struct.unpack(">I", data[:4])[0]
        if magic in (0xCAFEBABE, 0xCAFEBABF):
            count = struct.unpack(">I", data[4:8])[0]
            for i in range(count):
                if magic == 0xCAFEBABE:
                    _, _, offset, size, align = struct.unpack(">iiIII", data[8 + 20 * i:28 + 20 * i])
                else:
                    _, _, offset, size, align, _ = struct.unpack(">iiQQII", data[8 + 32 * i:40 + 32 * i])
                fat.append({"offset": offset, "size": size, "alignment": align})
        parsed = lief.MachO.parse(path)
        if parsed is None:
            sys.exit("lief could not parse " + path)
        slices = []
        for binary in parsed:
            commands = list(binary.commands)
            index = {command.command_offset: i for i, command in enumerate(commands)}
            segments = [{"name": s.name, "vmAddress": s.virtual_address, "vmSize": s.virtual_size,
                         "fileOffset": s.file_offset, "fileSize": s.file_size, "command": index[s.command_offset]}
                        for s in binary.segments]
            signature = None
            if binary.has_code_signature:
                cs = binary.code_signature
                signature = {"dataOffset": cs.data_offset, "dataSize": cs.data_size, "command": index[cs.command_offset]}
            header = binary.header
            slices.append({
                "is64Bit": header.magic in (lief.MachO.MACHO_TYPES.MAGIC_64, lief.MachO.MACHO_TYPES.CIGAM_64),
                "commandCount": header.nb_cmds, "commandsSize": header.sizeof_cmds,
                "commands": [{"name": "LC_" + str(c.command).split(".")[-1], "size": c.size} for c in commands],
                "segments": segments, "signature": signature})
        print(json.dumps({"fat": fat, "slices": slices}))
        """#

    /// The facts lief reads from `bytes`.
    static func facts(of bytes: [UInt8]) throws -> LayoutFacts {
        let scratch = try ScratchDirectory("lief")
        let path = try scratch.write("input.macho", bytes)
        let output = try PythonOracle.run(script, arguments: [path], packages: ["lief"])
        return try JSONDecoder().decode(LayoutFacts.self, from: Data(output.utf8))
    }
}
