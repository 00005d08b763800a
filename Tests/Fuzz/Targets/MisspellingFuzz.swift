// libFuzzer target: "did you mean" suggestions of the validator (compiled with Sources/RestMapSchema,
// linked with the CLibYAML objects of the debug build). The input picks entity names and
// misspelled references to them (substitutions, insertions, deletions, transpositions, case
// changes); the schema built from them is validated, and every suggestion is checked against a
// brute-force search with the full edit distance: the bounded search must find the same name,
// every undefined reference must be reported, and suggestions never take more than the budget.

/// Reads the fuzz input a byte at a time (zeros once it is used up).
struct FuzzBytes {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func next() -> Int {
        defer { index += 1 }
        return index < bytes.count ? Int(bytes[index]) : 0
    }

    var isEmpty: Bool { index >= bytes.count }
}

/// Letters of the names: ASCII in both cases, digits, and letters whose lowercase form differs in
/// length ("İ") or that are several scalars ("é" as e + combining acute).
let alphabet: [String] = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_").map(String.init)
    + ["é", "e\u{301}", "İ", "ß", "Σ", "σ", "ς", "日"]

func makeName(_ input: inout FuzzBytes) -> String {
    let length = 1 + input.next() % 160  // past Suggestions.maximumNameLength now and then
    var name = "E"
    for _ in 0..<length { name += alphabet[input.next() % alphabet.count] }
    return name
}

func misspell(_ name: String, _ input: inout FuzzBytes) -> String {
    var letters = name.unicodeScalars.map(String.init)
    for _ in 0..<(input.next() % 5) {
        let position = letters.isEmpty ? 0 : input.next() % letters.count
        switch input.next() % 5 {
        case 0 where !letters.isEmpty: letters[position] = alphabet[input.next() % alphabet.count]
        case 1: letters.insert(alphabet[input.next() % alphabet.count], at: position)
        case 2 where letters.count > 1: letters.remove(at: position)
        case 3 where position + 1 < letters.count: letters.swapAt(position, position + 1)
        default: if !letters.isEmpty { letters[position] = letters[position].uppercased() }
        }
    }
    return letters.joined()
}

/// What `SuggestionIndex` must answer: the first of the closest candidates by the full distance.
func bruteForceSuggestion(for name: String, among candidates: [String]) -> String? {
    let scalars = name.lowercased().unicodeScalars.count
    guard scalars > 0, scalars <= Suggestions.maximumNameLength else { return nil }
    var best: (name: String, distance: Int)?
    for candidate in candidates {
        let distance = Suggestions.editDistance(name.lowercased(), candidate.lowercased())
        if distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    guard let best, best.distance <= Suggestions.allowedDistance(forLength: name.unicodeScalars.count) else { return nil }
    return best.name
}

extension String.UTF8View {
    /// Whether these bytes hold `needle` exactly (no Unicode equivalence).
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        let bytes = Array(self)
        guard needle.count <= bytes.count else { return false }
        return (0...(bytes.count - needle.count)).contains { start in bytes[start..<start + needle.count].elementsEqual(needle) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMisspellings(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzBytes(bytes: UnsafeBufferPointer(start: data, count: size))
    var names: [String] = []
    for _ in 0..<(1 + input.next() % 12) {
        let name = makeName(&input)
        if !names.contains(name) { names.append(name) }
    }
    var references: [String] = []
    while !input.isEmpty, references.count < 24 {
        references.append(misspell(names[input.next() % names.count], &input))
    }
    let limit = input.next() % 2 == 0 ? SuggestionBudget.defaultLimit : 1 + input.next() * 16
    var yaml = "restmap: 1\nentities:\n"
    for (index, name) in names.enumerated() {
        yaml += "  \"\(name)\":\n    attributes: { id: id }\n    relationships:\n"
        for (number, reference) in references.enumerated() where number % names.count == index {
            yaml += "      r\(number): { entity: \"\(reference)\" }\n"
        }
    }
    var options = SchemaValidationOptions()
    options.suggestionLimit = limit
    let loaded = Schema.validate(bytes: Array(yaml.utf8), file: "fuzz.yaml", options: options)

    precondition(loaded.suggestionSteps <= limit, "suggestions took \(loaded.suggestionSteps) steps, over the limit \(limit)")
    let exhausted = loaded.diagnostics.contains { $0.message.hasPrefix("'did you mean' suggestions stopped") }
    // References by their scalars, as the distance counts them: String holds "é" and "e" + U+0301
    // equal, so neither a Set of them nor `contains` may stand for the comparison.
    var checked = Set<[Unicode.Scalar]>()
    for reference in references where !names.contains(reference) && checked.insert(Array(reference.unicodeScalars)).inserted {
        let prefix = "relationship 'r"
        let reports = loaded.diagnostics.filter {
            $0.message.hasPrefix(prefix) && $0.message.utf8.containsSubsequence(Array("refers to undefined entity '\(reference)'".utf8))
        }
        precondition(!reports.isEmpty, "undefined entity '\(reference)' is not reported")
        let expected = bruteForceSuggestion(for: reference, among: names)
        for report in reports {
            let marker = "(did you mean '"
            let suggested = report.message.firstRange(of: marker).map { range in
                String(report.message[range.upperBound...].dropLast("'?)".count))
            }
            if exhausted && suggested == nil { continue }  // the budget ran out before this one
            precondition(suggested == expected,
                         "for '\(reference)' the validator suggests \(suggested ?? "nothing"), the full search \(expected ?? "nothing")")
        }
    }
    return 0
}
