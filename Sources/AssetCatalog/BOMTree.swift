import FormatSupport

/// A B+ tree stored in BOM blocks, mapping keys to values (both blocks).
///
/// The variable's block holds `"tree"`, a version, the root node's block, the node size and the
/// number of entries. A node is `u16 isLeaf, u16 count, u32 forward, u32 backward` and `count` pairs
/// of `(u32 value block, u32 key block)`; in an index node the value is a child node. The entries are
/// read by descending through first children to the leftmost leaf, then following `forward` links.
struct BOMTree {
    struct Entry {
        var key: ByteReader
        var value: ByteReader
    }

    /// Every entry of the tree named by `variable`, in leaf order.
    ///
    /// - Parameters:
    ///   - maximumEntries: entries beyond this are an error (`tooManyEntries`).
    ///   - maximumDepth: index levels beyond this are an error (`treeLoop`).
    ///   - clock: the input's time limit, counted per node and entry.
    static func entries(
        of variable: String, in store: BOMStore, maximumEntries: Int, maximumDepth: Int, clock: inout WorkClock
    ) throws(AssetCatalogError) -> [Entry]? {
        guard var header = try store.block(named: variable) else { return nil }
        let rootIndex = try reading(.invalidTree, "the \(variable) tree header") { () throws(OutOfBoundsError) -> UInt32? in
            guard try header.readBytes(4).elementsEqual("tree".utf8) else { return nil }
            _ = try header.readUInt32(.big)  // version
            return try header.readUInt32(.big)
        }
        guard let rootIndex else {
            throw AssetCatalogError(.invalidTree, "the \(variable) variable is not a BOM tree (no \"tree\" magic)")
        }

        // Each node block is visited at most once, so a loop through child or forward links ends.
        var visited: Set<UInt32> = []
        var nodeIndex = rootIndex
        var depth = 0
        var node = try Node(store: store, index: nodeIndex, tree: variable)
        visited.insert(nodeIndex)
        while !node.isLeaf {
            depth += 1
            guard depth <= maximumDepth else {
                throw AssetCatalogError(.treeLoop, "the \(variable) tree is more than \(maximumDepth) levels deep")
            }
            guard node.count > 0 else {
                throw AssetCatalogError(.invalidTree, "an index node of the \(variable) tree has no children")
            }
            nodeIndex = try node.pair(0).value
            guard visited.insert(nodeIndex).inserted else {
                throw AssetCatalogError(.treeLoop, "the \(variable) tree's node \(nodeIndex) is its own ancestor")
            }
            node = try Node(store: store, index: nodeIndex, tree: variable)
        }

        var entries: [Entry] = []
        while true {
            guard node.isLeaf else {
                throw AssetCatalogError(.invalidTree, "the \(variable) tree links a leaf to the index node \(nodeIndex)")
            }
            guard node.count <= maximumEntries - entries.count else {
                throw AssetCatalogError(.tooManyEntries, "the \(variable) tree has more than \(maximumEntries) entries")
            }
            for position in 0..<node.count {
                try AssetCatalog.tick(&clock)
                let pair = try node.pair(position)
                entries.append(Entry(key: try store.block(pair.key), value: try store.block(pair.value)))
            }
            guard node.forward != 0 else { return entries }
            nodeIndex = node.forward
            guard visited.insert(nodeIndex).inserted else {
                throw AssetCatalogError(.treeLoop, "the \(variable) tree's leaves link back to node \(nodeIndex)")
            }
            node = try Node(store: store, index: nodeIndex, tree: variable)
        }
    }

    private struct Node {
        let reader: ByteReader
        let isLeaf: Bool
        let count: Int
        let forward: UInt32
        let tree: String

        init(store: BOMStore, index: UInt32, tree: String) throws(AssetCatalogError) {
            let reader = try store.block(index)
            let fields = try reading(.invalidTree, "node \(index) of the \(tree) tree") {
                () throws(OutOfBoundsError) in
                (
                    isLeaf: try reader.uint16(at: reader.lowerBound, .big),
                    count: Int(try reader.uint16(at: reader.lowerBound + 2, .big)),
                    forward: try reader.uint32(at: reader.lowerBound + 4, .big)
                )
            }
            guard fields.count <= (reader.count - 12) / 8 else {
                throw AssetCatalogError(
                    .invalidTree,
                    "node \(index) of the \(tree) tree lists \(fields.count) entries but its block holds \((reader.count - 12) / 8)")
            }
            self.reader = reader
            self.isLeaf = fields.isLeaf != 0
            self.count = fields.count
            self.forward = fields.forward
            self.tree = tree
        }

        func pair(_ position: Int) throws(AssetCatalogError) -> (value: UInt32, key: UInt32) {
            let offset = reader.lowerBound + 12 + 8 * position
            return try reading(.invalidTree, "a node of the \(tree) tree") { () throws(OutOfBoundsError) in
                (value: try reader.uint32(at: offset, .big), key: try reader.uint32(at: offset + 4, .big))
            }
        }
    }
}
