import Foundation
import RestMapSchema

/// Paths of the repository and of this target's fixtures.
enum Paths {
    /// The repository root (three levels above this file).
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("Tests/RestMapSchemaTests/Fixtures")
    static let broken = fixtures.appendingPathComponent("Broken")
    static let valid = fixtures.appendingPathComponent("Valid")
    static let committedJSONSchema = repository.appendingPathComponent("Schemas/restmap.schema.json")
    /// The example schemas of the seed stories.
    static let examples = files(in: repository.appendingPathComponent("Schemas"))
        .filter { $0.hasSuffix(".yaml") }
        .map { repository.appendingPathComponent("Schemas/\($0)").path }

    /// The file names in a fixture folder, sorted.
    static func files(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }
}

/// A broken-schema fixture: its first line says which diagnostic it must produce,
/// `# expect: LINE:COLUMN error|warning: MESSAGE-SUBSTRING`; a second line
/// `# json-schema: rejects` says the JSON Schema export sees the defect too.
struct BrokenFixture: Sendable, CustomStringConvertible {
    var name: String
    var line: Int
    var column: Int
    var severity: Diagnostic.Severity
    var message: String
    var jsonSchemaRejects: Bool

    var path: String { Paths.broken.appendingPathComponent(name).path }
    var description: String { name }

    /// Every fixture of `Fixtures/Broken`; a fixture whose header does not parse has line 0.
    static let all: [BrokenFixture] = Paths.files(in: Paths.broken).map(parse)

    static func parse(_ name: String) -> BrokenFixture {
        let text = (try? String(contentsOf: Paths.broken.appendingPathComponent(name), encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        var fixture = BrokenFixture(name: name, line: 0, column: 0, severity: .error, message: "",
                                    jsonSchemaRejects: lines.count > 1 && lines[1] == "# json-schema: rejects")
        let header = lines.first.map(String.init) ?? ""
        guard let match = header.wholeMatch(of: /# expect: (\d+):(\d+) (error|warning): (.+)/) else { return fixture }
        fixture.line = Int(match.1)!
        fixture.column = Int(match.2)!
        fixture.severity = Diagnostic.Severity(rawValue: String(match.3))!
        fixture.message = String(match.4)
        return fixture
    }
}

/// A deterministic pseudo-random generator (SplitMix64) for reproducible garbage.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A file in a fresh temporary folder, removed by `remove()`.
struct TemporaryFile {
    let folder: URL
    let url: URL

    init(named name: String, bytes: [UInt8]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
