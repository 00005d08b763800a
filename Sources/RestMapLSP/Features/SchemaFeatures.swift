import FoundationEssentials
import RestMapPluginKit
import RestMapSchema

/// Completion, hover and definition for one document at one position.
struct SchemaFeatures {
    let document: TextDocument
    let analysis: SchemaAnalysis
    let plugins: PluginStore

    private typealias Kind = LSP.CompletionItemKind

    /// Descriptions of the reserved key-path words.
    static let operators: [(word: String, summary: String)] = [
        ("@self", "The representation itself (RestKit's nil key path)."),
        ("@parent", "The enclosing representation; chainable: @parent.@parent.id."),
        ("@root", "The whole document."),
        ("@metadata", "Mapping metadata: @metadata.routing.parameters.<name>, @metadata.HTTP.response.headers.<name>, …"),
        ("@count", "The number of elements of the array (last segment)."),
        ("@sum", "The sum of the array's numbers, exact over decimals."),
        ("@avg", "The average of the array's numbers, as a decimal."),
        ("@min", "The smallest element."),
        ("@max", "The largest element."),
        ("@first", "The first element."),
        ("@last", "The last element."),
        ("@distinct", "The distinct values, in first-seen order."),
        ("@flatten", "An array of arrays flattened."),
    ]

    static let metadataKeys = ["mapping.collectionIndex", "mapping.rootKeyPath", "mapping.parentObject", "routing.parameters.",
                               "routing.route", "HTTP.request.URL", "HTTP.request.method", "HTTP.request.headers.",
                               "HTTP.response.URL", "HTTP.response.statusCode", "HTTP.response.headers.", "query.parameters.", "user."]

    // MARK: Completion

    func completion(line: Int, character: Int) -> LSP.CompletionList {
        let context = CursorContext(document: document, line: line, character: character)
        var items: [LSP.CompletionItem] = []
        func add(_ label: String, _ kind: Kind, detail: String? = nil, documentation: String? = nil) {
            items.append(LSP.CompletionItem(label: label, kind: kind, detail: detail, documentation: documentation))
        }
        let path = context.path
        if let key = context.key {
            let shape = GrammarWalk.member(of: GrammarWalk.shape(at: path, in: analysis.grammar) ?? .any, key)
            if key == "transform" || path.last == "transform" {
                transformerItems(add: add)
            } else if key == "keyedBy", let target = relationshipTarget(path: path) {
                // A relationship's keyedBy names attributes of its target entity.
                for name in analysis.attributes(of: target) { add(name, .field, detail: "attribute of the target") }
            } else if key == "identifiedBy" || key == "keyedBy" || key == "attributes" && path.first == "requests" {
                for name in analysis.attributes(of: entityInScope(path: path, line: line) ?? "") { add(name, .field, detail: "attribute") }
            } else if path.last == "connect" {
                // connect: { local: target }: the value is an attribute of the relationship's target entity.
                for name in analysis.attributes(of: relationshipTarget(path: path) ?? "") { add(name, .field, detail: "attribute of the target") }
            } else if let shape, GrammarWalk.holdsEntityName(shape) || key == "otherwise" {
                for entity in analysis.entities { add(entity.name, .class, detail: "entity") }
                if key == "otherwise" { add("skip", .keyword); add("error", .keyword) }
            } else if let shape, GrammarWalk.holdsKeyPath(shape) || context.typed.hasPrefix("@") {
                keyPathItems(typed: context.typed, add: add)
            } else if let shape {
                for word in GrammarWalk.words(shape) { add(word, .value) }
            }
        } else if path.last == "connect" {
            for name in analysis.attributes(of: entityInScope(path: path, line: line) ?? "") { add(name, .field, detail: "attribute") }
        } else if path.dropLast().last == "transform" {
            // `transform: { plugin.name: { … } }`: the transformer's arguments.
            argumentItems(transformer: path.last!, add: add)
        } else if path.last == "transform" {
            transformerItems(add: add)
        } else if let object = GrammarWalk.object(at: path, in: analysis.grammar) {
            for property in object.properties {
                add(property.name, .property, detail: object.name + (property.isRequired ? " (required)" : ""), documentation: property.summary)
            }
        }
        return LSP.CompletionList(isIncomplete: false, items: items)
    }

    private func keyPathItems(typed: String, add: (String, Kind, String?, String?) -> Void) {
        if typed.hasPrefix("@metadata.") {
            for key in Self.metadataKeys { add("@metadata." + key, .field, "metadata", nil) }
            return
        }
        let base = typed.contains(".") ? String(typed[...typed.lastIndex(of: ".")!]) : ""
        for (word, summary) in Self.operators { add(base + word, .operator, "key-path operator", summary) }
    }

    /// Transformer names of the plugins the schema names (and the built-ins); a plugin that is not
    /// loaded gets one item that says why it has no completions.
    private func transformerItems(add: (String, Kind, String?, String?) -> Void) {
        for name in analysis.pluginNames {
            switch plugins.plugin(named: name) {
            case .success(let info):
                for transformer in info.transformers {
                    add("\(name).\(transformer.name)", .method, signature(transformer.arguments), transformer.summary)
                }
            case .failure(let reason):
                add("\(name).", .text, "no completions: plugin '\(name)' is not loaded", reason)
            }
        }
    }

    private func argumentItems(transformer: String, add: (String, Kind, String?, String?) -> Void) {
        guard let plugin = transformer.split(separator: ".").first.map(String.init) else { return }
        switch plugins.plugin(named: plugin) {
        case .success(let info):
            let name = transformer.dropFirst(plugin.count + 1)
            for argument in info.transformers.first(where: { $0.name == name })?.arguments ?? [] {
                add(argument.name, .field, "\(argument.kind.rawValue)\(argument.isRequired ? ", required" : "")", nil)
            }
        case .failure(let reason):
            add(transformer, .text, "no argument completions: plugin '\(plugin)' is not loaded", reason)
        }
    }

    private func signature(_ arguments: [ArgumentSpec]) -> String {
        "{" + arguments.map { "\($0.name)\($0.isRequired ? "" : "?"): \($0.kind.rawValue)" }.joined(separator: ", ") + "}"
    }

    /// The entity the cursor is inside: `entities.<Name>…`, or the `entity:` of the response or
    /// request list item around the line.
    private func entityInScope(path: [String], line: Int) -> String? {
        if path.first == "entities", path.count >= 2 { return path[1] }
        guard let section = path.first, let items = analysis.root?[section]?.sequence else { return nil }
        return items.last(where: { $0.location.line - 1 <= line })?["entity"]?.scalarText
    }

    /// The target entity of the relationship a path is in (`entities.E.relationships.R…`).
    private func relationshipTarget(path: [String]) -> String? {
        guard path.count >= 4, path[0] == "entities", path[2] == "relationships" else { return nil }
        return analysis.root?["entities"]?[path[1]]?["relationships"]?[path[3]]?["entity"]?.scalarText
    }

    // MARK: Hover

    func hover(line: Int, character: Int) -> LSP.Hover? {
        guard let (word, start) = document.word(line: line, character: character) else { return nil }
        let context = CursorContext(document: document, line: line, character: start)
        var text: String?
        if let entity = analysis.entities.first(where: { $0.name == word }) {
            let attributes = analysis.attributes(of: entity.name)
            text = "**entity \(entity.name)** (line \(entity.location.line)): \(attributes.isEmpty ? "no attributes" : attributes.joined(separator: ", "))"
        } else if context.key == nil, let object = GrammarWalk.object(at: context.path, in: analysis.grammar), let property = object.property(named: word) {
            text = "**\(property.name)** (\(object.name)\(property.isRequired ? ", required" : "")): \(property.summary)"
        } else if let op = Self.operators.first(where: { word.hasSuffix($0.word) || word.contains($0.word + ".") }) {
            text = "**\(op.word)**: \(op.summary)"
        } else if let plugin = word.split(separator: ".").first.map(String.init), word.contains("."),
                  case .success(let info) = plugins.plugin(named: plugin),
                  let transformer = info.transformers.first(where: { $0.name == word.dropFirst(plugin.count + 1) }) {
            text = "**\(word)** \(signature(transformer.arguments)): \(transformer.summary)"
        }
        guard let text else { return nil }
        return LSP.Hover(contents: LSP.MarkupContent(kind: "markdown", value: text),
                         range: LSP.Range(start: LSP.Position(line: line, character: start),
                                          end: LSP.Position(line: line, character: start + word.utf16.count)))
    }

    // MARK: Definition

    /// From an entity name to its declaration under `entities:`.
    func definition(line: Int, character: Int) -> LSP.Location? {
        guard let (word, _) = document.word(line: line, character: character),
              let entity = analysis.entities.first(where: { $0.name == word }) else { return nil }
        if entity.location.file == document.path {
            return LSP.Location(uri: document.uri, range: document.range(of: entity.location))
        }
        // Declared in the schema a test file names.
        let start = LSP.Position(line: entity.location.line - 1, character: entity.location.column - 1)
        let end = LSP.Position(line: start.line, character: start.character + entity.name.utf16.count)
        return LSP.Location(uri: URL(fileURLWithPath: entity.location.file).absoluteString, range: LSP.Range(start: start, end: end))
    }
}
