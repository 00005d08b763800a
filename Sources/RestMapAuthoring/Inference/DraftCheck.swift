import FoundationEssentials
import RestMap
import RestMapPluginKit
import RestMapPluginLoader
import RestMapPlugins
import RestMapSchema

/// A drafted schema and what checking it against its own samples found.
public struct SchemaDraft: Sendable {
    /// The schema as YAML.
    public var yaml: String
    /// Diagnostics of the draft: validation, then the dry run of every sample (failed records,
    /// unmapped keys). Empty for a draft that validates clean and maps its samples.
    public var diagnostics: [Diagnostic]
}

extension DryRunReport {
    /// The findings as diagnostics (what `restmap validate --sample` prints): failed records and
    /// unmapped keys point into the sample, empty selections at the schema.
    public func diagnostics(sample: String, body: [UInt8]) -> [Diagnostic] {
        let start = SourceLocation(file: sample, line: 1, column: 1)
        var diagnostics: [Diagnostic] = []
        if let failure {
            let location: SourceLocation
            if case .malformedBody(let error) = failure {
                location = SourceLocation(file: sample, line: error.line, column: error.column)
            } else {
                location = start
            }
            diagnostics.append(.error("the sample does not map: \(failure)", at: location))
        }
        for error in failedRecords {
            diagnostics.append(.error("record failed at \(error.path.isEmpty ? "the body" : error.path): \(error.entity)\(error.attribute.map { ".\($0)" } ?? ""): \(error.message)", at: start))
        }
        for key in unmappedKeys {
            let location = key.byteOffset.map { SchemaLoader.location(ofOffset: $0, in: body, file: sample) } ?? start
            diagnostics.append(.warning("key '\(key.path)' is not mapped by the schema", at: location))
        }
        for selection in emptySelections {
            diagnostics.append(.warning(
                "attribute '\(selection.attribute)' of '\(selection.entity)' found nothing at '\(selection.keyPath)' in \(selection.representations) representation(s) of the sample",
                at: selection.location))
        }
        return diagnostics
    }
}

extension SchemaInference {
    /// Renders the draft and checks it against every sample: an attribute whose inferred type
    /// fails on a sample falls back to `string` (or `any`) and the draft is checked again.
    public func draft(file: String = "draft.yaml") -> SchemaDraft {
        var checked = check(render(), file: file)
        for _ in 0..<8 {
            var demotedAny = false
            for failure in checked.failedAttributes {
                guard let entity = entities.first(where: { $0.name == failure.entity }),
                      let key = attributeKey(of: entity, named: failure.attribute), entity.demoted[key] == nil else { continue }
                let strings = entity.keys[key]?.scalars.allSatisfy { $0.stringValue != nil } ?? false
                entity.demoted[key] = strings ? "string" : "any"
                demotedAny = true
            }
            if !demotedAny { break }
            checked = check(render(), file: file)
        }
        return SchemaDraft(yaml: checked.yaml, diagnostics: checked.diagnostics)
    }

    private func attributeKey(of entity: EntityDraft, named name: String) -> String? {
        var needsDates = false
        return draftMembers(of: entity, needsDates: &needsDates).attributes.first { $0.name == name }?.key
    }

    /// Validates the YAML and dry-runs every sample with it.
    private func check(_ yaml: String, file: String) -> (yaml: String, diagnostics: [Diagnostic], failedAttributes: [(entity: String, attribute: String)]) {
        let prepared = Schema.load(bytes: Array(yaml.utf8), file: file, options: SchemaLoadOptions(
            plugins: plugins, pluginProvider: PluginSearchPath(schemaDirectory: nil, pluginPaths: pluginPaths)))
        guard let schema = prepared.schema else { return (yaml, prepared.diagnostics, []) }
        let mapper: Mapper
        do { mapper = try Mapper(schema: schema, plugins: prepared.plugins) } catch {
            return (yaml, [.error(error.message, at: error.location ?? SourceLocation(file: file, line: 1, column: 1))], [])
        }
        var diagnostics = prepared.diagnostics
        var failed: [(entity: String, attribute: String)] = []
        let path = Self.concretePath(options.path)
        for sample in samples {
            var headers = options.headers
            if let implied = BodyMediaType.implied(byExtensionOf: sample.file),
               !headers.keys.contains(where: { $0.equalsIgnoringCase("Content-Type") }) {
                headers["Content-Type"] = implied
            }
            var report = mapper.dryRun(Response(method: options.method, path: path, status: 200, headers: headers, body: sample.bytes))
            // The draft reads every key some sample has: one that another sample lacks is optional, not a mistake.
            report.emptySelections = []
            diagnostics += report.diagnostics(sample: sample.file, body: sample.bytes)
            failed += report.failedRecords.compactMap { error in error.attribute.map { (error.entity, $0) } }
        }
        return (yaml, diagnostics, failed)
    }

    /// A request path matching a path pattern: every parameter replaced by `sample`.
    static func concretePath(_ pattern: String) -> String {
        let path = pattern.split(separator: "?", maxSplits: 1).first.map(String.init) ?? pattern
        return path.replacing(/:[A-Za-z0-9_]+|\{[A-Za-z0-9_]+\}/, with: "sample")
    }
}
