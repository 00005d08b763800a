/// Reports of schema test runs: text for people and editors, JUnit XML for CI systems.
public enum SchemaTestReport {
    /// One line per case (`PASS`/`FAIL FILE:LINE:COLUMN name`), each failure as
    /// `FILE:LINE:COLUMN: error: MESSAGE: expected X, found Y` under its case.
    public static func text(_ results: [SchemaTestFileResult]) -> String {
        var lines: [String] = []
        for file in results {
            for failure in file.fileFailures { lines.append(failure.description) }
            for testCase in file.cases {
                lines.append("\(testCase.passed ? "PASS" : "FAIL") \(testCase.location) \(testCase.name)")
                for failure in testCase.failures { lines.append("  " + failure.description) }
            }
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// `12 cases, 1 failed in 3 files`.
    public static func summary(_ results: [SchemaTestFileResult]) -> String {
        let cases = results.reduce(0) { $0 + $1.cases.count }
        let failed = results.reduce(0) { $0 + $1.cases.count { !$0.passed } }
        let brokenFiles = results.count { !$0.fileFailures.isEmpty }
        var text = "\(cases) case\(cases == 1 ? "" : "s"), \(failed) failed in \(results.count) file\(results.count == 1 ? "" : "s")"
        if brokenFiles > 0 { text += ", \(brokenFiles) file\(brokenFiles == 1 ? "" : "s") with errors" }
        return text
    }

    /// JUnit XML: a `<testsuite>` per file, a `<testcase>` per case (a file's own problems are a
    /// `<testcase name="(file)">`), notes and divergences in `<system-out>`.
    public static func junit(_ results: [SchemaTestFileResult]) -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let total = results.reduce(0) { $0 + $1.cases.count + ($1.fileFailures.isEmpty ? 0 : 1) }
        let failedTotal = results.reduce(0) { $0 + $1.cases.count { !$0.passed } + ($1.fileFailures.isEmpty ? 0 : 1) }
        xml += "<testsuites name=\"restmap test\" tests=\"\(total)\" failures=\"\(failedTotal)\">\n"
        for file in results {
            let failed = file.cases.count { !$0.passed } + (file.fileFailures.isEmpty ? 0 : 1)
            let tests = file.cases.count + (file.fileFailures.isEmpty ? 0 : 1)
            xml += "  <testsuite name=\"\(escape(file.file))\" tests=\"\(tests)\" failures=\"\(failed)\">\n"
            if !file.fileFailures.isEmpty {
                xml += testCase(name: "(file)", file: file.file, failures: file.fileFailures, output: nil)
            }
            for item in file.cases {
                let output = [item.notes.map { "notes: \($0)" }, item.divergence.map { "divergence: \($0)" }]
                    .compactMap { $0 }.joined(separator: "\n")
                xml += testCase(name: item.name, file: "\(item.location)", failures: item.failures, output: output.isEmpty ? nil : output)
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    private static func testCase(name: String, file: String, failures: [SchemaTestFailure], output: String?) -> String {
        var xml = "    <testcase name=\"\(escape(name))\" classname=\"\(escape(file))\""
        if failures.isEmpty && output == nil { return xml + "/>\n" }
        xml += ">\n"
        if let first = failures.first {
            xml += "      <failure message=\"\(escape(first.detail))\">"
            xml += escape(failures.map(\.description).joined(separator: "\n")) + "</failure>\n"
        }
        if let output { xml += "      <system-out>\(escape(output))</system-out>\n" }
        return xml + "    </testcase>\n"
    }

    private static func escape(_ text: String) -> String {
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            default:
                // XML 1.0 cannot hold most control characters, even escaped.
                if character.value < 0x20 && character != "\t" && character != "\r" { result += "?" } else { result.unicodeScalars.append(character) }
            }
        }
        return result
    }
}
