import FormatSupport
/// The five scanline filters (PNG §9.2). Each row of stored image data starts with one byte naming
/// the filter applied to it; filters work on bytes, `bpp` bytes apart (at least one).
public enum PNGFilterType: UInt8, Sendable, CaseIterable {
    case none = 0
    /// Difference from the byte `bpp` to the left.
    case sub = 1
    /// Difference from the byte above.
    case up = 2
    /// Difference from the floor of the mean of left and above.
    case average = 3
    /// Difference from whichever of left, above and upper-left is closest to left + above − upper-left.
    case paeth = 4
}

/// One Adam7 pass (or the whole image when not interlaced) as laid out in the inflated data.
struct PassGeometry: Equatable {
    /// Position of the pass's first pixel in the image, and the spacing of its pixels.
    let xStart: Int, yStart: Int, xStep: Int, yStep: Int
    /// Size of the reduced image this pass holds, in pixels (both at least 1).
    let width: Int, height: Int
    /// Bytes of pixel data per row, without the filter-type byte.
    let rowBytes: Int
    /// Offset of the pass's first filter-type byte in the inflated data.
    let offset: Int

    var byteCount: Int { height * (rowBytes + 1) }
}

/// Where every row of every pass lives in the inflated image data.
struct ScanlineLayout {
    let passes: [PassGeometry]
    /// Exact size the image data must inflate to.
    let totalBytes: Int
    /// Filter distance: bytes per complete pixel, at least one.
    let filterUnit: Int

    /// (xStart, yStart, xStep, yStep) of the seven Adam7 passes.
    static let adam7: [(Int, Int, Int, Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]

    /// Overflow-checked: IHDR allows 2³¹−1 × 2³¹−1 at 64 bits per pixel, which no `Int` holds;
    /// such sizes throw `PNG_DIMENSIONS` instead of trapping.
    init(width: Int, height: Int, bitsPerPixel: Int, interlaced: Bool) throws(PNGError) {
        let grid = interlaced ? Self.adam7 : [(0, 0, 1, 1)]
        var passes: [PassGeometry] = []
        var total = 0
        for (xStart, yStart, xStep, yStep) in grid {
            guard width > xStart, height > yStart else { continue }
            let passWidth = (width - xStart + xStep - 1) / xStep
            let passHeight = (height - yStart + yStep - 1) / yStep
            let (bits, overflowBits) = passWidth.multipliedReportingOverflow(by: bitsPerPixel)
            let rowBytes = bits / 8 + (bits % 8 == 0 ? 0 : 1)
            let (bytes, overflowBytes) = passHeight.multipliedReportingOverflow(by: rowBytes + 1)
            let (newTotal, overflowTotal) = total.addingReportingOverflow(bytes)
            guard !overflowBits, !overflowBytes, !overflowTotal else {
                throw PNGError(.dimensions, "a \(width)×\(height) image is too large to address")
            }
            passes.append(PassGeometry(xStart: xStart, yStart: yStart, xStep: xStep, yStep: yStep,
                                       width: passWidth, height: passHeight, rowBytes: rowBytes, offset: total))
            total = newTotal
        }
        self.passes = passes
        self.totalBytes = total
        self.filterUnit = max(1, bitsPerPixel / 8)
    }

    /// Undoes the filters of every row in place, leaving each row's filter byte untouched.
    /// `data` must hold `totalBytes` bytes.
    func unfilter(_ data: UnsafeMutablePointer<UInt8>, dataOffset: Int, clock: WorkClock = .unlimited) throws(PNGError) {
        var clock = clock
        let widest = passes.map(\.rowBytes).max() ?? 0
        let zeroRow = [UInt8](repeating: 0, count: widest)
        try zeroRow.withUnsafeBufferPointer { (zero: UnsafeBufferPointer<UInt8>) throws(PNGError) in
            // Every pass is at least one byte wide, so the zero row is never empty.
            guard let zeroBase = zero.baseAddress else { return }
            for pass in passes {
                var previous = zeroBase
                for row in 0..<pass.height {
                    if clock.isExpired(after: pass.rowBytes + 1) { throw PNGError(.timeLimit, clock.timeLimitMessage) }
                    let start = pass.offset + row * (pass.rowBytes + 1)
                    let current = data + start + 1
                    guard let filter = PNGFilterType(rawValue: data[start]) else {
                        throw PNGError(.filter, at: dataOffset, "row \(row) of the image data has filter type \(data[start]); only 0–4 exist")
                    }
                    Self.unfilterRow(current, previous: previous, count: pass.rowBytes, unit: filterUnit, filter: filter)
                    previous = UnsafePointer(current)
                }
            }
        }
    }

    @inline(__always)
    static func unfilterRow(_ row: UnsafeMutablePointer<UInt8>, previous: UnsafePointer<UInt8>, count: Int, unit: Int, filter: PNGFilterType) {
        let lead = min(unit, count)
        switch filter {
        case .none:
            break
        case .sub:
            var index = unit
            while index < count {
                row[index] &+= row[index - unit]
                index += 1
            }
        case .up:
            for index in 0..<count {
                row[index] &+= previous[index]
            }
        case .average:
            for index in 0..<lead {
                row[index] &+= previous[index] >> 1
            }
            var index = unit
            while index < count {
                row[index] &+= UInt8(truncatingIfNeeded: (Int(row[index - unit]) + Int(previous[index])) >> 1)
                index += 1
            }
        case .paeth:
            for index in 0..<lead {
                row[index] &+= previous[index]  // left and upper-left are zero, so above wins
            }
            var index = unit
            while index < count {
                row[index] &+= paethPredictor(row[index - unit], previous[index], previous[index - unit])
                index += 1
            }
        }
    }

    @inline(__always)
    static func paethPredictor(_ left: UInt8, _ above: UInt8, _ upperLeft: UInt8) -> UInt8 {
        let a = Int(left), b = Int(above), c = Int(upperLeft)
        let distanceA = abs(b - c)          // |p − a| where p = a + b − c
        let distanceB = abs(a - c)          // |p − b|
        let distanceC = abs(a + b - 2 * c)  // |p − c|
        if distanceA <= distanceB, distanceA <= distanceC { return left }
        if distanceB <= distanceC { return above }
        return upperLeft
    }

    /// Writes `row` filtered with `filter` into `output` (which has room for `count` bytes).
    @inline(__always)
    static func filterRow(_ row: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>, count: Int, unit: Int, filter: PNGFilterType, into output: UnsafeMutablePointer<UInt8>) {
        let lead = min(unit, count)
        switch filter {
        case .none:
            output.update(from: row, count: count)
        case .sub:
            output.update(from: row, count: lead)
            var index = unit
            while index < count {
                output[index] = row[index] &- row[index - unit]
                index += 1
            }
        case .up:
            for index in 0..<count {
                output[index] = row[index] &- previous[index]
            }
        case .average:
            for index in 0..<lead {
                output[index] = row[index] &- (previous[index] >> 1)
            }
            var index = unit
            while index < count {
                output[index] = row[index] &- UInt8(truncatingIfNeeded: (Int(row[index - unit]) + Int(previous[index])) >> 1)
                index += 1
            }
        case .paeth:
            for index in 0..<lead {
                output[index] = row[index] &- previous[index]
            }
            var index = unit
            while index < count {
                output[index] = row[index] &- paethPredictor(row[index - unit], previous[index], previous[index - unit])
                index += 1
            }
        }
    }
}
