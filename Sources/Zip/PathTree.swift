/// Every path of an archive, each distinct prefix stored once: a tree whose nodes are the root, the
/// folders the names imply and the entries, each holding its parent and the bytes of its own last
/// component. Memory and time grow with the number of distinct components, not with the square of
/// a name's depth (a 32,000-level name is 32,000 small nodes, not 32,000 prefix strings).
///
/// Components are matched as Apple's file systems match names: canonically equivalent Unicode
/// (NFC and NFD twins) is the same component, so such twins are the same path. Each component is
/// read as UTF-8 when it is valid UTF-8, otherwise byte by byte as Latin-1 (as `EntryName.string`
/// reads whole names), so every byte sequence has one reading.
///
/// Node ids: `0..<entryCount` belong to the entries (entry `i` is node `i`), then the root and the
/// folders that names imply, in the order they first appear. An entry that names a folder an
/// earlier entry implied, or that repeats a path, gets that node instead and leaves its own id
/// unused. A name is rebuilt from its node's ancestors; the few entries whose bytes differ from
/// that spelling (a component spelled differently, NFC against NFD, by an earlier name) keep their
/// own bytes aside.
package struct PathTree: Sendable {
    /// The parent of the root, and of nothing else.
    static let noParent = UInt32.max
    /// The parent of an unused entry id.
    static let unused = UInt32.max - 1

    let entryCount: Int
    /// Each node's parent.
    private(set) var parents: [UInt32]
    /// Where each node's component starts in `components`.
    private var componentStarts: [UInt32]
    /// Every node's component, each followed by a 0 byte (names never hold one).
    private var components: [UInt8]
    /// For the root and each implied folder (node `entryCount + k`), the entry whose name first
    /// implied it: the order in which folders first appear.
    private var firstEntryOfFolder: [UInt32]
    /// Open addressing over (parent, component): node id + 1, 0 when empty.
    private var slots: [UInt32]
    private var occupiedSlots = 0
    /// Entries whose node is not their own id: they named an implied folder, or repeat a path.
    private var entryNodes: [UInt32: UInt32] = [:]
    /// Implied folders that an entry named later.
    private var folderEntries: [UInt32: UInt32] = [:]
    /// Entries whose bytes differ from the spelling their node's ancestors give.
    private var exactNames: [UInt32: [UInt8]] = [:]
    private var exactNameBytes = 0

    /// The first entry whose path an earlier entry already had.
    private(set) var firstDuplicate: Int?

    /// The previous name's bytes and, for each of its folder components, the node and where the
    /// component ends: names in a directory share their folders with the name before them.
    private var previousName: [UInt8] = []
    private var previousFolders: [(node: UInt32, end: Int, exact: Bool)] = []

    package var root: UInt32 { UInt32(entryCount) }
    var nodeCount: Int { parents.count }

    /// - Parameter nameBytes: at most how many bytes the names take (their components take no
    ///   more): reserved up front, so the buffer is never copied to grow (untouched, the part
    ///   reserved in excess costs no memory).
    init(entryCount: Int, nameBytes: Int) {
        self.entryCount = entryCount
        let expectedNodes = entryCount + entryCount / 8 + 16
        parents = [UInt32](repeating: Self.unused, count: entryCount)
        parents.reserveCapacity(expectedNodes)
        parents.append(Self.noParent)
        componentStarts = [UInt32](repeating: 0, count: entryCount + 1)
        componentStarts.reserveCapacity(expectedNodes)
        components = [0]
        components.reserveCapacity(nameBytes + entryCount + 1)
        firstEntryOfFolder = [0]
        // Room for the entries and about one folder per eight of them at a load under 3/4.
        slots = [UInt32](repeating: 0, count: Self.capacity(for: expectedNodes))
    }

    /// Bytes the tree holds now, counted against the memory limit.
    var byteCount: Int {
        parents.count * 4 + componentStarts.count * 4 + components.count + firstEntryOfFolder.count * 4
            + slots.count * 4 + (entryNodes.count + folderEntries.count) * 16 + exactNameBytes
    }

    // MARK: Building

    /// Adds entry `index` (entries are added in order, each once) with a name already checked
    /// to have no empty, `.` or `..` component. `work` is told of every component handled.
    mutating func insert(
        entry index: Int, name: ArraySlice<UInt8>, work: (Int) throws(ArchiveError) -> Void
    ) throws(ArchiveError) {
        let bytes = name.last == UInt8(ascii: "/") ? name.dropLast() : name
        let base = bytes.startIndex
        // Reuse the previous name's folders while the bytes agree, through the slash after them.
        let common = bytes.withUnsafeBufferPointer { bytes in
            previousName.withUnsafeBufferPointer { previous in
                var common = 0
                let shorter = min(bytes.count, previous.count)
                while common < shorter, bytes[common] == previous[common] { common += 1 }
                return common
            }
        }
        while let last = previousFolders.last, last.end >= common { previousFolders.removeLast() }
        var parent = previousFolders.last?.node ?? root
        var exact = previousFolders.last?.exact ?? true
        var start = previousFolders.last.map { base + $0.end + 1 } ?? base
        while true {
            let end = bytes.withUnsafeBufferPointer { buffer in
                var end = start - base
                while end < buffer.count, buffer[end] != UInt8(ascii: "/") { end += 1 }
                return base + end
            }
            let component = bytes[start..<end]
            try work(component.count + 1)
            let hash = Self.hash(parent: parent, component: component)
            let existing = child(of: parent, named: component, hash: hash)
            if end == bytes.endIndex {
                addEntry(index, component: component, hash: hash, existing: existing, parent: parent, exact: exact, name: name)
                break
            }
            if let existing {
                exact = exact && componentIsExactly(existing, component)
                parent = existing
            } else {
                parent = addNode(parent: parent, component: component, hash: hash, firstEntry: UInt32(index))
            }
            previousFolders.append((parent, end - base, exact))
            start = end + 1
        }
        previousName.removeAll(keepingCapacity: true)
        previousName.append(contentsOf: bytes)
    }

    private mutating func addEntry(
        _ index: Int, component: ArraySlice<UInt8>, hash: Int, existing: UInt32?, parent: UInt32, exact pathExact: Bool,
        name: ArraySlice<UInt8>
    ) {
        let entry = UInt32(index)
        guard let existing else {
            parents[index] = parent
            componentStarts[index] = UInt32(components.count)
            components.append(contentsOf: component)
            components.append(0)
            insertSlot(for: entry, hash: hash)
            if !pathExact { keepExactName(entry, name) }
            return
        }
        entryNodes[entry] = existing
        if !(pathExact && componentIsExactly(existing, component)) { keepExactName(entry, name) }
        if self.entry(ofNode: existing) != nil {
            if firstDuplicate == nil { firstDuplicate = index }
        } else {
            folderEntries[existing] = entry
        }
    }

    private mutating func keepExactName(_ entry: UInt32, _ name: ArraySlice<UInt8>) {
        exactNames[entry] = Array(name)
        exactNameBytes += name.count + 64
    }

    private mutating func addNode(parent: UInt32, component: ArraySlice<UInt8>, hash: Int, firstEntry: UInt32) -> UInt32 {
        let node = UInt32(parents.count)
        parents.append(parent)
        componentStarts.append(UInt32(components.count))
        components.append(contentsOf: component)
        components.append(0)
        firstEntryOfFolder.append(firstEntry)
        insertSlot(for: node, hash: hash)
        return node
    }

    private mutating func insertSlot(for node: UInt32, hash: Int) {
        occupiedSlots += 1
        if occupiedSlots * 4 > slots.count * 3 {
            rehash(capacity: Self.capacity(for: occupiedSlots * 2))
        }
        Self.place(node, hash: hash, in: &slots)
    }

    private static func place(_ node: UInt32, hash: Int, in slots: inout [UInt32]) {
        slots.withUnsafeMutableBufferPointer { slots in
            var slot = Self.slot(for: hash, capacity: slots.count)
            while slots[slot] != 0 { slot = slot + 1 == slots.count ? 0 : slot + 1 }
            slots[slot] = node + 1
        }
    }

    private mutating func rehash(capacity: Int) {
        var slots = [UInt32](repeating: 0, count: capacity)
        for node in 0..<UInt32(parents.count) where parents[Int(node)] < Self.unused {
            Self.place(node, hash: Self.hash(parent: parents[Int(node)], component: component(of: node)), in: &slots)
        }
        self.slots = slots
    }

    private static func capacity(for count: Int) -> Int {
        max(16, count + count / 2)
    }

    // MARK: Lookup

    /// The node named `component` directly inside `parent`.
    package func child(of parent: UInt32, named component: some Collection<UInt8>) -> UInt32? {
        child(of: parent, named: component, hash: Self.hash(parent: parent, component: component))
    }

    private func child(of parent: UInt32, named component: some Collection<UInt8>, hash: Int) -> UInt32? {
        slots.withUnsafeBufferPointer { slots in
            var slot = Self.slot(for: hash, capacity: slots.count)
            while slots[slot] != 0 {
                let node = slots[slot] - 1
                if parents[Int(node)] == parent, componentMatches(node, component) { return node }
                slot = slot + 1 == slots.count ? 0 : slot + 1
            }
            return nil
        }
    }

    /// Whether a node's component is `bytes`, or canonically equivalent text.
    private func componentMatches(_ node: UInt32, _ bytes: some Collection<UInt8>) -> Bool {
        componentIsExactly(node, bytes) || Self.equivalent(component(of: node), bytes)
    }

    /// Whether a node's component is exactly `bytes`.
    private func componentIsExactly(_ node: UInt32, _ bytes: some Collection<UInt8>) -> Bool {
        components.withUnsafeBufferPointer { components in
            var index = Int(componentStarts[Int(node)])
            for byte in bytes {
                // A 0 byte (possible in a name looked up, never in one stored) would match the
                // terminator and read on past it.
                guard byte != 0, components[index] == byte else { return false }
                index += 1
            }
            return components[index] == 0
        }
    }

    /// The node at a path of components (no empty ones; the root for none).
    package func node(atPath path: some Collection<UInt8>) -> UInt32? {
        var node = root
        if path.isEmpty { return node }
        for component in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard !component.isEmpty, let next = child(of: node, named: component) else { return nil }
            node = next
        }
        return node
    }

    /// The node of an entry.
    func node(ofEntry index: Int) -> UInt32 {
        entryNodes[UInt32(index)] ?? UInt32(index)
    }

    /// The entry a node stands for; nil for the root and folders no entry names.
    func entry(ofNode node: UInt32) -> Int? {
        if Int(node) < entryCount { return parents[Int(node)] == Self.unused ? nil : Int(node) }
        return folderEntries[node].map(Int.init)
    }

    /// The node's own component.
    package func component(of node: UInt32) -> ArraySlice<UInt8> {
        let start = Int(componentStarts[Int(node)])
        let end = components[start...].firstIndex(of: 0) ?? components.endIndex
        return components[start..<end]
    }

    /// The path of a node (no trailing slash; empty for the root).
    func path(of node: UInt32) -> [UInt8] {
        parents.withUnsafeBufferPointer { parents in
            componentStarts.withUnsafeBufferPointer { starts in
                components.withUnsafeBufferPointer { components in
                    func componentEnd(_ node: Int) -> Int {
                        var end = Int(starts[node])
                        while components[end] != 0 { end += 1 }
                        return end
                    }
                    let root = Int(self.root)
                    // Its length first, then the components from the last, back to front.
                    var length = -1
                    var current = Int(node)
                    while current != root, parents[current] < Self.unused {
                        length += componentEnd(current) - Int(starts[current]) + 1
                        current = Int(parents[current])
                    }
                    guard length > 0 else { return [] }
                    return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                        var position = length
                        current = Int(node)
                        while current != root, parents[current] < Self.unused {
                            let start = Int(starts[current])
                            let end = componentEnd(current)
                            position -= end - start
                            for index in start..<end { buffer[position + index - start] = components[index] }
                            if position > 0 {
                                position -= 1
                                buffer[position] = UInt8(ascii: "/")
                            }
                            current = Int(parents[current])
                        }
                        count = length
                    }
                }
            }
        }
    }

    /// An entry's name, byte for byte as stored.
    func name(ofEntry index: Int, isDirectoryName: Bool) -> [UInt8] {
        if let exact = exactNames[UInt32(index)] { return exact }
        var bytes = path(of: node(ofEntry: index))
        if isDirectoryName { bytes.append(UInt8(ascii: "/")) }
        return bytes
    }

    /// An entry's last component (without a trailing slash), byte for byte as stored.
    func fileName(ofEntry index: Int) -> ArraySlice<UInt8> {
        guard let exact = exactNames[UInt32(index)] else { return component(of: node(ofEntry: index)) }
        let bytes = exact.last == UInt8(ascii: "/") ? exact.dropLast() : exact[...]
        return bytes[((bytes.lastIndex(of: UInt8(ascii: "/")) ?? bytes.startIndex - 1) + 1)...]
    }

    /// Whether an entry's name is `bytes`, compared from the end through the node's ancestors
    /// (no name is built).
    func name(ofEntry index: Int, isDirectoryName: Bool, equals bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if let exact = exactNames[UInt32(index)] { return exact.elementsEqual(bytes) }
        var end = bytes.count
        if isDirectoryName {
            guard end > 0, bytes[end - 1] == UInt8(ascii: "/") else { return false }
            end -= 1
        }
        return componentStarts.withUnsafeBufferPointer { starts in
            components.withUnsafeBufferPointer { components in
                var current = node(ofEntry: index)
                var first = true
                while current != root, parents[Int(current)] < Self.unused {
                    if !first {
                        guard end > 0, bytes[end - 1] == UInt8(ascii: "/") else { return false }
                        end -= 1
                    }
                    first = false
                    let start = Int(starts[Int(current)])
                    var length = 0
                    while components[start + length] != 0 { length += 1 }
                    guard length <= end else { return false }
                    for offset in 0..<length where components[start + offset] != bytes[end - length + offset] { return false }
                    end -= length
                    current = parents[Int(current)]
                }
                return end == 0
            }
        }
    }

    /// The entries whose node lies at or below `ancestor`, in order. Each node is walked up
    /// from once (what is known of a node is kept), so a deep tree costs its size, not its size
    /// times its depth.
    func entries(within ancestor: UInt32) -> [Int] {
        // 0: not known yet; 1: within; 2: not within.
        var known = [UInt8](repeating: 0, count: parents.count)
        known[Int(ancestor)] = 1
        var walked: [Int] = []
        var result: [Int] = []
        for index in 0..<entryCount {
            var current = Int(node(ofEntry: index))
            walked.removeAll(keepingCapacity: true)
            while known[current] == 0 {
                walked.append(current)
                guard current != Int(root), parents[current] < Self.unused else {
                    known[current] = 2
                    break
                }
                current = Int(parents[current])
            }
            let state = known[current]
            for node in walked { known[node] = state }
            if state == 1 { result.append(index) }
        }
        return result
    }

    /// Where a node first appears: its entry's index, or the entry that first implied the folder.
    package func firstAppearance(of node: UInt32) -> Int {
        Int(node) < entryCount ? Int(node) : Int(firstEntryOfFolder[Int(node) - entryCount])
    }

    // MARK: Children

    /// The nodes directly inside `node`, found by visiting every node (for a single question;
    /// `children` answers many).
    package func scanChildren(of node: UInt32) -> [UInt32] {
        (0..<UInt32(parents.count)).filter { parents[Int($0)] == node }
    }

    /// Every node's children, grouped by parent (built on demand: the bundle model lists
    /// folders, validation does not).
    struct Children: Sendable {
        /// Children of node `n` are `nodes[offsets[n]..<offsets[n + 1]]`, in id order.
        let offsets: [UInt32]
        let nodes: [UInt32]

        func of(_ node: UInt32) -> ArraySlice<UInt32> {
            nodes[Int(offsets[Int(node)])..<Int(offsets[Int(node) + 1])]
        }

        var byteCount: Int { (offsets.count + nodes.count) * 4 }
    }

    func children(work: (Int) throws(ArchiveError) -> Void) throws(ArchiveError) -> Children {
        var counts = [UInt32](repeating: 0, count: parents.count + 1)
        for parent in parents where parent < Self.unused { counts[Int(parent) + 1] += 1 }
        try work(parents.count)
        for node in 1..<counts.count { counts[node] += counts[node - 1] }
        var next = counts
        var nodes = [UInt32](repeating: 0, count: Int(counts[parents.count]))
        for (node, parent) in parents.enumerated() where parent < Self.unused {
            nodes[Int(next[Int(parent)])] = UInt32(node)
            next[Int(parent)] += 1
        }
        try work(parents.count)
        return Children(offsets: counts, nodes: nodes)
    }

    // MARK: Matching components

    /// Hashes (parent, component) so that canonically equivalent components hash alike: ASCII
    /// as it is (it is its own normal form), anything else by its NFC code units.
    private static func hash(parent: UInt32, component: some Collection<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(parent)
        if component.allSatisfy({ $0 < 0x80 }) {
            // The same byte stream as combining each byte, faster.
            if component.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
                for byte in component { hasher.combine(byte) }
            }
        } else {
            // The standard library's own normalization, the one `String ==` compares by.
            EntryName.decode(component)._withNFCCodeUnits { hasher.combine($0) }
        }
        return hasher.finalize()
    }

    /// Whether two components are the same name: the same bytes, or canonically equivalent text.
    static func equivalent(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        if lhs.elementsEqual(rhs) { return true }
        if lhs.allSatisfy({ $0 < 0x80 }) && rhs.allSatisfy({ $0 < 0x80 }) { return false }
        return EntryName.decode(lhs) == EntryName.decode(rhs)
    }

    private static func slot(for hash: Int, capacity: Int) -> Int {
        Int(truncatingIfNeeded: UInt64(truncatingIfNeeded: hash).multipliedFullWidth(by: UInt64(capacity)).high)
    }
}

// MARK: Case collisions

extension PathTree {
    /// The first two sibling nodes whose components differ only in case (`Info.plist` and
    /// `info.plist`): distinct names here, one file on Apple's case-insensitive file systems, so
    /// which one an extraction keeps depends on the tool. Every pair of such names has a pair of
    /// such siblings at the first component where they differ.
    func firstCaseCollision(work: (Int) throws(ArchiveError) -> Void) throws(ArchiveError) -> (UInt32, UInt32)? {
        var slots = [UInt32](repeating: 0, count: Self.caseSlotCount(for: nodeCount))
        var visited = 0
        for node in 0..<UInt32(nodeCount) {
            let parent = parents[Int(node)]
            guard parent < Self.unused else { continue }
            visited += 1
            if visited & 0xFFF == 0 { try work(0x1000) }
            let component = component(of: node)
            let hash = Self.caseFoldedHash(parent: parent, component: component)
            let found: UInt32? = slots.withUnsafeMutableBufferPointer { slots in
                var slot = Int(truncatingIfNeeded: UInt64(truncatingIfNeeded: hash).multipliedFullWidth(by: UInt64(slots.count)).high)
                while slots[slot] != 0 {
                    let other = slots[slot] - 1
                    if parents[Int(other)] == parent, Self.equalIgnoringCase(self.component(of: other), component) {
                        return other
                    }
                    slot = slot + 1 == slots.count ? 0 : slot + 1
                }
                slots[slot] = node + 1
                return nil
            }
            if let found { return (found, node) }
        }
        return nil
    }

    private static func caseSlotCount(for count: Int) -> Int {
        max(16, count + count / 2)
    }

    /// Hashes (parent, component) so that components equal but for case (and canonically
    /// equivalent) hash alike: ASCII lowercased byte by byte, anything else by the NFC code units
    /// of its lowercased text (the same stream for text that lowercases to ASCII).
    private static func caseFoldedHash(parent: UInt32, component: ArraySlice<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(parent)
        // Bytes fed in one call each (one call a byte costs more than the rest of the check).
        if component.allSatisfy({ $0 < 0x80 }) {
            component.withUnsafeBufferPointer { bytes in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { folded in
                    for at in bytes.indices { folded[at] = lowercased(bytes[at]) }
                    hasher.combine(bytes: UnsafeRawBufferPointer(folded))
                }
            }
        } else {
            var units: [UInt8] = []
            EntryName.decode(component).lowercased()._withNFCCodeUnits { units.append($0) }
            units.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        return hasher.finalize()
    }

    private static func equalIgnoringCase(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
        if lhs.allSatisfy({ $0 < 0x80 }) && rhs.allSatisfy({ $0 < 0x80 }) {
            return lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { lowercased($0) == lowercased($1) }
        }
        return EntryName.decode(lhs).lowercased() == EntryName.decode(rhs).lowercased()
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
    }
}
