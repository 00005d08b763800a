import RestMapSchema

/// One expectation that did not hold, at the position of the expectation in the test file.
public struct SchemaTestFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var location: SourceLocation
    /// What was checked and what went wrong.
    public var message: String
    /// The expected value as text, when the failure compares values.
    public var expected: String?
    /// The actual value as text, when the failure compares values.
    public var actual: String?

    public init(at location: SourceLocation, _ message: String, expected: String? = nil, actual: String? = nil) {
        self.location = location
        self.message = message
        self.expected = expected
        self.actual = actual
    }

    /// `message: expected X, found Y`.
    public var detail: String {
        guard let expected, let actual else { return message }
        return "\(message): expected \(expected), found \(actual)"
    }

    /// `FILE:LINE:COLUMN: error: message: expected X, found Y`.
    public var description: String { "\(location): error: \(detail)" }
}

/// The outcome of one test case.
public struct SchemaTestCaseResult: Sendable {
    public var name: String
    public var location: SourceLocation
    public var notes: String?
    public var divergence: String?
    public var tags: [String]
    public var failures: [SchemaTestFailure]
    public var passed: Bool { failures.isEmpty }
}

/// The outcome of one test file: its cases, and problems of the file itself (syntax, grammar,
/// an unexpected schema diagnostic), which fail the file.
public struct SchemaTestFileResult: Sendable {
    public var file: String
    public var fileFailures: [SchemaTestFailure]
    public var cases: [SchemaTestCaseResult]
    public var passed: Bool { fileFailures.isEmpty && cases.allSatisfy(\.passed) }
}
