/// Close matches for a mistyped name, for "did you mean" hints.
public enum NameSuggestions {
    /// Candidates that differ from `name` only in case, contain it or are contained in it
    /// (ignoring case), or are within a small edit distance; best first, at most `limit`.
    public static func closest(to name: String, among candidates: [String], limit: Int = 3) -> [String] {
        let loweredName = name.lowercased()
        let query = Array(loweredName.unicodeScalars)
        // Beyond the length of any real name a suggestion is noise, and the distance is quadratic.
        guard !query.isEmpty, query.count <= 256 else { return [] }
        let allowed = max(1, min(3, query.count / 3))
        var scored: [(distance: Int, name: String)] = []
        for candidate in candidates {
            let lowered = candidate.lowercased()
            let target = Array(lowered.unicodeScalars)
            guard target.count <= 256 else { continue }
            if lowered == loweredName {
                scored.append((0, candidate))
            } else if query.count >= 4, lowered.contains(loweredName)
                        || (target.count >= 4 && loweredName.contains(lowered)) {
                scored.append((1, candidate))
            } else {
                let distance = editDistance(query, target)
                if distance <= allowed { scored.append((distance, candidate)) }
            }
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.name < $1.name }
        return Array(scored.prefix(limit).map(\.name))
    }

    /// Levenshtein distance over Unicode scalars, with one row of memory.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
