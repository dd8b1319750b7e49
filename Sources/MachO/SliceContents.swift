import FormatSupport

/// The C strings of a section such as `__TEXT,__cstring`.
public struct CStringSection: Sendable, Equatable {
    /// Non-empty strings in section order, decoded as UTF-8 (invalid bytes replaced).
    public let strings: [String]
    /// The section lies in the FairPlay-encrypted range, so its bytes were not read and
    /// `strings` is empty.
    public let isEncrypted: Bool
    /// The byte cap stopped reading before the end of the section.
    public let isTruncated: Bool
}

extension MachOSlice {
    /// The largest code signature read; real ones are at most a few MiB.
    public static let maximumCodeSignatureSize = 128 << 20

    /// Reads the bytes `LC_CODE_SIGNATURE` points to (the embedded signature SuperBlob and the
    /// signer's padding), or returns nil when the slice has none. The `CodeSignature` module
    /// parses them (`readCodeSignature(from:)`). `source` must be the one this slice was parsed from.
    public func readCodeSignatureBytes<Source: ByteSource>(from source: inout Source) throws -> [UInt8]? {
        guard let range = codeSignatureRange else { return nil }
        do {
            guard Int(range.size) <= Self.maximumCodeSignatureSize else {
                throw MachOError(
                    .signature,
                    "the code signature is \(range.size) bytes, more than the \(Self.maximumCodeSignatureSize)-byte limit"
                )
            }
            try checkInSlice(
                offset: UInt64(range.offset), size: UInt64(range.size), .signature, "the code signature bytes")
            return try readChecked(&source, offset: offset + UInt64(range.offset), count: Int(range.size))
        } catch let error as MachOError {
            throw error.inSlice(architecture.name)
        }
    }

    /// Reads the symbol and string tables, or returns nil when the slice has no `LC_SYMTAB`.
    /// `source` must be the one this slice was parsed from.
    public func readSymbolTable<Source: ByteSource>(
        from source: inout Source, limits: SymbolTable.Limits = SymbolTable.Limits()
    ) throws -> SymbolTable? {
        guard let location = symbolTableLocation else { return nil }
        do {
            let entrySize: UInt64 = is64Bit ? 16 : 12
            let declaredCount = Int(location.symbolCount)
            try checkInSlice(
                offset: UInt64(location.symbolOffset), size: UInt64(location.symbolCount) * entrySize, .symbolTable,
                "the \(declaredCount) symbol entries")
            try checkInSlice(
                offset: UInt64(location.stringOffset), size: UInt64(location.stringSize), .symbolTable,
                "the string-table bytes")
            let count = min(declaredCount, max(0, limits.maximumSymbols))
            let entries = try readChecked(
                &source, offset: offset + UInt64(location.symbolOffset), count: count * Int(entrySize))
            let stringCount = min(Int(location.stringSize), max(0, limits.maximumStringTableBytes))
            let strings = try readChecked(&source, offset: offset + UInt64(location.stringOffset), count: stringCount)
            return try SymbolTable(
                entries: entries, count: count, declaredCount: declaredCount, is64Bit: is64Bit, byteOrder: byteOrder,
                strings: strings, declaredStringSize: Int(location.stringSize), libraries: linkedLibraries,
                twoLevelNamespace: header.flags.contains(.twoLevelNamespace), clock: limits.clock)
        } catch let error as MachOError {
            throw error.inSlice(architecture.name)
        }
    }

    /// Reads up to `maxBytes` of a section's contents. Zero-fill sections give no bytes.
    public func readContents<Source: ByteSource>(
        of section: MachOSection, from source: inout Source, maxBytes: Int
    ) throws -> [UInt8] {
        guard !section.isZeroFill else { return [] }
        do {
            try checkInSlice(
                offset: UInt64(section.offset), size: section.size, .section,
                "the bytes of section \(section.segmentName),\(section.name)")
            let count = Int(min(section.size, UInt64(max(0, maxBytes))))
            return try readChecked(&source, offset: offset + UInt64(section.offset), count: count)
        } catch let error as MachOError {
            throw error.inSlice(architecture.name)
        }
    }

    /// The NUL-terminated strings of `segment,section` (by default `__TEXT,__cstring`), reading at
    /// most `maxBytes`; nil when the section does not exist. When the section lies in the
    /// encrypted range nothing is read and the result says so.
    public func readCStrings<Source: ByteSource>(
        segment: String = "__TEXT", section name: String = "__cstring", from source: inout Source,
        maxBytes: Int = 16 << 20
    ) throws -> CStringSection? {
        guard let section = section(segment: segment, name: name) else { return nil }
        if let encryption, encryption.isEncrypted, !section.isZeroFill {
            let start = UInt64(encryption.offset)
            let end = start + UInt64(encryption.size)
            let sectionStart = UInt64(section.offset)
            let (sectionEnd, overflow) = sectionStart.addingReportingOverflow(section.size)
            if overflow || (sectionStart < end && start < sectionEnd) {
                return CStringSection(strings: [], isEncrypted: true, isTruncated: false)
            }
        }
        let bytes = try readContents(of: section, from: &source, maxBytes: maxBytes)
        let truncated = UInt64(bytes.count) < section.size && !section.isZeroFill
        var strings: [String] = []
        var pieces = bytes.split(separator: 0, omittingEmptySubsequences: true)
        // A string cut by the cap is incomplete; drop it rather than report half a version number.
        if truncated, bytes.last != 0, !pieces.isEmpty { pieces.removeLast() }
        strings.reserveCapacity(pieces.count)
        for piece in pieces { strings.append(String(decoding: piece, as: UTF8.self)) }
        return CStringSection(strings: strings, isEncrypted: false, isTruncated: truncated)
    }

    private func checkInSlice(offset start: UInt64, size count: UInt64, _ reason: MachOError.Reason, _ what: String)
        throws(MachOError)
    {
        guard start <= size, count <= size - start else {
            throw MachOError(
                reason, "\(what) (offset \(start), size \(count)) lie outside the \(size)-byte slice")
        }
    }
}
