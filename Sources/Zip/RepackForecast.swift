/// Where a repack will write the input's runs of copied entries, told before one replacement's
/// content exists: a signer knows its main executable's entry size (stored: the layout of its
/// signature; deflated: its stream up to the signature, which is stored after it) long before
/// the signature itself, which waits for every resource of the bundle to be hashed.
/// The runs after the executable move by its new size; an `EarlyCopy` copies them there while
/// the resources are hashed (`segments(pendingSize:)`).
///
/// A forecast is made from the same edits the repack gets, with placeholders for what is not
/// known yet, and walks the same steps (`RepackPlan.steps`). If the final edits turn out to place
/// anything differently, the writer finds no segment where its runs start and copies them itself.
public struct RepackForecast: Sendable {
    /// Runs before the pending entry, where they go.
    let before: [EarlyCopy.Segment]
    /// Runs after it, their output offsets counted from the end of its data.
    let after: [EarlyCopy.Segment]
    /// Output offset of the pending entry's data.
    let pendingDataOffset: UInt64

    /// Other replacements (a profile, a re-signed dylib) are encoded to learn their size, as the
    /// writer encodes them in memory, up to this many bytes in all; the forecast stops at the
    /// first replacement past it.
    static let encodeLimit: UInt64 = 1 << 20

    /// The segments to copy once the pending entry's data is known to be `pendingSize` bytes; only
    /// those before it when the runs after it would lie past what an offset can say.
    public func segments(pendingSize: UInt64) -> [EarlyCopy.Segment] {
        let (end, overflow) = pendingDataOffset.addingReportingOverflow(pendingSize)
        guard !overflow else { return before }
        var segments = before
        for run in after {
            let (offset, overflow) = end.addingReportingOverflow(run.outputOffset)
            guard !overflow else { return before }
            segments.append(EarlyCopy.Segment(inputOffset: run.inputOffset, outputOffset: offset, length: run.length))
        }
        return segments
    }

    /// The forecast of a repack of `archive` with `edits`, in which `pending` is a file replaced in
    /// place whose bytes are a placeholder (its data's size is told later: a stored entry's
    /// length, or the size its `deflatedPrefix` gives), and `unknown` names replacements whose
    /// size cannot be told yet (the runs stop at the first of them). Nil when nothing after the
    /// pending entry could be placed.
    public static func make(
        _ archive: ZipArchive, edits: ArchiveEdits, options: RepackOptions, pending: String, unknown: Set<String>
    ) throws -> RepackForecast? {
        let plan = try RepackPlan(archive: archive, edits: edits)
        guard let pendingEntry = archive.entry(named: pending), let added = plan.replacedInPlace[pendingEntry.index],
            added.kind == .file
        else { return nil }
        let unixTime = options.timestamp.unixTime(in: archive)
        var before: [EarlyCopy.Segment] = []
        var after: [EarlyCopy.Segment] = []
        var pendingDataOffset: UInt64?
        // Output offset: from the output's start before the pending entry, from its data's end after.
        var position: UInt64 = 0
        var encoded: UInt64 = 0
        walk: for step in RepackPlan.steps(plan.inFileOrder(archive), replacedInPlace: plan.replacedInPlace) {
            switch step {
            case .run(let start, let end, _):
                let segment = EarlyCopy.Segment(inputOffset: start, outputOffset: position, length: end - start)
                if pendingDataOffset == nil { before.append(segment) } else { after.append(segment) }
                position += end - start
            case .replacement(let entry, let replacement):
                let header = NewEntryEncoder.headerSize(replacement, unixTime: unixTime)
                if entry.index == pendingEntry.index {
                    pendingDataOffset = position + header
                    position = 0
                    continue
                }
                guard !unknown.contains(replacement.pathKey), let size = try encodedSize(replacement, options: options, budget: &encoded)
                else { break walk }
                position += header + size
            }
        }
        guard let pendingDataOffset, !after.isEmpty else { return nil }
        return RepackForecast(before: before, after: after, pendingDataOffset: pendingDataOffset)
    }

    /// The size of a replacement's data as the writer encodes it, within what may be encoded to
    /// learn it; nil past that, or for a revision whose encoding reuses the entry it replaces.
    private static func encodedSize(_ replacement: RepackPlan.Added, options: RepackOptions, budget: inout UInt64) throws -> UInt64? {
        guard replacement.basis == nil else { return nil }
        let size = replacement.source.size
        if replacement.stored { return size }
        budget += size
        // A large one is deflated in blocks as it is written: its size is known only then.
        guard budget <= encodeLimit, !NewEntryEncoder.isLarge(replacement) else { return nil }
        return try NewEntryEncoder.encodeConcurrently([replacement], level: options.compressionLevel, destination: "")[0].compressedSize
    }
}
