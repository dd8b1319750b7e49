// Fuzzes the archive layer: `ZipArchive(path:)` and `IPAArchive(path:)` over an in-memory file,
// then reads every entry (so libzip's inflate and CRC paths run) and checks that:
// - lookups by path find each entry again;
// - random access (`byteSource`, our own pread for stored entries, a stream otherwise)
//   returns the same bytes as a whole read;
// - a deflated entry streamed (`EntryStream`'s zlib inflater, as for one above the memory
//   bound) gives the same bytes as the whole read (libdeflate), or the same error code (a
//   damaged stream may be a data error one way and a size mismatch the other: the decoders
//   disagree on some code tables);
// - `IPAArchive` accepts exactly the archives `ZipArchive` accepts that hold one app.
// Every refusal is an `ArchiveError` by the readers' typed throws; anything else is a crash.
import FormatSupport
import FuzzDriver
import Glibc
import IPAArchive
import Zip

/// Entries larger than this are not read whole (the read must refuse them up front).
let readLimit: UInt64 = 1 << 20

func fuzzOne(_ bytes: [UInt8]) {
    let fd = bytes.withUnsafeBufferPointer { ipawrap_fuzz_memory_file($0.baseAddress, $0.count) }
    precondition(fd >= 0, "memfd_create failed")
    defer { close(fd) }
    let path = "/proc/self/fd/\(fd)"

    let zip: ZipArchive
    do {
        zip = try ZipArchive(path: path)
    } catch {
        precondition(error.category == .invalidInput, "an in-memory file was unreadable: \(error)")
        return
    }
    for entry in zip.entries {
        guard let found = zip.entry(named: entry.path) else {
            preconditionFailure("entry '\(entry.path)' is not found by its own path")
        }
        precondition(found.index == entry.index, "entry '\(entry.path)' finds entry \(found.index)")
        switch entry.kind {
        case .symlink:
            precondition(zip.symlinkTarget(of: entry) != nil, "an accepted symlink has no target")
        case .directory, .file:
            precondition(zip.symlinkTarget(of: entry) == nil, "a non-symlink has a target")
        }
        guard entry.kind == .file else { continue }
        let content: [UInt8]
        do {
            content = try zip.read(entry, maximumSize: readLimit)
        } catch {
            if entry.uncompressedSize > readLimit {
                guard case .entryTooLarge = error else { preconditionFailure("oversized entry read gave \(error)") }
            } else {
                checkStreamed(path, entry, agreesWith: .failure(error))
            }
            continue
        }
        checkStreamed(path, entry, agreesWith: .success(content))
        precondition(UInt64(content.count) == entry.uncompressedSize, "read returned \(content.count) bytes, not the declared \(entry.uncompressedSize)")
        checkRandomAccess(zip, entry, content)
    }

    do {
        let ipa = try IPAArchive(path: path)
        precondition(ipa.appDirectory.hasPrefix("Payload/") && ipa.appDirectory.hasSuffix(".app/"), "odd app folder \(ipa.appDirectory)")
        precondition(ipa.zip.entries.count == zip.entries.count, "the IPA sees other entries")
        for entry in ipa.appEntries {
            precondition(ipa.appEntry(String(entry.path.dropFirst(ipa.appDirectory.count)))?.index == entry.index, "appEntry misses \(entry.path)")
        }
    } catch {
        switch error {
        case .noApp, .multipleApps, .symlinkEscape: break
        default: preconditionFailure("ZipArchive accepted what IPAArchive refuses with \(error.code): \(error)")
        }
    }
}

/// Streams a deflated entry that `read` took whole, through an archive opened with a memory bound
/// just below what a whole read holds, and compares the outcome with the whole read's.
func checkStreamed(_ path: String, _ entry: ArchiveEntry, agreesWith whole: Result<[UInt8], ArchiveError>) {
    guard entry.method == 8, entry.compressedSize + entry.uncompressedSize > 0 else { return }
    let limits = ArchiveLimits(maximumMemory: entry.compressedSize + entry.uncompressedSize - 1)
    let streaming: ZipArchive
    do {
        streaming = try ZipArchive(path: path, limits: limits)
    } catch {
        // Opening reads some entries (symlink targets) under the same bound.
        guard case .memoryLimit = error else { preconditionFailure("the archive did not open again with a lower memory bound: \(error)") }
        return
    }
    guard let again = streaming.entry(named: entry.path) else { preconditionFailure("the entry is not found again") }
    var bytes: [UInt8] = []
    let streamed: Result<[UInt8], ArchiveError>
    do {
        try streaming.stream(again, chunkSize: 4096) { bytes.append(contentsOf: $0) }
        streamed = .success(bytes)
    } catch {
        streamed = .failure(error)
    }
    switch (whole, streamed) {
    case (.success(let expected), .success(let got)):
        precondition(expected == got, "the streamed entry differs from the whole read")
    case (.failure(let expected), .failure(let got)):
        // libdeflate takes some code-length tables zlib refuses ("invalid bit length repeat")
        // and may then overrun the declared size: a size mismatch whole, a data error streamed.
        // Either way the entry is refused as damaged.
        let damaged: Set = ["ARCHIVE_DATA_ERROR", "ARCHIVE_SIZE_MISMATCH"]
        precondition(
            expected.code == got.code || (damaged.contains(expected.code) && damaged.contains(got.code)),
            "whole read: \(expected.code), streamed: \(got.code)")
    case (.success, .failure(let error)):
        preconditionFailure("an entry read whole fails streamed: \(error)")
    case (.failure(let error), .success):
        preconditionFailure("an entry that fails whole (\(error)) streams")
    }
}

/// Reads a few ranges through `byteSource` in increasing order and compares them with `content`.
func checkRandomAccess(_ zip: ZipArchive, _ entry: ArchiveEntry, _ content: [UInt8]) {
    let source = zip.byteSource(for: entry)
    precondition(source.size == UInt64(content.count), "byte source size differs")
    let count = content.count
    let ranges = [(0, min(count, 16)), (count / 3, min(count - count / 3, 100)), (max(0, count - 8), min(count, 8))]
    for (offset, length) in ranges {
        do {
            let got = try source.read(offset: UInt64(offset), count: length)
            precondition(got[...] == content[offset..<(offset + length)], "byte source range \(offset)+\(length) differs from the whole read")
        } catch {
            preconditionFailure("byte source failed on an entry that reads whole: \(error)")
        }
    }
    do {
        _ = try source.read(offset: UInt64(count), count: 1)
        preconditionFailure("byte source read past the end")
    } catch {
        precondition(error is any CodedError, "reading past the end threw \(type(of: error))")
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
