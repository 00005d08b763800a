import FoundationEssentials
import RestMap
import RestMapJSON
import RestMapPluginLoader
import RestMapPlugins
import RestMapSchema

/// Runs schema test files (`restmap test`): RestKit's `RKMappingTest` as data.
///
/// A test file names a schema and cases; each case maps a response with the schema and checks
/// expectations. Every failure is reported at the position of the expectation that failed.
public struct SchemaTestRunner: Sendable {
    /// Extra plugin directories (`--plugin-path`), searched after the schema's folder.
    public var pluginPaths: [String]
    /// When not empty, only cases with one of these tags run.
    public var tags: Set<String>

    public init(pluginPaths: [String] = [], tags: Set<String> = []) {
        self.pluginPaths = pluginPaths
        self.tags = tags
    }

    /// Loads, checks and runs one test file.
    public func run(file path: String) -> SchemaTestFileResult {
        var result = SchemaTestFileResult(file: path, fileFailures: [], cases: [])
        let loaded = SchemaLoader().load(contentsOf: path)
        result.fileFailures = loaded.diagnostics.filter { $0.severity == .error }.map { SchemaTestFailure(at: $0.location, $0.message) }
        guard let root = loaded.root, result.fileFailures.isEmpty else { return result }
        result.fileFailures = SchemaTestGrammar.file.diagnostics(for: root, context: "the test file")
            .map { SchemaTestFailure(at: $0.location, $0.message) }
        if let version = root["restmapTest"], let value = version.intValue, !SchemaTestGrammar.supportedVersions.contains(value) {
            result.fileFailures.append(SchemaTestFailure(at: version.location, "unsupported test-file version \(value); this restmap reads version 1"))
        }
        if root["cases"]?.sequence?.isEmpty ?? true, root["schemaDiagnostics"] == nil {
            result.fileFailures.append(SchemaTestFailure(at: root.location, "the test file has no cases and no schemaDiagnostics: it checks nothing"))
        }
        guard result.fileFailures.isEmpty else { return result }

        let directory = FilePaths.directory(of: path)
        var context = FileContext(testFile: path, directory: directory.isEmpty ? "." : directory,
                                  pluginPaths: (root["pluginPaths"]?.sequence ?? []).compactMap(\.scalarText) + pluginPaths)
        if let expected = root["schemaDiagnostics"]?.sequence {
            guard let reference = root["schema"] else {
                result.fileFailures.append(SchemaTestFailure(at: root.location, "'schemaDiagnostics' needs a file-level 'schema'"))
                return result
            }
            if let missing = context.missingSchema(reference) {
                result.fileFailures.append(missing)
                return result
            }
            result.fileFailures += DiagnosticExpectations.check(expected, actual: context.schema(reference).diagnostics)
        }
        for node in root["cases"]?.sequence ?? [] {
            let caseTags = (node["tags"]?.sequence ?? []).compactMap(\.scalarText)
            guard tags.isEmpty || !tags.isDisjoint(with: caseTags) else { continue }
            var testCase = SchemaTestCaseResult(
                name: node["name"]?.scalarText ?? "", location: node.location, notes: node["notes"]?.scalarText,
                divergence: node["divergence"]?.scalarText, tags: caseTags, failures: [])
            testCase.failures = runCase(node, schema: node["schema"] ?? root["schema"], context: &context)
            result.cases.append(testCase)
        }
        return result
    }

    // MARK: Cases

    private func runCase(_ node: SchemaNode, schema reference: SchemaNode?, context: inout FileContext) -> [SchemaTestFailure] {
        guard let reference else {
            return [SchemaTestFailure(at: node.location, "the case has no schema: give 'schema' in the file or in the case")]
        }
        if let missing = context.missingSchema(reference) { return [missing] }
        let prepared = context.schema(reference)
        guard let schema = prepared.schema else {
            return prepared.diagnostics.filter { $0.severity == .error }
                .map { SchemaTestFailure(at: $0.location, "the schema does not load: \($0.message)") }
        }
        let mapper: Mapper
        do { mapper = try Mapper(schema: schema, plugins: prepared.plugins) } catch {
            return [SchemaTestFailure(at: error.location ?? reference.location, "the schema does not compile: \(error.message)")]
        }
        let response: Response
        do { response = try makeResponse(node, directory: context.directory) } catch {
            return [error]
        }
        let expect = node["expect"]!
        var checker = ExpectationChecker(mapper: mapper)
        do {
            let result = try mapper.map(response, options: MappingOptions(strict: node["strict"]?.boolValue ?? false))
            if let failure = expect["failure"] {
                checker.fail(at: failure.location, "expected the mapping to fail", expected: "a failure", actual: "\(result.records.count) root record(s)")
            }
            checker.check(result, expect)
        } catch {
            if let failure = expect["failure"] {
                checker.check(error, failure)
            } else {
                checker.fail(at: expect.location, "the mapping failed: \(error)")
            }
        }
        return checker.failures
    }

    private func makeResponse(_ node: SchemaNode, directory: String) throws(SchemaTestFailure) -> Response {
        let bodySources = ["body", "bodyFile", "bodyText"].filter { node[$0] != nil }
        if bodySources.count > 1 {
            throw SchemaTestFailure(at: node.location, "give one of 'body', 'bodyFile' and 'bodyText', found \(bodySources.joined(separator: ", "))")
        }
        var body: [UInt8] = []
        var headers = Dictionary(textPairs: node["headers"])
        if let inline = node["body"] {
            body = ExpectedValue.json(inline)
        } else if let text = node["bodyText"]?.scalarText {
            body = Array(text.utf8)
        } else if let fileNode = node["bodyFile"], let file = fileNode.scalarText {
            let path = FileContext.resolve(file, in: directory)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw SchemaTestFailure(at: fileNode.textLocation, "cannot read the body file '\(path)'")
            }
            body = Array(data)
            if let implied = BodyMediaType.implied(byExtensionOf: path),
               !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
                headers["Content-Type"] = implied
            }
        }
        return Response(method: node["method"]?.scalarText ?? "GET", path: node["path"]?.scalarText ?? "/",
                        status: node["status"]?.intValue ?? 200, headers: headers, body: body,
                        parameters: Dictionary(textPairs: node["params"]),
                        userMetadata: node["metadata"].map(ExpectedValue.value) ?? .object([]))
    }
}

/// Schemas of one test file, prepared once per reference.
private struct FileContext {
    var testFile: String
    var directory: String
    var pluginPaths: [String]
    var cache: [SourceLocation: LoadedSchema] = [:]

    init(testFile: String, directory: String, pluginPaths: [String]) {
        self.testFile = testFile
        self.directory = directory
        self.pluginPaths = pluginPaths.map { Self.resolve($0, in: directory) }
    }

    /// A schema path that names no file, reported at the reference in the test file.
    func missingSchema(_ reference: SchemaNode) -> SchemaTestFailure? {
        guard let path = reference.scalarText.map(resolve), !FileManager.default.fileExists(atPath: path) else { return nil }
        return SchemaTestFailure(at: reference.textLocation, "no schema file at '\(path)'")
    }

    /// A path relative to the test file's folder (absolute paths as they are).
    func resolve(_ path: String) -> String {
        Self.resolve(path, in: directory)
    }

    static func resolve(_ path: String, in directory: String) -> String {
        path.hasPrefix("/") ? path : directory + "/" + path
    }

    mutating func schema(_ reference: SchemaNode) -> LoadedSchema {
        if let cached = cache[reference.location] { return cached }
        let options = SchemaLoadOptions(pluginProvider: PluginSearchPath(schemaDirectory: nil, pluginPaths: pluginPaths))
        let prepared: LoadedSchema
        if let path = reference.scalarText {
            prepared = Schema.load(contentsOf: resolve(path), options: options)
        } else {
            // An inline schema keeps the test file's positions; its plugins come from the plugin paths.
            prepared = Schema.load(SchemaDocument(root: reference, diagnostics: []), file: testFile, options: options)
        }
        cache[reference.location] = prepared
        return prepared
    }
}

extension Dictionary where Key == String, Value == String {
    /// The text pairs of a `name: value` mapping node.
    init(textPairs node: SchemaNode?) {
        self.init()
        for pair in node?.mapping ?? [] {
            if let key = pair.key.scalarText, let value = pair.value.scalarText { self[key] = value }
        }
    }
}

/// Checks expected schema diagnostics against the actual ones: exactly these, in position order.
enum DiagnosticExpectations {
    static func check(_ expected: [SchemaNode], actual: [Diagnostic]) -> [SchemaTestFailure] {
        var failures: [SchemaTestFailure] = []
        var remaining = actual
        for node in expected {
            guard let index = remaining.firstIndex(where: { matches(node, $0) }) else {
                failures.append(SchemaTestFailure(at: node.location, "expected schema diagnostic not produced",
                                                  expected: describe(node), actual: actual.isEmpty ? "no diagnostics" : actual.map(\.description).joined(separator: "; ")))
                continue
            }
            remaining.remove(at: index)
        }
        for diagnostic in remaining {
            failures.append(SchemaTestFailure(at: expected.first?.location ?? diagnostic.location,
                                              "unexpected schema diagnostic", expected: "none", actual: diagnostic.description))
        }
        return failures
    }

    private static func matches(_ node: SchemaNode, _ diagnostic: Diagnostic) -> Bool {
        if let severity = node["severity"]?.scalarText, severity != diagnostic.severity.rawValue { return false }
        if let line = node["line"]?.intValue, line != diagnostic.location.line { return false }
        if let column = node["column"]?.intValue, column != diagnostic.location.column { return false }
        return MessageExpectation.matches(node, diagnostic.message)
    }

    private static func describe(_ node: SchemaNode) -> String {
        var parts: [String] = []
        if let line = node["line"]?.intValue { parts.append("\(line):\(node["column"]?.intValue.map(String.init) ?? "*")") }
        if let severity = node["severity"]?.scalarText { parts.append(severity) }
        parts.append(MessageExpectation.describe(node))
        return parts.joined(separator: " ")
    }
}

/// `message` (exact) and `messageContains` keys of an expectation.
enum MessageExpectation {
    static func matches(_ node: SchemaNode, _ message: String) -> Bool {
        if let exact = node["message"]?.scalarText, exact != message { return false }
        if let part = node["messageContains"]?.scalarText, !message.contains(part) { return false }
        return true
    }

    static func describe(_ node: SchemaNode) -> String {
        if let exact = node["message"]?.scalarText { return "\"\(exact)\"" }
        if let part = node["messageContains"]?.scalarText { return "a message containing \"\(part)\"" }
        return "any message"
    }
}
