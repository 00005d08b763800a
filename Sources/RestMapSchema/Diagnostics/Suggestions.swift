/// "Did you mean" suggestions for near-miss names.
public enum Suggestions {
    /// The candidate closest to `name`, if it is close enough to be a likely typo.
    public static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        let lowered = name.lowercased()
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let allowed = max(1, min(3, name.count / 3))
        return best.distance <= allowed ? best.candidate : nil
    }

    /// `" (did you mean 'x'?)"` or the empty string.
    static func hint(for name: String, in candidates: some Sequence<String>) -> String {
        closest(to: name, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Damerau-Levenshtein distance (optimal string alignment) over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = Swift.min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
