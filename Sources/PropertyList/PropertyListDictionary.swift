import FormatSupport

/// A property-list dictionary: string keys in the order they were read, with O(1) lookup.
///
/// Keys compare exactly, scalar by scalar, as Core Foundation compares them; Swift's `String ==`
/// would treat canonically equivalent keys (`"K"` and the Kelvin sign `"\u{212A}"`) as one key,
/// which would let a crafted plist show this toolkit a different dictionary than iOS sees.
///
/// Order is kept so that rewriting a plist changes only what was edited. A new key goes to its
/// sorted position when the keys are already sorted the way `plutil` and Xcode write them
/// (`CFStringCompare`, i.e. by UTF-16 code unit), and to the end otherwise.
///
/// Reading a dictionary with a repeated key keeps the last value at the first key's position, as
/// Core Foundation's XML reader does.
public struct PropertyListDictionary: Sendable {
    /// Dictionaries with at most this many keys are searched linearly; larger ones get a hash index.
    static let linearSearchLimit = 8

    private var storage: Storage

    public init() {
        storage = Storage(keys: [], values: [], index: nil)
    }

    /// Builds a dictionary from pairs in order; a repeated key keeps its first position and last value.
    public init(_ pairs: some Sequence<(String, PropertyListValue)>) {
        var keys: [String] = []
        var values: [PropertyListValue] = []
        for (key, value) in pairs {
            keys.append(key)
            values.append(value)
        }
        self.init(keys: keys, values: values)
    }

    /// Builds a dictionary from parallel arrays of equal length (the readers' path).
    init(keys: [String], values: [PropertyListValue]) {
        storage = Storage.make(keys: keys, values: values)
    }

    // MARK: Reading

    public var count: Int { storage.keys.count }
    public var isEmpty: Bool { storage.keys.isEmpty }
    /// Keys in document order.
    public var keys: [String] { storage.keys }
    /// Values in document order.
    public var values: [PropertyListValue] { storage.values }

    /// The position of `key` in `keys`, or nil.
    public func index(forKey key: String) -> Int? {
        storage.position(of: key)
    }

    public subscript(key: String) -> PropertyListValue? {
        get {
            storage.position(of: key).map { storage.values[$0] }
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Whether the keys are in ascending `CFStringCompare` order (UTF-16 code units), as `plutil`
    /// and Xcode write them. Dictionaries of zero or one key count as sorted.
    public var isSortedByKey: Bool {
        Storage.isSorted(storage.keys)
    }

    // MARK: Editing

    /// Sets the value for `key`, keeping the key's position when it exists. A new key goes to its
    /// sorted position if the keys are sorted, otherwise to the end. Returns the old value.
    @discardableResult
    public mutating func updateValue(_ value: PropertyListValue, forKey key: String) -> PropertyListValue? {
        makeUnique()
        if let position = storage.position(of: key) {
            let old = storage.values[position]
            storage.values[position] = value
            return old
        }
        if storage.sortedness == .unknown {
            storage.sortedness = Storage.isSorted(storage.keys) ? .sorted : .unsorted
        }
        if storage.sortedness == .sorted {
            let position = storage.keys.partitioningIndex { key.precedesInUTF16Order($0) }
            storage.insert(key, value, at: position)
        } else {
            storage.insert(key, value, at: storage.keys.count)
        }
        return nil
    }

    /// Adds `key` at the end (or replaces its value in place), whatever the current order.
    public mutating func append(_ value: PropertyListValue, forKey key: String) {
        makeUnique()
        if let position = storage.position(of: key) {
            storage.values[position] = value
            return
        }
        if storage.sortedness == .sorted, let last = storage.keys.last, !last.precedesInUTF16Order(key) {
            storage.sortedness = .unsorted
        }
        storage.insert(key, value, at: storage.keys.count)
    }

    /// Removes `key`, keeping the order of the others. Returns the removed value.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> PropertyListValue? {
        guard let position = storage.position(of: key) else { return nil }
        makeUnique()
        return storage.remove(at: position)
    }

    /// A copy with keys in `CFStringCompare` order, as `plutil` writes them (this level only).
    public func sortedByKey() -> PropertyListDictionary {
        let order = storage.keys.indices.sorted { storage.keys[$0].precedesInUTF16Order(storage.keys[$1]) }
        return PropertyListDictionary(keys: order.map { storage.keys[$0] }, values: order.map { storage.values[$0] })
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy()
        }
    }

    // MARK: Storage

    /// Copy-on-write storage: it is only mutated when uniquely referenced, so sharing it between
    /// threads is safe.
    private final class Storage: @unchecked Sendable {
        enum Sortedness { case unknown, sorted, unsorted }

        var keys: [String]
        var values: [PropertyListValue]
        /// Key → position, present only above `linearSearchLimit` keys.
        var index: [ExactString: Int]?
        var sortedness: Sortedness = .unknown

        init(keys: [String], values: [PropertyListValue], index: [ExactString: Int]?) {
            self.keys = keys
            self.values = values
            self.index = index
        }

        /// Builds storage from parallel arrays, folding repeated keys (last value, first position).
        static func make(keys: [String], values: [PropertyListValue]) -> Storage {
            let count = Swift.min(keys.count, values.count)
            if count <= PropertyListDictionary.linearSearchLimit {
                var hasDuplicate = false
                outer: for first in 0..<count {
                    for second in (first + 1)..<count where exactlyEqual(keys[first], keys[second]) {
                        hasDuplicate = true
                        break outer
                    }
                }
                if !hasDuplicate {
                    return Storage(keys: Array(keys.prefix(count)), values: Array(values.prefix(count)), index: nil)
                }
            } else {
                var index: [ExactString: Int] = [:]
                index.reserveCapacity(count)
                var hasDuplicate = false
                for position in 0..<count where index.updateValue(position, forKey: ExactString(keys[position])) != nil {
                    hasDuplicate = true
                    break
                }
                if !hasDuplicate {
                    return Storage(keys: Array(keys.prefix(count)), values: Array(values.prefix(count)), index: index)
                }
            }
            // Rare: fold duplicates one by one.
            let storage = Storage(keys: [], values: [], index: nil)
            for position in 0..<count {
                if let existing = storage.position(of: keys[position]) {
                    storage.values[existing] = values[position]
                } else {
                    storage.insert(keys[position], values[position], at: storage.keys.count)
                }
            }
            return storage
        }

        func copy() -> Storage {
            let copy = Storage(keys: keys, values: values, index: index)
            copy.sortedness = sortedness
            return copy
        }

        func position(of key: String) -> Int? {
            if let index {
                return index[ExactString(key)]
            }
            for position in keys.indices where exactlyEqual(keys[position], key) {
                return position
            }
            return nil
        }

        func insert(_ key: String, _ value: PropertyListValue, at position: Int) {
            keys.insert(key, at: position)
            values.insert(value, at: position)
            if var index {
                self.index = nil
                for later in (position + 1)..<keys.count {
                    index[ExactString(keys[later])] = later
                }
                index[ExactString(key)] = position
                self.index = index
            } else if keys.count > PropertyListDictionary.linearSearchLimit {
                rebuildIndex()
            }
        }

        func remove(at position: Int) -> PropertyListValue {
            // Removing a key can leave an unsorted dictionary sorted; a sorted one stays sorted.
            if sortedness == .unsorted { sortedness = .unknown }
            let key = keys.remove(at: position)
            let value = values.remove(at: position)
            if var index {
                self.index = nil
                index[ExactString(key)] = nil
                for later in position..<keys.count {
                    index[ExactString(keys[later])] = later
                }
                self.index = keys.count > PropertyListDictionary.linearSearchLimit ? index : nil
            }
            return value
        }

        private func rebuildIndex() {
            var index: [ExactString: Int] = [:]
            index.reserveCapacity(keys.count)
            for (position, key) in keys.enumerated() {
                index[ExactString(key)] = position
            }
            self.index = index
        }

        static func isSorted(_ keys: [String]) -> Bool {
            var previous: String?
            for key in keys {
                if let previous, !previous.precedesInUTF16Order(key) { return false }
                previous = key
            }
            return true
        }
    }
}

extension PropertyListDictionary: Sequence {
    public typealias Element = (key: String, value: PropertyListValue)

    public struct Iterator: IteratorProtocol {
        private let keys: [String]
        private let values: [PropertyListValue]
        private var position = 0

        init(keys: [String], values: [PropertyListValue]) {
            self.keys = keys
            self.values = values
        }

        public mutating func next() -> Element? {
            guard position < keys.count, position < values.count else { return nil }
            defer { position += 1 }
            return (keys[position], values[position])
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(keys: storage.keys, values: storage.values)
    }

    public var underestimatedCount: Int { count }
}

extension PropertyListDictionary: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self.init(elements)
    }
}

extension PropertyListDictionary: Hashable {
    /// Dictionaries are equal when they hold the same keys with equal values, in any order.
    public static func == (lhs: PropertyListDictionary, rhs: PropertyListDictionary) -> Bool {
        if lhs.storage === rhs.storage { return true }
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine per-entry hashes commutatively.
        var combined = 0
        for (key, value) in self {
            var entry = Hasher()
            entry.combine(ExactString(key))
            entry.combine(value)
            combined = combined &+ entry.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

// MARK: Exact string comparison

/// A string compared and hashed by its exact UTF-8 bytes (no Unicode normalization).
struct ExactString: Hashable {
    let string: String

    init(_ string: String) {
        self.string = string
    }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        exactlyEqual(lhs.string, rhs.string)
    }

    func hash(into hasher: inout Hasher) {
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil {
            for byte in string.utf8 { hasher.combine(byte) }
        }
        hasher.combine(0xFF as UInt8)  // terminator, so concatenations hash differently
    }
}

/// Whether two strings have identical scalars (Swift's `==` would also equate canonically
/// equivalent spellings).
func exactlyEqual(_ lhs: String, _ rhs: String) -> Bool {
    if let result = lhs.utf8.withContiguousStorageIfAvailable({ left in
        rhs.utf8.withContiguousStorageIfAvailable { right in
            left.count == right.count && left.elementsEqual(right)
        }
    }), let result {
        return result
    }
    return lhs.utf8.elementsEqual(rhs.utf8)
}

extension Array {
    /// The first index whose element satisfies `belongsInSecondPartition`, for a partitioned array.
    func partitioningIndex(where belongsInSecondPartition: (Element) -> Bool) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if belongsInSecondPartition(self[middle]) {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }
}

extension PropertyListDictionary {
    /// The first key of `keys` that an earlier one equals exactly (for the message of
    /// `PLIST_DUPLICATE_KEY`); "" when there is none.
    static func firstDuplicate(_ keys: [String]) -> String {
        var seen = Set<[UInt8]>()
        for key in keys where !seen.insert(Array(key.utf8)).inserted { return key }
        return ""
    }
}
