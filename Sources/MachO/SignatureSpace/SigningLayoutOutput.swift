import FormatSupport

extension SigningLayout {
    /// Input bytes are read, and output bytes handed on, in chunks of this size at most (rounded
    /// down to whole pages), so a 60 MB binary is never held in memory.
    public static let chunkSize = 1 << 20

    /// Writes the output file to `sink` in order: the fat header and padding, then per slice the
    /// edited header and load commands, the input bytes after them up to the old code limit, zeros
    /// up to `codeLimit`, the bytes `signature(i)` returns for slice `i` (at most its
    /// `signatureSpace`), and zeros to the end of the space.
    ///
    /// `source` must be the one the file was parsed from; it is read once, front to back (a
    /// compressed zip entry is inflated once). `hashing`, when given, sees `[0, codeLimit)` of each
    /// slice in order, in chunks of whole `pageSize` pages (the slice's last chunk may end in a
    /// short page), before that slice's signature is asked for, so a signer can hash the code
    /// while it is written and build the signature from those hashes; chunks rather than pages,
    /// so the hasher can spread a chunk's pages over several cores.
    public func write<Source: ByteSource>(
        from source: inout Source,
        pageSize: Int = 4096,
        hashing chunkHandler: ((_ slice: Int, _ pages: ArraySlice<UInt8>) throws -> Void)? = nil,
        signature: (_ slice: Int) throws -> [UInt8],
        to sink: (ArraySlice<UInt8>) throws -> Void
    ) throws {
        let chunk = try Self.chunkSize(forPageSize: pageSize)
        var written = UInt64(fatHeaderBytes.count)
        if !fatHeaderBytes.isEmpty { try sink(fatHeaderBytes[...]) }
        for (index, slice) in slices.enumerated() {
            try Self.writeZeros(slice.offset - written, to: sink)
            try slice.forEachCodeChunk(chunkSize: chunk, from: &source) { bytes in
                try chunkHandler?(index, bytes[...])
                try sink(bytes[...])
            }
            let blob = try signature(index)
            guard blob.count <= Int(slice.signatureSpace) else {
                throw MachOError(
                    .signatureSpace,
                    "the \(blob.count)-byte signature is larger than the \(slice.signatureSpace) bytes reserved for it",
                    slice: slice.architecture.name)
            }
            try sink(blob[...])
            try Self.writeZeros(UInt64(slice.signatureSpace) - UInt64(blob.count), to: sink)
            written = slice.offset + slice.size
        }
    }

    /// The chunk size for `pageSize`-byte pages: whole pages, at most `chunkSize` unless a page is
    /// larger. Page sizes are powers of two from 512 bytes to 1 MiB (CodeDirectories use 4 KiB).
    static func chunkSize(forPageSize pageSize: Int) throws(MachOError) -> Int {
        guard pageSize >= 512, pageSize <= 1 << 20, pageSize & (pageSize - 1) == 0 else {
            throw MachOError(.signatureSpace, "a page size of \(pageSize) bytes is not a power of two from 512 to 1 MiB")
        }
        return max(pageSize, chunkSize / pageSize * pageSize)
    }

    static func forEachPage(
        of bytes: [UInt8], pageSize: Int, _ body: (ArraySlice<UInt8>) throws -> Void
    ) rethrows {
        var start = 0
        while start < bytes.count {
            let end = min(start + pageSize, bytes.count)
            try body(bytes[start..<end])
            start = end
        }
    }

    private static let zeros = [UInt8](repeating: 0, count: 1 << 16)

    private static func writeZeros(_ count: UInt64, to sink: (ArraySlice<UInt8>) throws -> Void) throws {
        var left = count
        while left > 0 {
            let part = Int(min(left, UInt64(zeros.count)))
            try sink(zeros[0..<part])
            left -= UInt64(part)
        }
    }
}

extension SigningLayout.Slice {
    /// Calls `body` with each `pageSize` page of `[0, codeLimit)` of the edited slice, in order
    /// (the last one may be short): the pages its CodeDirectory hashes, page 0 holding the edited
    /// header. Reads the input from `source` (the one the file was parsed from) front to back.
    public func forEachPage<Source: ByteSource>(
        pageSize: Int = 4096, from source: inout Source, _ body: (ArraySlice<UInt8>) throws -> Void
    ) throws {
        let chunk = try SigningLayout.chunkSize(forPageSize: pageSize)
        try forEachCodeChunk(chunkSize: chunk, from: &source) { bytes in
            try SigningLayout.forEachPage(of: bytes, pageSize: pageSize, body)
        }
    }

    /// `[0, codeLimit)` of the edited slice in consecutive chunks of `chunkSize` bytes (the last
    /// may be shorter).
    func forEachCodeChunk<Source: ByteSource>(
        chunkSize: Int, from source: inout Source, _ body: ([UInt8]) throws -> Void
    ) throws {
        var position: UInt64 = 0
        while position < codeLimit {
            let count = Int(min(UInt64(chunkSize), codeLimit - position))
            try body(try codeBytes(at: position, count: count, from: &source))
            position += UInt64(count)
        }
    }

    /// Bytes `[start, start + count)` of the edited slice, within `[0, codeLimit)`: the edited
    /// header, then the input's bytes, then the zeros that align the signature.
    private func codeBytes<Source: ByteSource>(at start: UInt64, count: Int, from source: inout Source) throws
        -> [UInt8]
    {
        let end = start + UInt64(count)
        let headerEnd = UInt64(headerBytes.count)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        if start < headerEnd {
            bytes += headerBytes[Int(start)..<Int(min(end, headerEnd))]
        }
        let copyStart = max(start, headerEnd)
        let copyEnd = min(end, contentEnd)
        if copyStart < copyEnd {
            do {
                bytes += try readChecked(&source, offset: inputOffset + copyStart, count: Int(copyEnd - copyStart))
            } catch let error as MachOError {
                throw error.inSlice(architecture.name)
            }
        }
        bytes += repeatElement(0, count: count - bytes.count)
        return bytes
    }
}
