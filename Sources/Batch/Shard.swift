import Crypto
import Foundation

/// One of N parts of a batch (`--shard I/N`, 1-based), so the same command can run as N parallel
/// CI jobs that together cover every input exactly once.
///
/// An input belongs to shard `1 + (H mod N)`, where H is the first 8 bytes (big-endian) of the
/// SHA-256 of its `name` in Unicode NFC. The assignment depends on nothing but the name and N:
/// not on the order or number of the other inputs, the machine, the checkout folder or the
/// file system's normalization, so N jobs that each list the same inputs split them without
/// talking to each other, and an input keeps its shard when others are added.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    public let count: Int

    /// Shards are counted in an Int, but no CI runs more jobs than this.
    public static let maximumCount = 1_000_000

    public init(index: Int, count: Int) throws(BatchInputError) {
        guard count >= 1, count <= Self.maximumCount, index >= 1, index <= count else {
            throw .invalidShard("\(index)/\(count)")
        }
        self.index = index
        self.count = count
    }

    /// Parses `I/N`.
    public init(parsing text: String) throws(BatchInputError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw .invalidShard(text)
        }
        do {
            try self.init(index: index, count: count)
        } catch {
            throw .invalidShard(text)
        }
    }

    public var description: String { "\(index)/\(count)" }

    /// The shard (1-based) an input of this name belongs to, out of `count`.
    public static func index(of name: String, count: Int) -> Int {
        guard count > 1 else { return 1 }
        let digest = SHA256.hash(data: Array(name.precomposedStringWithCanonicalMapping.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % UInt64(count)) + 1
    }

    public func contains(_ input: BatchInput) -> Bool {
        Self.index(of: input.name, count: count) == index
    }

    /// The inputs of this shard, in their order.
    public func select(_ inputs: [BatchInput]) -> [BatchInput] {
        inputs.filter(contains)
    }
}
