import FoundationEssentials
import RestMap
import RestMapJSON
import RestMapSchema

/// Checks the `expect` section of a case against a mapping result or failure.
struct ExpectationChecker {
    let mapper: Mapper
    private(set) var failures: [SchemaTestFailure] = []

    init(mapper: Mapper) {
        self.mapper = mapper
    }

    mutating func fail(at location: SourceLocation, _ message: String, expected: String? = nil, actual: String? = nil) {
        failures.append(SchemaTestFailure(at: location, message, expected: expected, actual: actual))
    }

    // MARK: Results

    mutating func check(_ result: MappingResult, _ expect: SchemaNode) {
        if let roots = expect["roots"], let count = roots.intValue, count != result.records.count {
            fail(at: roots.location, "root records", expected: "\(count)", actual: "\(result.records.count)")
        }
        for pair in expect["keyPaths"]?.mapping ?? [] {
            let keyPath = pair.key.scalarText ?? ""
            let actual = result[keyPath].count
            if let count = pair.value.intValue, count != actual {
                fail(at: pair.key.location, "root records at key path '\(keyPath)'", expected: "\(count)", actual: "\(actual)")
            }
        }
        for pair in expect["counts"]?.mapping ?? [] {
            let entity = pair.key.scalarText ?? ""
            let actual = result.records(of: entity).count
            if mapper.schema.entity(named: entity) == nil {
                fail(at: pair.key.location, "the schema has no entity '\(entity)'")
            } else if let count = pair.value.intValue, count != actual {
                fail(at: pair.key.location, "records of \(entity)", expected: "\(count)", actual: "\(actual)")
            }
        }
        for node in expect["records"]?.sequence ?? [] {
            guard let (record, label) = select(node, in: result) else { continue }
            check(record, against: node, label: label)
        }
        checkErrors(result.errors, expect["errors"], at: expect.location)
        for node in expect["requests"]?.sequence ?? [] {
            checkRequest(node, result: result)
        }
    }

    /// The record an expectation selects: `root: N`, `where: {…}` or `index: N` of `entity`.
    private mutating func select(_ node: SchemaNode, in result: MappingResult) -> (Record, String)? {
        if let rootNode = node["root"], let index = rootNode.intValue {
            guard index < result.records.count else {
                fail(at: rootNode.location, "no root record at index \(index)", expected: "at least \(index + 1) root record(s)", actual: "\(result.records.count)")
                return nil
            }
            return (result.records[index], "root[\(index)]")
        }
        guard let entityNode = node["entity"], let entity = entityNode.scalarText else {
            fail(at: node.location, "a record expectation needs 'entity' (or 'root')")
            return nil
        }
        let records = result.records(of: entity)
        if let condition = node["where"] {
            guard let record = records.first(where: { matchesAttributes($0, condition) }) else {
                fail(at: condition.location, "no \(entity) record has these attribute values",
                     expected: ExpectedValue.text(condition), actual: "\(records.count) \(entity) record(s) that differ")
                return nil
            }
            return (record, "\(entity) where \(ExpectedValue.text(condition))")
        }
        let index = node["index"]?.intValue ?? 0
        guard index < records.count else {
            fail(at: node["index"]?.location ?? entityNode.location, "no \(entity) record at index \(index)",
                 expected: "at least \(index + 1) \(entity) record(s)", actual: "\(records.count)")
            return nil
        }
        return (records[index], "\(entity)[\(index)]")
    }

    private func matchesAttributes(_ record: Record, _ condition: SchemaNode) -> Bool {
        (condition.mapping ?? []).allSatisfy { pair in
            guard let value = record[pair.key.scalarText ?? ""].value else { return false }
            return ExpectedValue.matches(pair.value, value)
        }
    }

    /// Checks attributes, types, absent names and relationships of one record.
    private mutating func check(_ record: Record, against node: SchemaNode, label: String) {
        if let entityNode = node["entity"], let entity = entityNode.scalarText, entity != record.entity {
            fail(at: entityNode.location, "\(label): entity", expected: entity, actual: record.entity)
        }
        for pair in node["attributes"]?.mapping ?? [] {
            let name = pair.key.scalarText ?? ""
            switch record[name] {
            case .value(let value):
                if !ExpectedValue.matches(pair.value, value) {
                    fail(at: pair.key.location, "\(label).\(name)", expected: ExpectedValue.text(pair.value), actual: ExpectedValue.text(value))
                }
            case .absent:
                fail(at: pair.key.location, "\(label).\(name)", expected: ExpectedValue.text(pair.value), actual: "absent")
            case .record, .records:
                fail(at: pair.key.location, "\(label).\(name) is a relationship: check it under 'relationships'")
            }
        }
        for pair in node["types"]?.mapping ?? [] {
            let name = pair.key.scalarText ?? ""
            let actual = record[name].value?.kindName ?? "absent"
            if let kind = pair.value.scalarText, kind != actual {
                fail(at: pair.key.location, "\(label).\(name) kind", expected: kind, actual: actual)
            }
        }
        for nameNode in node["absent"]?.sequence ?? [] {
            let name = nameNode.scalarText ?? ""
            if !record[name].isAbsent {
                fail(at: nameNode.location, "\(label).\(name)", expected: "absent", actual: describe(record[name]))
            }
        }
        for pair in node["relationships"]?.mapping ?? [] {
            let name = pair.key.scalarText ?? ""
            checkRelationship(record, name, pair.value, at: pair.key.location, label: "\(label).\(name)")
        }
    }

    private mutating func checkRelationship(_ record: Record, _ name: String, _ node: SchemaNode, at location: SourceLocation, label: String) {
        let field = record[name]
        if case .value(let value) = field, !value.isNull {
            return fail(at: location, "\(label) is an attribute: check it under 'attributes'")
        }
        let related = field.records
        if node.isNull {
            if !related.isEmpty { fail(at: location, label, expected: "no related record", actual: describe(field)) }
            return
        }
        if let items = node.sequence {
            guard items.count == related.count else {
                return fail(at: location, "\(label): related records", expected: "\(items.count)", actual: "\(related.count)")
            }
            for (index, (item, target)) in zip(items, related).enumerated() {
                check(target, against: item, label: "\(label)[\(index)]")
            }
            return
        }
        guard node.mapping != nil else {
            return fail(at: node.location, "\(label): a relationship expectation is null, a list or a mapping")
        }
        if let countNode = node["count"], let count = countNode.intValue, count != related.count {
            fail(at: countNode.location, "\(label): related records", expected: "\(count)", actual: "\(related.count)")
        }
        for item in node["contains"]?.sequence ?? [] {
            if !related.contains(where: { candidate in
                var trial = ExpectationChecker(mapper: mapper)
                trial.check(candidate, against: item, label: label)
                return trial.failures.isEmpty
            }) {
                fail(at: item.location, "\(label): no related record meets this expectation",
                     expected: ExpectedValue.text(item), actual: RecordWriter.json(related))
            }
        }
        let recordKeys: Set<String> = ["entity", "attributes", "types", "absent", "relationships"]
        guard node.mapping!.contains(where: { recordKeys.contains($0.key.scalarText ?? "") }) else { return }
        guard related.count == 1 else {
            return fail(at: location, "\(label): a record expectation needs exactly one related record (use a list or 'contains' for several)",
                        expected: "1", actual: "\(related.count)")
        }
        check(related[0], against: node, label: label)
    }

    private func describe(_ field: RecordField) -> String {
        switch field {
        case .absent: "absent"
        case .value(let value): ExpectedValue.text(value)
        case .record(let record): RecordWriter.json([record])
        case .records(let records): RecordWriter.json(records)
        }
    }

    // MARK: Record errors

    private mutating func checkErrors(_ actual: [MappingError], _ node: SchemaNode?, at location: SourceLocation) {
        guard let expected = node?.sequence else {
            for error in actual { fail(at: location, "unexpected record error", expected: "none", actual: error.description) }
            return
        }
        if expected.count != actual.count {
            fail(at: node!.location, "record errors", expected: "\(expected.count)",
                 actual: "\(actual.count)" + (actual.isEmpty ? "" : ": " + actual.map(\.description).joined(separator: "; ")))
        }
        for (item, error) in zip(expected, actual) {
            for (key, value) in [("entity", error.entity), ("attribute", error.attribute ?? "(none)"), ("path", error.path)] {
                if let want = item[key], let text = want.scalarText, text != value {
                    fail(at: want.location, "record error \(key)", expected: text, actual: value)
                }
            }
            if !MessageExpectation.matches(item, error.message) {
                fail(at: (item["message"] ?? item["messageContains"])!.location, "record error message",
                     expected: MessageExpectation.describe(item), actual: "\"\(error.message)\"")
            }
        }
    }

    // MARK: Failures

    mutating func check(_ failure: MappingFailure, _ node: SchemaNode) {
        if let kindNode = node["kind"], let kind = kindNode.scalarText, kind != Self.kind(of: failure) {
            fail(at: kindNode.location, "failure kind", expected: kind, actual: "\(Self.kind(of: failure)) (\(failure))")
        }
        if !MessageExpectation.matches(node, failure.description) {
            fail(at: (node["message"] ?? node["messageContains"])!.location, "failure message",
                 expected: MessageExpectation.describe(node), actual: "\"\(failure.description)\"")
        }
        switch failure {
        case .errorResponse(let status, _, let errors):
            checkStatus(node, status)
            if let messagesNode = node["messages"] {
                let expected = (messagesNode.sequence ?? []).compactMap(\.scalarText)
                let actual = errors.map(\.message)
                if expected != actual {
                    fail(at: messagesNode.location, "error messages", expected: "\(expected)", actual: "\(actual)")
                }
            }
        case .unprocessableErrorResponse(let status, _):
            checkStatus(node, status)
        case .malformedBody(let error):
            for (key, value) in [("line", error.line), ("column", error.column)] {
                if let want = node[key], let number = want.intValue, number != value {
                    fail(at: want.location, "syntax error \(key)", expected: "\(number)", actual: "\(value)")
                }
            }
        default:
            break
        }
    }

    private mutating func checkStatus(_ node: SchemaNode, _ status: Int) {
        if let want = node["status"], let code = want.intValue, code != status {
            fail(at: want.location, "failure status", expected: "\(code)", actual: "\(status)")
        }
    }

    static func kind(of failure: MappingFailure) -> String {
        switch failure {
        case .malformedBody: "malformedBody"
        case .undecodableBody: "undecodableBody"
        case .noResponseDescriptor: "noResponseDescriptor"
        case .noMappableRepresentations: "noMappableRepresentations"
        case .errorResponse: "errorResponse"
        case .unprocessableErrorResponse: "unprocessableErrorResponse"
        case .invalidRecords: "invalidRecords"
        }
    }

    // MARK: Requests

    private mutating func checkRequest(_ node: SchemaNode, result: MappingResult) {
        let entity = node["entity"]?.scalarText ?? ""
        let method = node["method"]?.scalarText ?? "POST"
        let record: Record
        do {
            if let values = node["values"] {
                var attributes: [String: Value] = [:]
                for pair in values.mapping ?? [] { attributes[pair.key.scalarText ?? ""] = ExpectedValue.value(pair.value) }
                record = try mapper.makeRecord(entity: entity, values: attributes)
            } else {
                guard let (selected, _) = select(node, in: result) else { return }
                record = selected
            }
        } catch {
            return fail(at: node.location, "cannot build the \(entity) record: \(error)")
        }
        let body: RequestBody
        do { body = try mapper.requestBody(for: record, method: method) } catch {
            if let want = node["error"], let text = want.scalarText, !error.message.contains(text) {
                fail(at: want.location, "serialization error", expected: "a message containing \"\(text)\"", actual: "\"\(error.message)\"")
            } else if node["error"] == nil {
                fail(at: node.location, "the \(entity) record does not serialize: \(error)")
            }
            return
        }
        if let want = node["error"] {
            fail(at: want.location, "expected a serialization error", expected: "an error", actual: body.text)
        }
        if let want = node["contentType"], let text = want.scalarText, text != body.contentType {
            fail(at: want.location, "request Content-Type", expected: text, actual: body.contentType)
        }
        if let want = node["bodyText"], let text = want.scalarText, text != body.text {
            fail(at: want.location, "request body", expected: text, actual: body.text)
        }
        if let want = node["body"] {
            let actual = (try? JSONDocument(bytes: body.bytes)).map { Value(json: $0.root) }
            if actual.map({ ExpectedValue.matches(want, $0) }) != true {
                fail(at: want.location, "request body", expected: ExpectedValue.text(want), actual: body.text)
            }
        }
    }
}
