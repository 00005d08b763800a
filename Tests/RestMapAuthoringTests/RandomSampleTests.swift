import Foundation
@testable import RestMapAuthoring
import Testing

/// Drafts from random samples (seeded, so a failure repeats): awkward keys, every kind of value,
/// nesting, mixed lists. Every draft must validate clean and map its sample with nothing unmapped.
@Suite("restmap init: random samples")
struct RandomSampleTests {
    /// A small deterministic generator (SplitMix64).
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let keys = ["id", "a b", "x:y", "#hash", "- dash", "@id", "@type", "$oid", "LUPO.API.Log", "true", "null", "123",
                       "ünï", "q\"uote", "back\\slash", "tab\tkey", "emoji😀", "user_id", "created_at", "url", " lead",
                       "trail ", "a: b", "[x]", "{y}", "*star", "&amp", "!bang", "%pct", "`tick`", "'sq'", "yes", "on"]
    static let scalars = [#"1"#, #"2.5"#, #"-3"#, #"1e20"#, #""s""#, #""2013-03-13T18:10:21Z""#, #""http://x.org/a""#, "true",
                          "null", #""Wed, 13 Mar 2013 18:10:21 GMT""#, "69726278940360707", #""with\nnewline""#, #""\u0085x""#]

    static func value(depth: Int, _ random: inout Generator) -> String {
        let roll = Int.random(in: 0..<4, using: &random)
        if depth > 3 || roll < 2 { return scalars.randomElement(using: &random)! }
        if roll == 2 { return object(depth: depth + 1, &random) }
        return "[" + (0..<Int.random(in: 0...3, using: &random)).map { _ in value(depth: depth + 1, &random) }.joined(separator: ",") + "]"
    }

    static func object(depth: Int, _ random: inout Generator) -> String {
        var members: [String: String] = [:]
        for _ in 0..<Int.random(in: 1...5, using: &random) {
            members[keys.randomElement(using: &random)!] = value(depth: depth, &random)
        }
        let text = members.sorted { $0.key < $1.key }.map { key, value in
            String(decoding: try! JSONSerialization.data(withJSONObject: key, options: .fragmentsAllowed), as: UTF8.self) + ":" + value
        }
        return "{" + text.joined(separator: ",") + "}"
    }

    @Test("Random samples draft clean schemas that map them", arguments: 0..<40)
    func random(_ seed: Int) throws {
        var random = Generator(state: UInt64(seed))
        let body = "[" + (0..<Int.random(in: 1...3, using: &random)).map { _ in Self.object(depth: 0, &random) }.joined(separator: ",") + "]"
        let inference = SchemaInference(options: .init(path: "/things"))
        try inference.add(sample: Array(body.utf8), file: "random-\(seed).json")
        let draft = inference.draft()
        #expect(draft.diagnostics.isEmpty, "\(body)\n\(draft.diagnostics)\n\(draft.yaml)")
    }
}
