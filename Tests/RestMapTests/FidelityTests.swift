import Foundation
import RestMap
import RestMapJSON
import RestMapPlugins
import RestMapSchema
import Testing

/// The RestKit fidelity suite: cases translated from RestKit's own tests, written as schema tests
/// (`restmap test` files, Docs/Authoring.md) under `Tests/Fidelity/`, run here through `Mapper` so
/// `swift test` checks them. Docs/RestKit.md lists the suite and its divergences.
@Suite struct FidelityTests {
    static let folder = Fixture.root.appendingPathComponent("Tests/Fidelity")

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
    }

    @Test(arguments: files) func fidelityFile(_ name: String) throws {
        let loaded = SchemaLoader().load(contentsOf: Self.folder.appendingPathComponent(name).path)
        let root = try #require(loaded.root, "\(name): \(loaded.diagnostics)")
        let cases = root["cases"]?.sequence ?? []
        #expect(!cases.isEmpty)
        for node in cases {
            let name = node["name"]?.scalarText ?? "?"
            let source = node["notes"]?.scalarText ?? ""
            #expect(source.contains("RK") || source.contains("RestKit issue"), "\(name): the notes name the RestKit test or issue it comes from")
            var fidelityCase = try FidelityCase(node: node, fileSchema: root["schema"])
            for failure in fidelityCase.run() {
                Issue.record("\(name) (line \(node.location.line)): \(failure)")
            }
        }
    }

    @Test func theSuiteHasAtLeastEightyCases() throws {
        var count = 0
        var divergences = 0
        for name in Self.files {
            let root = try #require(SchemaLoader().load(contentsOf: Self.folder.appendingPathComponent(name).path).root)
            for node in root["cases"]?.sequence ?? [] {
                count += 1
                if node["divergence"] != nil { divergences += 1 }
            }
        }
        #expect(count >= 80)
        // Every divergence is listed in the porting guide.
        let guide = try String(contentsOf: Fixture.root.appendingPathComponent("Docs/RestKit.md"), encoding: .utf8)
        for name in Self.files {
            let root = try #require(SchemaLoader().load(contentsOf: Self.folder.appendingPathComponent(name).path).root)
            for node in root["cases"]?.sequence ?? [] where node["divergence"] != nil {
                let caseName = node["name"]?.scalarText ?? ""
                #expect(guide.contains(caseName), "Docs/RestKit.md lists the divergence '\(caseName)'")
            }
        }
        #expect(divergences > 0)
    }
}

/// One case of a schema test file, checked with the subset of the `restmap test` format the
/// fidelity suite uses (the same meaning as Docs/Authoring.md gives it).
struct FidelityCase {
    let node: SchemaNode
    let mapper: Mapper
    var failures: [String] = []

    init(node: SchemaNode, fileSchema: SchemaNode?) throws {
        self.node = node
        let reference = try #require(node["schema"] ?? fileSchema, "a case needs a schema")
        var registry = PluginRegistry()
        for plugin in reference["plugins"]?.sequence ?? [] {
            _ = try registry.load(named: plugin.scalarText ?? "", searchPath: PluginSearchPath(schemaDirectory: nil, pluginPaths: []))
        }
        let loaded = Schema.validate(SchemaLoader.Loaded(root: reference, diagnostics: []), file: "fidelity")
        let schema = try #require(loaded.schema, "\(loaded.diagnostics)")
        mapper = try Mapper(schema: schema, plugins: registry)
    }

    mutating func run() -> [String] {
        let expect = node["expect"]!
        var body: [UInt8] = []
        if let inline = node["body"] { body = Array(JSONText.string(from: FidelityValues.value(inline)).utf8) }
        if let text = node["bodyText"]?.scalarText { body = Array(text.utf8) }
        var headers: [String: String] = [:]
        for pair in node["headers"]?.mapping ?? [] { headers[pair.key.scalarText ?? ""] = pair.value.scalarText }
        var parameters: [String: String] = [:]
        for pair in node["params"]?.mapping ?? [] { parameters[pair.key.scalarText ?? ""] = pair.value.scalarText }
        let response = Response(method: node["method"]?.scalarText ?? "GET", path: node["path"]?.scalarText ?? "/",
                                status: node["status"]?.intValue ?? 200, headers: headers, body: body, parameters: parameters,
                                userMetadata: node["metadata"].map(FidelityValues.value) ?? .object([]))
        do {
            let result = try mapper.map(response, options: MappingOptions(strict: node["strict"]?.boolValue ?? false))
            if expect["failure"] != nil { failures.append("expected the mapping to fail, got \(result.records.count) root record(s)") }
            check(result, expect)
        } catch {
            guard let failure = expect["failure"] else {
                failures.append("the mapping failed: \(error)")
                return failures
            }
            check(error, failure)
        }
        return failures
    }

    mutating func check(_ error: MappingFailure, _ expected: SchemaNode) {
        let kind: String = switch error {
        case .malformedBody: "malformedBody"
        case .undecodableBody: "undecodableBody"
        case .noResponseDescriptor: "noResponseDescriptor"
        case .noMappableRepresentations: "noMappableRepresentations"
        case .errorResponse: "errorResponse"
        case .unprocessableErrorResponse: "unprocessableErrorResponse"
        case .invalidRecords: "invalidRecords"
        }
        if let wanted = expected["kind"]?.scalarText, wanted != kind { failures.append("failure kind: expected \(wanted), got \(kind) (\(error))") }
        if !Self.matchesMessage(expected, error.description) { failures.append("failure message: got \(error.description)") }
        if case .errorResponse(let status, _, let messages) = error {
            if let wanted = expected["status"]?.intValue, wanted != status { failures.append("status: expected \(wanted), got \(status)") }
            if let wanted = expected["messages"]?.sequence?.compactMap(\.scalarText), wanted != messages.map(\.message) {
                failures.append("messages: expected \(wanted), got \(messages.map(\.message))")
            }
        }
    }

    static func matchesMessage(_ node: SchemaNode, _ message: String) -> Bool {
        if let exact = node["message"]?.scalarText, exact != message { return false }
        if let part = node["messageContains"]?.scalarText, !message.contains(part) { return false }
        return true
    }

    mutating func check(_ result: MappingResult, _ expect: SchemaNode) {
        if let count = expect["roots"]?.intValue, count != result.records.count {
            failures.append("roots: expected \(count), got \(result.records.count)")
        }
        for pair in expect["keyPaths"]?.mapping ?? [] {
            let keyPath = pair.key.scalarText ?? ""
            if let count = pair.value.intValue, count != result[keyPath].count {
                failures.append("root records at '\(keyPath)': expected \(count), got \(result[keyPath].count)")
            }
        }
        for pair in expect["counts"]?.mapping ?? [] {
            let entity = pair.key.scalarText ?? ""
            if let count = pair.value.intValue, count != result.records(of: entity).count {
                failures.append("records of \(entity): expected \(count), got \(result.records(of: entity).count)")
            }
        }
        for item in expect["records"]?.sequence ?? [] {
            guard let record = select(item, in: result) else { continue }
            check(record, against: item, label: "record at line \(item.location.line)")
        }
        let errors = expect["errors"]?.sequence ?? []
        if errors.count != result.errors.count {
            failures.append("failed records: expected \(errors.count), got \(result.errors.map(\.description))")
        }
        for (wanted, error) in zip(errors, result.errors) {
            if let entity = wanted["entity"]?.scalarText, entity != error.entity { failures.append("error entity: \(error)") }
            if let attribute = wanted["attribute"]?.scalarText, attribute != error.attribute { failures.append("error attribute: \(error)") }
            if let path = wanted["path"]?.scalarText, path != error.path { failures.append("error path: expected \(path): \(error)") }
            if !Self.matchesMessage(wanted, error.message) { failures.append("error message: \(error)") }
        }
        for request in expect["requests"]?.sequence ?? [] { check(request: request, result: result) }
    }

    mutating func select(_ node: SchemaNode, in result: MappingResult) -> Record? {
        if let index = node["root"]?.intValue {
            guard index < result.records.count else {
                failures.append("no root record \(index)")
                return nil
            }
            return result.records[index]
        }
        let entity = node["entity"]?.scalarText ?? ""
        let records = result.records(of: entity)
        if let condition = node["where"] {
            guard let record = records.first(where: { Self.matches(attributes: condition, $0) }) else {
                failures.append("no \(entity) record where \(FidelityValues.value(condition))")
                return nil
            }
            return record
        }
        let index = node["index"]?.intValue ?? 0
        guard index < records.count else {
            failures.append("no \(entity) record at index \(index) (\(records.count) records)")
            return nil
        }
        return records[index]
    }

    static func matches(attributes condition: SchemaNode, _ record: Record) -> Bool {
        (condition.mapping ?? []).allSatisfy { pair in
            record[pair.key.scalarText ?? ""].value.map { FidelityValues.matches(pair.value, $0) } ?? false
        }
    }

    mutating func check(_ record: Record, against node: SchemaNode, label: String) {
        if let entity = node["entity"]?.scalarText, entity != record.entity {
            failures.append("\(label): entity expected \(entity), got \(record.entity)")
        }
        for pair in node["attributes"]?.mapping ?? [] {
            let name = pair.key.scalarText ?? ""
            let actual = record[name].value
            if actual.map({ !FidelityValues.matches(pair.value, $0) }) ?? true {
                failures.append("\(label).\(name): expected \(FidelityValues.value(pair.value)), got \(actual.map { "\($0)" } ?? "absent")")
            }
        }
        for pair in node["types"]?.mapping ?? [] {
            let name = pair.key.scalarText ?? ""
            let actual = record[name].value?.kindName ?? "absent"
            if pair.value.scalarText != actual { failures.append("\(label).\(name) kind: expected \(pair.value.scalarText ?? ""), got \(actual)") }
        }
        for item in node["absent"]?.sequence ?? [] where !record[item.scalarText ?? ""].isAbsent {
            failures.append("\(label).\(item.scalarText ?? ""): expected absent")
        }
        for pair in node["relationships"]?.mapping ?? [] {
            let name = pair.key.scalarText ?? ""
            let related = record.related(name)
            let expected = pair.value
            if expected.isNull {
                if !related.isEmpty { failures.append("\(label).\(name): expected no related record, got \(related.count)") }
            } else if let items = expected.sequence {
                guard items.count == related.count else {
                    failures.append("\(label).\(name): expected \(items.count) related, got \(related.count)")
                    continue
                }
                for (item, target) in zip(items, related) { check(target, against: item, label: "\(label).\(name)") }
            } else if expected["count"] != nil || expected["contains"] != nil {
                if let count = expected["count"]?.intValue, count != related.count {
                    failures.append("\(label).\(name): expected \(count) related, got \(related.count)")
                }
                for item in expected["contains"]?.sequence ?? [] {
                    let matching = related.contains { target in
                        var probe = self
                        probe.failures = []
                        probe.check(target, against: item, label: "")
                        return probe.failures.isEmpty
                    }
                    if !matching { failures.append("\(label).\(name): no related record matches line \(item.location.line)") }
                }
            } else if let target = related.first, related.count == 1 {
                check(target, against: expected, label: "\(label).\(name)")
            } else {
                failures.append("\(label).\(name): expected one related record, got \(related.count)")
            }
        }
    }

    mutating func check(request node: SchemaNode, result: MappingResult) {
        let entity = node["entity"]?.scalarText ?? ""
        let method = node["method"]?.scalarText ?? "POST"
        do {
            let record: Record
            if let values = node["values"] {
                var fields: [String: Value] = [:]
                for pair in values.mapping ?? [] { fields[pair.key.scalarText ?? ""] = FidelityValues.value(pair.value) }
                record = try mapper.makeRecord(entity: entity, values: fields)
            } else {
                guard let selected = select(node, in: result) else { return }
                record = selected
            }
            let body = try mapper.requestBody(for: record, method: method)
            if node["error"] != nil { failures.append("expected a serialization error, got \(body.text)") }
            if let type = node["contentType"]?.scalarText, type != body.contentType {
                failures.append("request content type: expected \(type), got \(body.contentType)")
            }
            if let text = node["bodyText"]?.scalarText, text != body.text { failures.append("request body: expected \(text), got \(body.text)") }
            if let expected = node["body"] {
                let actual = try JSONText.parse(body.text)
                if !FidelityValues.matches(expected, actual) {
                    failures.append("request body: expected \(FidelityValues.value(expected)), got \(body.text)")
                }
            }
        } catch {
            if let part = node["error"]?.scalarText {
                if !"\(error)".contains(part) { failures.append("serialization error: expected '\(part)', got \(error)") }
            } else {
                failures.append("serialization failed: \(error)")
            }
        }
    }
}

/// Expected values of the test format: YAML 1.2 core scalars, lists and mappings, compared with
/// mapped values as `restmap test` compares them (numbers by value, dates by ISO 8601 text,
/// URLs by text, object key order ignored).
enum FidelityValues {
    static func value(_ node: SchemaNode) -> Value {
        Value(schemaNode: node)
    }

    static func matches(_ expected: SchemaNode, _ actual: Value) -> Bool {
        switch expected.content {
        case .sequence(let items):
            guard case .array(let values) = actual, values.count == items.count else { return false }
            return zip(items, values).allSatisfy { matches($0, $1) }
        case .mapping(let pairs):
            guard case .object(let members) = actual, members.count == pairs.count else { return false }
            return pairs.allSatisfy { pair in actual[pair.key.scalarText ?? ""].map { matches(pair.value, $0) } ?? false }
        case .scalar(let text, _):
            if expected.isNull { return actual.isNull }
            if let bool = expected.boolValue { return actual == .bool(bool) }
            if expected.stringValue == nil, let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
                return numeric(actual) == number
            }
            switch actual {
            case .string(let string): return string == text
            case .date: return JSONText.string(from: actual) == JSONText.string(from: .string(text))
            case .url(let url): return url.absoluteString == text
            case .integer, .decimal: return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { numeric(actual) == $0 } ?? false
            default: return false
            }
        }
    }

    static func numeric(_ value: Value) -> Decimal? {
        switch value {
        case .integer(let integer): Decimal(integer)
        case .decimal(let decimal): decimal
        case .number(let number): number.isFinite ? Decimal(string: String(number), locale: Locale(identifier: "en_US_POSIX")) : nil
        default: nil
        }
    }
}
