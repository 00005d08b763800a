import Foundation
@testable import RestMapSchema
import Testing

/// "Did you mean" suggestions do bounded work: per comparison (length cut-offs, a band around
/// the diagonal, an early exit), per look-up (candidates by length) and per validation (a
/// budget whose spending the loaded schema reports). Other passes over names are not quadratic.
@Suite("Suggestion bounds")
struct SuggestionBoundsTests {
    /// A deterministic pseudo-random generator (the same schemas on every run).
    struct Generator {
        var state: UInt64

        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }

        mutating func word(_ length: Int, from letters: [Character] = Array("abcdefghijklmnopqrstuvwxyz")) -> String {
            String((0..<length).map { _ in letters[next(letters.count)] })
        }
    }

    /// The full optimal-string-alignment distance, written out independently of the validator's.
    static func referenceDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1) }
            }
        }
        return table[a.count][b.count]
    }

    /// A schema of `count` entities with long names, each with a relationship to a misspelled
    /// (one letter changed) name of an earlier one; returns the text and each misspelling with the
    /// name it came from.
    static func hostileSchema(entities count: Int, nameLength: Int = 100) -> (text: String, misspellings: [(wrong: String, right: String)]) {
        var generator = Generator(state: 42)
        var names: [String] = []
        var misspellings: [(String, String)] = []
        var text = "restmap: 1\nentities:\n"
        for index in 0..<count {
            let name = "E" + generator.word(nameLength) + "\(index)"
            names.append(name)
            let right = names[generator.next(names.count)]
            var letters = Array(right)
            let position = 1 + generator.next(nameLength - 1)
            letters[position] = letters[position] == "x" ? "y" : "x"
            let wrong = String(letters)
            misspellings.append((wrong, right))
            text += "  \(name):\n    attributes: { id: id }\n    relationships:\n      r: { entity: \(wrong) }\n"
        }
        return (text, misspellings)
    }

    @Test("The banded distance equals the full one whenever it is within the limit, and is nil beyond")
    func bandedDistanceIsExact() {
        var generator = Generator(state: 7)
        let letters: [Character] = Array("abcAB")
        for _ in 0..<3000 {
            let a = Array(generator.word(generator.next(12), from: letters).unicodeScalars)
            var b = a
            for _ in 0..<generator.next(5) {
                let position = b.isEmpty ? 0 : generator.next(b.count)
                switch generator.next(4) {
                case 0 where !b.isEmpty: b[position] = "z"
                case 1: b.insert("q", at: position)
                case 2 where !b.isEmpty: b.remove(at: position)
                default: if position + 1 < b.count { b.swapAt(position, position + 1) }
                }
            }
            let limit = generator.next(5)
            let expected = Self.referenceDistance(a, b)
            let (distance, _) = Suggestions.boundedEditDistance(a, b, limit: limit)
            #expect(distance == (expected <= limit ? expected : nil), "\(String(String.UnicodeScalarView(a))) / \(String(String.UnicodeScalarView(b))) limit \(limit)")
        }
    }

    @Test("One comparison computes cells only near the diagonal and stops once the limit is passed")
    func comparisonWork() {
        let a = Array(String(repeating: "ab", count: 64).unicodeScalars)
        var near = a
        near[70] = "z"
        let within = Suggestions.boundedEditDistance(a, near, limit: 3)
        #expect(within.distance == 1)
        #expect(within.cells <= 7 * a.count)
        let far = Array(String(repeating: "yz", count: 64).unicodeScalars)
        let beyond = Suggestions.boundedEditDistance(a, far, limit: 3)
        #expect(beyond.distance == nil)
        #expect(beyond.cells <= 7 * 4, "\(beyond.cells) cells for strings that differ from the first letter")
        #expect(Suggestions.boundedEditDistance(a, Array(a.dropLast(10)), limit: 3).cells == 0)
    }

    @Test("Suggestions are unchanged for ordinary names: the closest, the first of equals, none when too far")
    func ordinarySuggestions() {
        #expect(Suggestions.closest(to: "Usr", in: ["Repository", "User", "Users"]) == "User")
        #expect(Suggestions.closest(to: "relationshps", in: ["attributes", "relationships", "routes"]) == "relationships")
        #expect(Suggestions.closest(to: "idd", in: ["ida", "idb"]) == "ida")
        #expect(Suggestions.closest(to: "TASK", in: ["Task", "Tusk"]) == "Task")
        #expect(Suggestions.closest(to: "Pxyz", in: ["User"]) == nil)
        let long = String(repeating: "a", count: Suggestions.maximumNameLength + 1)
        #expect(Suggestions.closest(to: long, in: [long + "b"]) == nil)
    }

    @Test("Two spellings String holds equal (é, and e with a combining accent) are looked up each by its own scalars")
    func canonicallyEqualSpellingsAreAnsweredApart() {
        let index = SuggestionIndex(["EZa"])
        #expect(index.closest(to: "Ee\u{301}a") == nil, "four scalars, two edits from EZa")
        #expect(index.closest(to: "E\u{E9}a") == "EZa", "three scalars, one edit: not the answer remembered for the other spelling")
    }

    @Test("A name past the length cut-off costs no step; a look-up visits only candidates of a near length")
    func lookUpWork() {
        let budget = SuggestionBudget()
        // Five candidates of each length from 2 to 201 ("n0", "n1x", …).
        let candidates = (0..<1000).map { "n\($0 / 200)" + String(repeating: "x", count: $0 % 200) }
        let index = SuggestionIndex(candidates, budget: budget)
        #expect(index.closest(to: String(repeating: "q", count: 10_000)) == nil)
        #expect(budget.spent == 0)
        #expect(index.closest(to: "m0xxxxxx") == "n0xxxxxx")
        // Eight letters allow a distance of 2: lengths 6 to 10, five candidates each, at most
        // five cells a row for eight rows.
        let visited = 5 * 5
        #expect(budget.spent >= visited)
        #expect(budget.spent <= visited * (1 + 5 * 8))
        let spent = budget.spent
        #expect(index.closest(to: "m0xxxxxx") == "n0xxxxxx")
        #expect(budget.spent == spent, "a repeated look-up is answered from memory")
    }

    @Test("A hostile schema: every misspelling is reported with the right suggestion, within the budget")
    func hostileSchemaWithinBudget() {
        let (text, misspellings) = Self.hostileSchema(entities: 300)
        let loaded = Schema.validate(bytes: Array(text.utf8), file: "hostile.yaml")
        let undefined = loaded.diagnostics.filter { $0.message.contains("refers to undefined entity") }
        #expect(undefined.count == misspellings.count)
        for (diagnostic, misspelling) in zip(undefined, misspellings) {
            #expect(diagnostic.message == "relationship 'r' refers to undefined entity '\(misspelling.wrong)' (did you mean '\(misspelling.right)'?)")
        }
        #expect(loaded.suggestionSteps > 0)
        #expect(loaded.suggestionSteps < SuggestionBudget.defaultLimit)
        #expect(!loaded.diagnostics.contains { $0.message.contains("suggestions stopped") })
    }

    @Test("When the budget runs out, every error is still reported, and one warning says suggestions stopped")
    func budgetRunsOut() {
        let (text, misspellings) = Self.hostileSchema(entities: 300)
        var options = SchemaValidationOptions()
        options.suggestionLimit = 50_000
        let loaded = Schema.validate(bytes: Array(text.utf8), file: "hostile.yaml", options: options)
        let undefined = loaded.diagnostics.filter { $0.message.contains("refers to undefined entity") }
        #expect(undefined.count == misspellings.count)
        let suggested = undefined.filter { $0.message.contains("did you mean") }.count
        #expect(suggested > 0 && suggested < misspellings.count)
        #expect(loaded.suggestionSteps == 50_000)
        let stopped = loaded.diagnostics.filter { $0.message.hasPrefix("'did you mean' suggestions stopped after 50000 steps") }
        #expect(stopped.count == 1)
        #expect(stopped.first?.message.contains("\(misspellings.count - suggested) unknown names got none") == true, "\(stopped)")
        #expect(stopped.first?.severity == .warning)
    }

    @Test("A cancelled validation stops early and says so")
    func cancellation() {
        let (text, _) = Self.hostileSchema(entities: 50)
        var options = SchemaValidationOptions()
        options.cancellation = ValidationCancellation()
        options.cancellation?.cancel()
        let loaded = Schema.validate(bytes: Array(text.utf8), file: "hostile.yaml", options: options)
        #expect(loaded.wasCancelled)
        #expect(loaded.schema == nil)
        #expect(loaded.suggestionSteps == 0)
        #expect(!Schema.validate(bytes: Array(text.utf8), file: "hostile.yaml").wasCancelled)
    }

    @Test("Ambiguous responses name the latest earlier overlapping one, found per method, path and key path")
    func ambiguousResponses() {
        let text = """
            restmap: 1
            entities:
              User:
                attributes: { id: id }
            responses:
              - { method: GET, path: /users, entity: User, status: 200 }
              - { method: GET, path: /users, entity: User, status: 404 }
              - { method: POST, path: /users, entity: User, status: 200 }
              - { method: GET, path: /users, entity: User, status: [201, 2xx] }
              - { method: GET, path: /people, entity: User }

            """
        let loaded = Schema.validate(bytes: Array(text.utf8), file: "responses.yaml")
        let ambiguous = loaded.diagnostics.filter { $0.message.hasPrefix("response descriptor is ambiguous") }
        #expect(ambiguous.map(\.location.line) == [9])
        #expect(ambiguous.first?.message.contains("with the one at line 6") == true)
    }

    @Test("Matchers: cases of 'by' are never compared pairwise; a long 'match' list is compared within a limit")
    func matcherShadowing() {
        var cases = "restmap: 1\nentities:\n  Item:\n    dynamic:\n      by: kind\n      cases:\n"
        for index in 0..<5000 { cases += "        k\(index): Item\n" }
        let byCases = Schema.validate(bytes: Array(cases.utf8), file: "cases.yaml")
        #expect(!byCases.diagnostics.contains { $0.message.contains("matcher") }, "\(byCases.diagnostics.prefix(3))")

        var match = "restmap: 1\nentities:\n  Item:\n    dynamic:\n      match:\n"
        match += "        - { when: { kind: a }, entity: Item }\n        - { when: { kind: a }, entity: Item }\n"
        for index in 0..<1500 { match += "        - { when: { kind: v\(index) }, entity: Item }\n" }
        let list = Schema.validate(bytes: Array(match.utf8), file: "match.yaml")
        let never = list.diagnostics.filter { $0.message.hasPrefix("this matcher can never match") }
        #expect(never.map(\.location.line) == [7])
        let unchecked = list.diagnostics.filter { $0.message.hasPrefix("matchers from here on were not checked") }
        #expect(unchecked.count == 1)
        #expect(unchecked.first?.message.contains("\(SemanticChecks.shadowCheckLimit) pairs") == true)
    }
}
