// Finite State Entropy (tANS) decoding as LZFSE uses it: decoder tables built from normalized
// frequencies, and a bit stream read backwards from the end of a payload.
//
// Table indices are states masked to the table size (a power of two), so no state read from the
// input can index outside a table; a valid stream never needs the mask.

/// One state of a literal decoder table: bits to read, the symbol, and the base of the next state.
struct LiteralDecoderEntry {
    var bits: UInt8 = 0
    var symbol: UInt8 = 0
    var delta: Int16 = 0
}

/// One state of an L, M or D decoder table. Each symbol stands for a base value plus extra bits read
/// together with the state bits.
struct ValueDecoderEntry {
    /// State bits plus extra value bits.
    var totalBits: UInt8 = 0
    /// Extra value bits (the low part of what is read).
    var valueBits: UInt8 = 0
    var delta: Int16 = 0
    var valueBase: Int32 = 0
}

enum FiniteStateEntropy {
    /// Shift that brings `frequency` into `[stateCount, 2 * stateCount)`; `frequency` is in
    /// `1...stateCount`, which header validation guarantees.
    @inline(__always)
    static func shift(frequency: Int, stateCount: Int) -> Int {
        frequency.leadingZeroBitCount - stateCount.leadingZeroBitCount
    }

    /// Spreads the states of a table over the symbols of `frequencies`, as both table kinds do:
    /// calls `body` for each state in order with its symbol, the state bits it reads and the base
    /// of the next state.
    @inline(__always)
    static func spreadStates(
        frequencies: ArraySlice<UInt16>, stateCount: Int,
        _ body: (_ position: Int, _ symbol: Int, _ bits: Int, _ delta: Int16) -> Void
    ) {
        var position = 0
        for (symbol, frequencyValue) in frequencies.enumerated() {
            let frequency = Int(frequencyValue)
            if frequency == 0 { continue }
            let k = shift(frequency: frequency, stateCount: stateCount)
            let j0 = ((2 * stateCount) >> k) - frequency
            for j in 0..<frequency where position < stateCount {
                if j < j0 {
                    body(position, symbol, k, Int16(truncatingIfNeeded: ((frequency + j) << k) - stateCount))
                } else {
                    body(position, symbol, k - 1, Int16(truncatingIfNeeded: (j - j0) << (k - 1)))
                }
                position += 1
            }
        }
    }

    /// Fills `table` (of `stateCount` entries) for the literal alphabet.
    static func buildLiteralTable(
        frequencies: ArraySlice<UInt16>, stateCount: Int, into table: inout [LiteralDecoderEntry]
    ) {
        for index in table.indices { table[index] = LiteralDecoderEntry() }
        spreadStates(frequencies: frequencies, stateCount: stateCount) { position, symbol, bits, delta in
            table[position] = LiteralDecoderEntry(bits: UInt8(bits), symbol: UInt8(truncatingIfNeeded: symbol), delta: delta)
        }
    }

    /// Fills `table` (of `stateCount` entries) for an L, M or D alphabet.
    static func buildValueTable(
        frequencies: ArraySlice<UInt16>, stateCount: Int, extraBits: [UInt8], baseValues: [Int32],
        into table: inout [ValueDecoderEntry]
    ) {
        for index in table.indices { table[index] = ValueDecoderEntry() }
        spreadStates(frequencies: frequencies, stateCount: stateCount) { position, symbol, bits, delta in
            let valueBits = extraBits[symbol]
            table[position] = ValueDecoderEntry(
                totalBits: UInt8(bits) + valueBits, valueBits: valueBits, delta: delta, valueBase: baseValues[symbol])
        }
    }
}

/// A bit stream read backwards: the encoder wrote bits forwards and the decoder consumes them from
/// the end, keeping 56 to 63 bits in `accumulator` after each refill.
struct BackwardBitStream {
    private(set) var accumulator: UInt64
    private(set) var bitCount: Int
    /// Offset of the lowest byte already loaded.
    private(set) var position: Int
    /// Refills never load bytes below this offset.
    private let lowerBound: Int

    /// Starts the stream at `end` (exclusive). `padding` (-7...0) says how many bits of the last byte
    /// are not part of the stream; the first load may not go below `initialLowerBound`, later ones not
    /// below `refillLowerBound`.
    init(
        _ input: UnsafeBufferPointer<UInt8>, end: Int, padding: Int, initialLowerBound: Int,
        refillLowerBound: Int, blockOffset: Int
    ) throws(LZFSEError) {
        let byteCount = padding != 0 ? 8 : 7
        guard end <= input.count, end - byteCount >= initialLowerBound, end - byteCount >= 0 else {
            throw LZFSEError(.corruptData, offset: blockOffset, "a block's bit stream is shorter than its first word")
        }
        var value: UInt64 = 0
        for index in stride(from: end - 1, through: end - byteCount, by: -1) {
            value = value << 8 | UInt64(input[index])
        }
        accumulator = value
        bitCount = padding + (padding != 0 ? 64 : 56)
        position = end - byteCount
        lowerBound = refillLowerBound
        guard bitCount >= 56, bitCount < 64, accumulator >> UInt64(bitCount) == 0 else {
            throw LZFSEError(.corruptData, offset: blockOffset, "a block's bit stream has bits set in its padding")
        }
    }

    /// Loads whole bytes until the accumulator holds at least 56 bits.
    @inline(__always)
    mutating func refill(_ input: UnsafeBufferPointer<UInt8>, blockOffset: Int) throws(LZFSEError) {
        let bits = (63 - bitCount) & ~7
        if bits == 0 { return }
        let bytes = bits >> 3
        let newPosition = position - bytes
        guard newPosition >= lowerBound, newPosition >= 0 else {
            throw LZFSEError(.corruptData, offset: blockOffset, "a block's bit stream runs past its start")
        }
        // The bytes are [newPosition, position): below bytes already read, so inside the input.
        var incoming: UInt64 = 0
        if newPosition + 8 <= input.count {
            let word = UnsafeRawBufferPointer(input).loadUnaligned(fromByteOffset: newPosition, as: UInt64.self)
            incoming = UInt64(littleEndian: word) & ((1 << UInt64(bits)) - 1)
        } else {
            for index in stride(from: position - 1, through: newPosition, by: -1) {
                incoming = incoming << 8 | UInt64(input[index])
            }
        }
        accumulator = accumulator << UInt64(bits) | incoming
        bitCount += bits
        position = newPosition
    }

    /// Takes the top `count` bits (`count <= bitCount`, which the table limits guarantee after a refill).
    @inline(__always)
    mutating func pull(_ count: Int) -> UInt64 {
        bitCount &-= count
        let shift = UInt64(truncatingIfNeeded: bitCount)
        let result = accumulator &>> shift
        accumulator &= (1 &<< shift) &- 1
        return result
    }
}
