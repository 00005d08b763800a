import FoundationEssentials
import Synchronization

/// "Did you mean" suggestions for near-miss names.
///
/// The work is bounded: a name longer than `maximumNameLength` gets no suggestion; a candidate is
/// compared only when its length is within the allowed distance of the name's; the edit distance
/// is computed in a band of that width and stops as soon as it must exceed it. Across one
/// validation, a `SuggestionBudget` caps the total (see `SuggestionIndex`).
public enum Suggestions {
    /// Names longer than this (in Unicode scalars) get no suggestion.
    public static let maximumNameLength = 128

    /// The candidate closest to `name`, if it is close enough to be a likely typo.
    public static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        SuggestionIndex(candidates).closest(to: name)
    }

    /// `" (did you mean 'x'?)"` or the empty string.
    static func hint(for name: String, in candidates: some Sequence<String>) -> String {
        hint(closest(to: name, in: candidates))
    }

    /// `" (did you mean 'x'?)"` for a suggestion, the empty string for none.
    static func hint(_ suggestion: String?) -> String {
        suggestion.map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// The largest distance at which a name of `length` scalars is still a likely typo.
    static func allowedDistance(forLength length: Int) -> Int {
        max(1, min(3, length / 3))
    }

    /// Damerau-Levenshtein distance (optimal string alignment) over characters, unbounded.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        var scratch = DistanceScratch()
        return boundedEditDistance(a, b, limit: max(a.count, b.count), scratch: &scratch).distance ?? max(a.count, b.count)
    }

    /// `boundedEditDistance(_:_:limit:scratch:)` with rows of its own.
    static func boundedEditDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> (distance: Int?, cells: Int) {
        var scratch = DistanceScratch()
        return boundedEditDistance(a, b, limit: limit, scratch: &scratch)
    }

    /// The optimal-string-alignment distance of `a` and `b` when it is at most `limit`, else `nil`,
    /// with the number of table cells computed. Only the cells within `limit` of the diagonal are
    /// computed (at most `(2 * limit + 1) * a.count`), and it stops at the first row whose cells
    /// all exceed `limit`. `scratch` holds the rows, reused from one comparison to the next.
    static func boundedEditDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int,
                                    scratch: inout DistanceScratch) -> (distance: Int?, cells: Int) {
        if abs(a.count - b.count) > limit { return (nil, 0) }
        if a.isEmpty || b.isEmpty { return (max(a.count, b.count), 0) }
        let outside = limit + 1
        let width = b.count + 1
        if scratch.rows.count < 3 * width { scratch.rows = [Int](repeating: 0, count: 3 * width) }
        return scratch.rows.withUnsafeMutableBufferPointer { rows in
            // Three rows side by side: the one before the previous, the previous, the current.
            var twoBack = 0, back = width, row = 2 * width
            // Row 0 as far as row 1's band reads it; every later row writes the cells the next reads.
            for j in 0...(limit + 1 < b.count ? limit + 1 : b.count) { rows[back + j] = j <= limit ? j : outside }
            var cells = 0
            for i in 1...a.count {
                let low = i - limit > 1 ? i - limit : 1
                let high = i + limit < b.count ? i + limit : b.count
                // Cells left of the band are out of reach; the first column is the distance to "".
                rows[row + low - 1] = low == 1 && i <= limit ? i : outside
                var rowMinimum = rows[row + low - 1]
                let ai = a[i - 1]
                for j in low...high {
                    var value = rows[back + j] + 1
                    let left = rows[row + j - 1] + 1
                    if left < value { value = left }
                    let diagonal = rows[back + j - 1] + (ai == b[j - 1] ? 0 : 1)
                    if diagonal < value { value = diagonal }
                    if i > 1, j > 1, ai == b[j - 2], a[i - 2] == b[j - 1], rows[twoBack + j - 2] + 1 < value {
                        value = rows[twoBack + j - 2] + 1
                    }
                    if value > outside { value = outside }
                    rows[row + j] = value
                    if value < rowMinimum { rowMinimum = value }
                }
                if high < b.count { rows[row + high + 1] = outside }
                cells += high - low + 1
                if rowMinimum > limit { return (nil, cells) }
                (twoBack, back, row) = (back, row, twoBack)
            }
            let distance = rows[back + b.count]
            return (distance <= limit ? distance : nil, cells)
        }
    }
}

/// Rows of the distance table, kept between comparisons so that each does not allocate its own.
struct DistanceScratch {
    var rows: [Int] = []
}

/// The work allowed to "did you mean" suggestions across one validation, and the work done.
///
/// Each candidate looked at costs one step, each edit-distance cell computed one more. Once the
/// limit is reached no more suggestions are made; the validator then says so in one warning.
public final class SuggestionBudget {
    /// The default limit: enough for every suggestion of any hand-written schema, and a fraction of
    /// a second of work for any schema.
    public static let defaultLimit = 5_000_000

    /// The most steps suggestions may take.
    public let limit: Int
    /// The steps taken so far (never more than `limit`).
    public private(set) var spent = 0
    /// The suggestions not looked for because the budget ran out.
    public private(set) var refused = 0

    /// A budget of `limit` steps.
    public init(limit: Int = SuggestionBudget.defaultLimit) {
        self.limit = limit
    }

    /// Whether the budget ran out.
    public var isExhausted: Bool { spent >= limit }

    /// Takes `steps` steps; `false` (and the budget spent to its limit) when they do not fit.
    func take(_ steps: Int) -> Bool {
        guard spent + steps <= limit else {
            spent = limit
            return false
        }
        spent += steps
        return true
    }

    /// Counts a suggestion not looked for.
    func refuse() {
        refused += 1
    }
}

/// A set of candidate names prepared for repeated "did you mean" look-ups: lowercased once and
/// grouped by length, so a look-up visits only the candidates whose length could be close
/// enough; answers are remembered per name.
public final class SuggestionIndex {
    private struct Entry {
        var name: String
        var scalars: [Unicode.Scalar]
        /// The position among the candidates: of two equally close, the first is suggested.
        var order: Int
    }

    private var byLength: [Int: [Entry]] = [:]
    /// Answers by the name's Unicode scalars, as the distance counts them: two spellings Swift's
    /// `String` holds equal ("é" and "e" + U+0301) are different names to it.
    private var answers: [[Unicode.Scalar]: String?] = [:]
    private let budget: SuggestionBudget?
    private var scratch = DistanceScratch()

    /// An index of `candidates`; look-ups charge `budget` when one is given.
    public init(_ candidates: some Sequence<String>, budget: SuggestionBudget? = nil) {
        self.budget = budget
        var seen = Set<String>()
        for (order, name) in candidates.enumerated() where seen.insert(name).inserted {
            let scalars = Array(name.lowercased().unicodeScalars)
            // No name within the allowed distance of a suggestible one is longer than this.
            guard scalars.count <= Suggestions.maximumNameLength + 3 else { continue }
            byLength[scalars.count, default: []].append(Entry(name: name, scalars: scalars, order: order))
        }
    }

    /// The candidate closest to `name` within the allowed distance (of equally close ones, the
    /// first), or `nil`; also `nil` once the budget is spent.
    public func closest(to name: String) -> String? {
        let key = Array(name.unicodeScalars)
        if let known = answers[key] { return known }
        guard let answer = search(name) else { return nil }  // the budget ran out
        answers[key] = .some(answer)
        return answer
    }

    /// The answer, or `nil` when the budget ran out before it was found.
    private func search(_ name: String) -> String?? {
        let scalars = Array(name.lowercased().unicodeScalars)
        guard !scalars.isEmpty, scalars.count <= Suggestions.maximumNameLength else { return .some(nil) }
        let allowed = Suggestions.allowedDistance(forLength: name.unicodeScalars.count)
        var best: (entry: Entry, distance: Int)?
        for length in max(0, scalars.count - allowed)...(scalars.count + allowed) {
            for entry in byLength[length] ?? [] {
                if let budget, !budget.take(1) {
                    budget.refuse()
                    return nil
                }
                let (distance, cells) = Suggestions.boundedEditDistance(scalars, entry.scalars, limit: best?.distance ?? allowed, scratch: &scratch)
                if let budget, !budget.take(cells) {
                    budget.refuse()
                    return nil
                }
                guard let distance else { continue }
                if best == nil || distance < best!.distance || distance == best!.distance && entry.order < best!.entry.order {
                    best = (entry, distance)
                }
            }
        }
        return .some(best?.entry.name)
    }
}

/// A flag another thread sets to stop a validation whose result is no longer wanted.
public final class ValidationCancellation: Sendable {
    private let cancelled = Atomic(false)

    public init() {}

    /// Asks the validation to stop.
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
}

/// The "did you mean" look-ups of one validation: one budget for all of them, and one index per
/// set of candidates the schema defines (its entities, each entity's attributes, its routes).
final class Suggester {
    let budget: SuggestionBudget
    let cancellation: ValidationCancellation?
    private var indexes: [String: SuggestionIndex] = [:]

    init(budget: SuggestionBudget = SuggestionBudget(), cancellation: ValidationCancellation? = nil) {
        self.budget = budget
        self.cancellation = cancellation
    }

    /// The closest of `candidates` to `name`. `set` names the candidate set, so that it is indexed
    /// once (building the index costs one step per candidate); `nil` indexes small fixed sets
    /// (grammar words) afresh.
    func closest(to name: String, in set: String? = nil, _ candidates: @autoclosure () -> [String]) -> String? {
        if cancellation?.isCancelled == true { return nil }
        let index: SuggestionIndex
        if let set, let known = indexes[set] {
            index = known
        } else {
            let names = candidates()
            guard budget.take(names.count) else {
                budget.refuse()
                return nil
            }
            index = SuggestionIndex(names, budget: budget)
            if let set { indexes[set] = index }
        }
        return index.closest(to: name)
    }

    /// `" (did you mean 'x'?)"` or the empty string.
    func hint(for name: String, in set: String? = nil, _ candidates: @autoclosure () -> [String]) -> String {
        Suggestions.hint(closest(to: name, in: set, candidates()))
    }

    /// The warning that suggestions stopped, when the budget ran out.
    func exhaustionWarning(file: String) -> Diagnostic? {
        guard budget.isExhausted else { return nil }
        return .warning(
            "'did you mean' suggestions stopped after \(budget.limit) steps of comparing names; "
                + "\(budget.refused) unknown name\(budget.refused == 1 ? "" : "s") got none (fix the errors above and validate again)",
            at: SourceLocation(file: file, line: 1, column: 1))
    }
}
