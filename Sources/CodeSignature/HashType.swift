import Crypto

/// A code-signing hash algorithm (`hashType` in a CodeDirectory, `hashN` keys in CodeResources).
public struct HashType: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let sha1 = HashType(rawValue: 1)
    public static let sha256 = HashType(rawValue: 2)
    /// SHA-256 truncated to 20 bytes.
    public static let sha256Truncated = HashType(rawValue: 3)
    public static let sha384 = HashType(rawValue: 4)

    public var name: String {
        switch rawValue {
        case 1: "SHA-1"
        case 2: "SHA-256"
        case 3: "SHA-256/20"
        case 4: "SHA-384"
        default: "hash type \(rawValue)"
        }
    }

    public var description: String { name }

    /// Digest length in bytes, or nil for a type this reader cannot compute.
    public var digestSize: Int? {
        switch rawValue {
        case 1, 3: 20
        case 2: 32
        case 4: 48
        default: nil
        }
    }

    /// Whether `digest(_:)` can compute this type.
    public var isSupported: Bool { digestSize != nil }

    public static func < (lhs: HashType, rhs: HashType) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The digest of `bytes`, or nil for an unsupported type.
    public func digest(_ bytes: [UInt8]) -> [UInt8]? {
        var hasher = Hasher(self)
        hasher?.update(bytes)
        return hasher?.finalize()
    }

    /// An incremental digest of this type.
    public struct Hasher: Sendable {
        private enum State: Sendable {
            case sha1(Insecure.SHA1)
            case sha256(SHA256, truncated: Bool)
            case sha384(SHA384)
        }
        private var state: State

        /// Nil for a type this reader cannot compute.
        public init?(_ type: HashType) {
            switch type.rawValue {
            case 1: state = .sha1(Insecure.SHA1())
            case 2: state = .sha256(SHA256(), truncated: false)
            case 3: state = .sha256(SHA256(), truncated: true)
            case 4: state = .sha384(SHA384())
            default: return nil
            }
        }

        public mutating func update(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { update(bufferPointer: $0) }
        }

        public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
            switch state {
            case .sha1(var hash):
                hash.update(bufferPointer: bufferPointer)
                state = .sha1(hash)
            case .sha256(var hash, let truncated):
                hash.update(bufferPointer: bufferPointer)
                state = .sha256(hash, truncated: truncated)
            case .sha384(var hash):
                hash.update(bufferPointer: bufferPointer)
                state = .sha384(hash)
            }
        }

        public func finalize() -> [UInt8] {
            switch state {
            case .sha1(let hash): Array(hash.finalize())
            case .sha256(let hash, let truncated): Array(Array(hash.finalize()).prefix(truncated ? 20 : 32))
            case .sha384(let hash): Array(hash.finalize())
            }
        }
    }
}

/// A run of equal-size hashes stored contiguously: a CodeDirectory's code or special slots.
/// Element `i` is the `i`-th hash.
public struct HashArray: RandomAccessCollection, Sendable, Hashable {
    /// Bytes per hash.
    public let hashSize: Int
    /// All hashes, one after the other.
    public let storage: [UInt8]

    /// `storage.count` must be a multiple of `hashSize` (extra bytes are ignored).
    public init(hashSize: Int, storage: [UInt8]) {
        self.hashSize = Swift.max(1, hashSize)
        self.storage = storage
    }

    public init(hashSize: Int, hashes: [[UInt8]]) {
        self.hashSize = Swift.max(1, hashSize)
        var storage: [UInt8] = []
        storage.reserveCapacity(hashes.count * hashSize)
        for hash in hashes {
            storage.append(contentsOf: (hash + Array(repeating: 0, count: Swift.max(0, hashSize - hash.count))).prefix(hashSize))
        }
        self.storage = storage
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count / hashSize }

    public subscript(position: Int) -> [UInt8] {
        let start = position * hashSize
        return Array(storage[start..<(start + hashSize)])
    }
}
