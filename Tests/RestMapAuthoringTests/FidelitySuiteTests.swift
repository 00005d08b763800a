import Foundation
import RestMapAuthoring
import Testing

/// The RestKit fidelity suite (issue 14): cases translated from RestKit's own tests, written as
/// schema tests under `Tests/Fidelity/` and run here through the `restmap test` runner, so
/// `swift test` checks them as `.ci/run` does. Docs/RestKit.md lists the suite and its divergences.
@Suite("The RestKit fidelity suite")
struct FidelitySuiteTests {
    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: Repository.path("Tests/Fidelity"))) ?? [])
        .filter { $0.hasSuffix(".yaml") }.sorted()

    static func run(_ name: String) -> SchemaTestFileResult {
        SchemaTestRunner().run(file: Repository.path("Tests/Fidelity/\(name)"))
    }

    @Test("Every case passes and names the RestKit test or issue it comes from", arguments: files)
    func fidelityFile(_ name: String) {
        let result = Self.run(name)
        #expect(result.fileFailures.isEmpty, "\(result.fileFailures)")
        #expect(!result.cases.isEmpty)
        for testCase in result.cases {
            #expect(testCase.passed, "\(testCase.name): \(testCase.failures.map(\.description))")
            let source = testCase.notes ?? ""
            #expect(source.contains("RK") || source.contains("RestKit issue"), "\(testCase.name): the notes name its RestKit source")
        }
    }

    @Test("At least 80 cases, and every divergence is listed in the porting guide")
    func countAndDivergences() throws {
        let cases = Self.files.flatMap { Self.run($0).cases }
        #expect(cases.count >= 80)
        let divergences = cases.filter { $0.divergence != nil }
        #expect(!divergences.isEmpty)
        let guide = try String(contentsOf: Repository.root.appendingPathComponent("Docs/RestKit.md"), encoding: .utf8)
        for testCase in divergences {
            #expect(guide.contains(testCase.name), "Docs/RestKit.md lists the divergence '\(testCase.name)'")
        }
    }
}
