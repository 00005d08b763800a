import FoundationEssentials
import RestMap
import RestMapJSON
import RestMapPluginKit
import RestMapPluginLoader
import RestMapPlugins

/// Drafts a schema from sample response bodies (`restmap init`).
///
/// Objects and arrays of objects become entities; nested ones become related entities; objects
/// of the same name or the same set of keys in different places become one entity. Attribute
/// types are inferred across every sample; guesses are explained by YAML comments.
///
/// A reference type: the entities it drafts refer to each other (relationships, unified shapes).
public final class SchemaInference {
    /// What the draft says about the API.
    public struct Options: Sendable {
        /// The API's name (`name:`).
        public var name: String?
        /// The base URL (`baseURL:`).
        public var baseURL: String?
        /// The request path pattern of the samples (`/users/:login/repos`).
        public var path: String
        /// The request method of the samples.
        public var method: String
        /// Response headers of the samples (`Link` suggests pagination; all go to the draft's check).
        public var headers: [String: String]
        /// Where the draft's editors find the JSON Schema (`restmap schema --json-schema`), relative
        /// to the draft or a URL: written as a `yaml-language-server` comment; `nil` writes none.
        public var jsonSchema: String?

        public init(name: String? = nil, baseURL: String? = nil, path: String = "/", method: String = "GET",
                    headers: [String: String] = [:], jsonSchema: String? = nil) {
            self.name = name
            self.baseURL = baseURL
            self.path = path
            self.method = method
            self.headers = headers
            self.jsonSchema = jsonSchema
        }
    }

    /// Why a sample cannot be drafted from.
    public struct InferenceError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    var options: Options
    var entities: [EntityDraft] = []
    var descriptors: [(keyPath: [String], keyedBy: String?, entity: EntityDraft, note: String?)] = []
    /// The sample bodies as given, to check the draft against.
    var samples: [(file: String, bytes: [UInt8])] = []
    var usesCSV = false
    /// The drafted `pagination:` block, from the first sample whose envelope or headers suggest one.
    var pagination: PaginationGuess?
    /// Plugins for CSV samples and for checking the draft; `pluginPaths` finds them.
    var plugins = PluginRegistry()
    let pluginPaths: [String]

    /// - Parameter pluginPaths: directories searched for the `csv` and `dates` plugins (after
    ///   `RESTMAP_PLUGIN_PATH` and the folder of the running binary).
    public init(options: Options, pluginPaths: [String] = []) {
        self.options = options
        self.pluginPaths = pluginPaths
    }

    /// Adds one sample body; a `.csv` file (or any file, with a `Content-Type: text/csv` header in
    /// the options) is decoded by the `csv` plugin.
    public func add(sample bytes: [UInt8], file: String) throws(InferenceError) {
        var json = bytes
        let contentType = options.headers.first { $0.key.equalsIgnoringCase("Content-Type") }?.value
        let isCSV = contentType.map { $0.lowercased().hasPrefix(BodyMediaType.csv) } ?? BodyMediaType.isCSV(file)
        if isCSV {
            do {
                let decoder = try csvDecoder()
                json = try decoder.decode(bytes, [:])
            } catch {
                throw InferenceError(description: "\(file): cannot decode the CSV sample: \(error)")
            }
        }
        let document: JSONDocument
        do { document = try JSONDocument(bytes: json) } catch {
            throw InferenceError(description: "\(file): not JSON: \(error)")
        }
        var body = Value(json: document.root)
        if isCSV { body = Self.typedCSVFields(body) }
        do { try add(body) } catch {
            throw InferenceError(description: "\(file): \(error.description)")
        }
        samples.append((file, bytes))
        usesCSV = usesCSV || isCSV
    }

    private func csvDecoder() throws -> BodyDecoderDefinition {
        if let decoder = plugins.bodyDecoder(forMediaType: BodyMediaType.csv) { return decoder }
        _ = try plugins.load(named: "csv", searchPath: PluginSearchPath(schemaDirectory: nil, pluginPaths: pluginPaths))
        guard let decoder = plugins.bodyDecoder(forMediaType: BodyMediaType.csv) else {
            throw InferenceError(description: "the csv plugin has no text/csv decoder")
        }
        return decoder
    }

    /// CSV fields are text: numbers among them are read as numbers (the schema coerces them back).
    static func typedCSVFields(_ body: Value) -> Value {
        switch body {
        case .array(let items): return .array(items.map(typedCSVFields))
        case .object(let members): return .object(members.map { Value.Member(key: $0.key, value: typedCSVFields($0.value)) })
        case .string(let text):
            if let integer = Int64(text) { return .integer(integer) }
            if text.wholeMatch(of: /-?\d+\.\d+/) != nil, let decimal = ExpectedValue.decimal(text) { return .decimal(decimal) }
            return body
        default: return body
        }
    }

    /// Adds one sample body already decoded to a value.
    func add(_ body: Value) throws(InferenceError) {
        let found = try locateRecords(body)
        for located in found.records {
            let entity = entity(named: located.name, keys: located.items.first.map(Self.keys) ?? [])
            if let keyed = located.keyedBy, entity.keyed == nil { entity.keyed = keyed }
            if !descriptors.contains(where: { $0.keyPath == located.keyPath && $0.entity === entity }) {
                descriptors.append((located.keyPath, located.keyedBy.map { entity.keyed?.attribute ?? $0.attribute }, entity, located.note))
            }
            for item in located.items { observe(item, into: entity) }
        }
        if pagination == nil {
            let primary = found.records.first { $0.keyedBy == nil }
            pagination = PaginationGuess.guess(
                envelope: found.envelope, records: primary?.keyPath,
                recordsHaveID: primary.map { $0.items.allSatisfy { $0["id"].map { !$0.isNull } ?? false } } ?? false,
                headers: options.headers)
        }
    }

    // MARK: Where the records sit

    private struct LocatedRecords {
        var keyPath: [String]
        var keyedBy: KeyedCollectionGuess?
        var name: String
        var items: [Value]
        var note: String?
    }

    /// The records of a body, and the envelope around them (the members that are not records).
    private struct FoundRecords {
        var records: [LocatedRecords]
        var envelope: [Value.Member] = []
    }

    /// Wrapper words whose entity is named after the path instead (`{"data": […]}`).
    static let wrapperKeys: Set<String> = ["data", "items", "results", "records", "objects", "entries", "rows", "list",
                                           "values", "hits", "docs", "elements", "content", "payload", "response"]

    private func locateRecords(_ body: Value) throws(InferenceError) -> FoundRecords {
        let pathName = Self.entityName(fromPath: options.path)
        switch body {
        case .array(let elements):
            let objects = elements.filter { if case .object = $0 { true } else { false } }
            guard !objects.isEmpty, objects.count == elements.count else {
                throw InferenceError(description: elements.isEmpty
                    ? "the sample is an empty list: there is nothing to infer from"
                    : "the sample is a list of values that are not all objects: there are no records to infer")
            }
            // [{"project": {…}}, …]: every element wraps its record in the same single key.
            let wrapperKeys = Set(objects.map { Self.keys($0) })
            if wrapperKeys.count == 1, let only = wrapperKeys.first, only.count == 1,
               objects.allSatisfy({ if case .object = $0[only[0]] ?? .null { true } else { false } }) {
                return FoundRecords(records: [LocatedRecords(keyPath: only, name: name(for: only[0], pathName: pathName),
                                                             items: objects.compactMap { $0[only[0]] },
                                                             note: "guessed: every element of the top-level list wraps its record in '\(only[0])'")])
            }
            return FoundRecords(records: [LocatedRecords(keyPath: [], name: pathName, items: objects)])
        case .object(let members):
            // {"-NyQ4k7…": {…}, "-NyQ4k8…": {…}}: the body is a collection keyed by ids.
            if let keyed = RecordShapes.keyedCollection(members) {
                return FoundRecords(records: [LocatedRecords(keyPath: [], keyedBy: keyed, name: pathName, items: members.map(\.value),
                                                             note: "guessed: \(keyed.reason): each key becomes '\(keyed.attribute)'")])
            }
            let containers = members.filter { Self.isRecordContainer($0.value) }
            // {"services": […]}: the only key.
            if members.count == 1, let only = containers.first {
                if let keyed = keyedRecords(only) { return FoundRecords(records: [keyed]) }
                return FoundRecords(records: [LocatedRecords(keyPath: [only.key], name: name(for: only.key, pathName: pathName),
                                                             items: Self.objects(in: only.value),
                                                             note: "guessed: the records sit under '\(only.key)', the body's only key")])
            }
            if let envelope = envelope(members, pathName: pathName) { return envelope }
            return FoundRecords(records: [LocatedRecords(keyPath: [], name: pathName, items: [body])])
        default:
            throw InferenceError(description: "the sample is a \(body.kindName), not an object or a list of objects")
        }
    }

    /// An envelope around the records: `{"data": […], "meta": {…}}` (a wrapper key),
    /// `{"products": […], "cursor": "…", "count": 120}` (one list next to paging and status keys),
    /// `{"humans": […], "cats": […]}` (lists side by side), `{"_embedded": {"orders": […]}}` (an
    /// object of lists). Each list of records becomes a descriptor; the envelope is no entity.
    /// `nil` when the body is a record: it has an `id`, or a key that is not an envelope's.
    private func envelope(_ members: [Value.Member], pathName: String) -> FoundRecords? {
        var lists: [(path: [String], items: [Value], keyed: KeyedCollectionGuess?)] = []
        var others: [Value.Member] = []
        for member in members {
            let isWrapper = Self.wrapperKeys.contains(member.key.lowercased())
            switch member.value {
            case .array(let items) where Self.isRecordContainer(member.value):
                lists.append(([member.key], items, nil))
            case .object(let entries):
                if let keyed = RecordShapes.keyedCollection(entries) {
                    lists.append(([member.key], entries.map(\.value), keyed))
                } else if isWrapper || RecordShapes.isEnvelopeKey(member.key),
                          entries.contains(where: { Self.isRecordContainer($0.value) && { if case .array = $0 { true } else { false } }($0.value) }),
                          entries.allSatisfy({ if case .array = $0.value { true } else { false } }) {
                    // {"_embedded": {"orders": […]}}, {"includes": {"users": […]}}
                    for entry in entries {
                        if case .array(let items) = entry.value, Self.isRecordContainer(entry.value) {
                            lists.append(([member.key, entry.key], items, nil))
                        }
                    }
                } else if isWrapper {
                    lists.append(([member.key], [member.value], nil))  // {"data": {…one record…}, "links": {…}}
                } else {
                    others.append(member)
                }
            default:
                others.append(member)
            }
        }
        guard !lists.isEmpty else { return nil }
        let wrapper = lists.first { $0.path.count == 1 && Self.wrapperKeys.contains($0.path[0].lowercased()) }
        // A wrapper key or an object of lists (`_embedded`) makes an envelope whatever else the body holds.
        if wrapper == nil, !others.isEmpty, !lists.contains(where: { $0.path.count > 1 }) {
            guard !others.contains(where: { RecordShapes.isIdentifierKey($0.key) }),
                  others.allSatisfy({ RecordShapes.isEnvelopeKey($0.key) }) else { return nil }
        }
        let notMapped = others.map(\.key).joined(separator: ", ")
        let records = lists.map { list in
            let last = list.path[list.path.count - 1]
            var note: String
            if others.isEmpty && lists.count > 1 && list.path.count == 1 {
                note = "guessed: the body holds several lists of records"
            } else if let wrapper, wrapper.path == list.path {
                note = "guessed: '\(last)' wraps the records"
            } else {
                note = "guessed: '\(list.path.joined(separator: "."))' holds records in an envelope"
            }
            if let keyed = list.keyed { note += "; \(keyed.reason): each key becomes '\(keyed.attribute)'" }
            if !others.isEmpty, list.path == lists[0].path { note += "; not mapped: \(notMapped)" }
            return LocatedRecords(keyPath: list.path, keyedBy: list.keyed, name: name(for: last, pathName: pathName),
                                  items: list.items, note: note)
        }
        return FoundRecords(records: records, envelope: others)
    }

    /// `{"members": {"ada": {…}, "grace": {…}}}`: an object whose values are objects of one shape
    /// is a collection keyed by name (`keyedBy`).
    private func keyedRecords(_ member: Value.Member) -> LocatedRecords? {
        guard case .object(let entries) = member.value else { return nil }
        if let keyed = RecordShapes.keyedCollection(entries) {
            return LocatedRecords(keyPath: [member.key], keyedBy: keyed, name: Naming.entityName(member.key), items: entries.map(\.value),
                                  note: "guessed: \(keyed.reason): each key becomes '\(keyed.attribute)'")
        }
        guard entries.count >= 2, entries.allSatisfy({ if case .object = $0.value { true } else { false } }),
              Set(entries.map { Self.keys($0.value) }).count == 1 else { return nil }
        let keys = entries[0].value
        let keyName = Naming.unique("key", in: Set(Self.keys(keys).map(Naming.attributeName)))
        return LocatedRecords(keyPath: [member.key],
                              keyedBy: KeyedCollectionGuess(attribute: keyName, keysAreIdentifiers: false, reason: "the keys of '\(member.key)' name its records"),
                              name: Naming.entityName(member.key), items: entries.map(\.value),
                              note: "guessed: the keys of '\(member.key)' name its records (keyedBy: \(keyName))")
    }

    private func name(for key: String, pathName: String) -> String {
        Self.wrapperKeys.contains(key.lowercased()) ? pathName : Naming.entityName(key)
    }

    /// The entity name a path suggests: its last literal segment (`/users/:login/repos` → `Repo`).
    static func entityName(fromPath path: String) -> String {
        let literal = path.split(separator: "?")[0].split(separator: "/")
            .filter { !$0.hasPrefix(":") && !$0.hasPrefix("{") }
            .last.map { String($0.split(separator: ".")[0]) }
        return literal.map(Naming.entityName) ?? "Item"
    }

    static func isRecordContainer(_ value: Value) -> Bool {
        switch value {
        case .object: true
        case .array(let items): !items.isEmpty && items.allSatisfy { if case .object = $0 { true } else { false } }
        default: false
        }
    }

    static func objects(in value: Value) -> [Value] {
        switch value {
        case .object: [value]
        case .array(let items): items
        default: []
        }
    }

    static func keys(_ value: Value) -> [String] {
        if case .object(let members) = value { return members.map(\.key) }
        return []
    }

    // MARK: Entities

    /// The entity of this name, else one with the same keys (a repeated shape), else a new one.
    ///
    /// A related entity is never its own parent unless their shapes overlap (a recursive
    /// `categories` of categories): a parent that only shares the name gets a related entity of
    /// another name (`Product2`).
    func entity(named requested: String, keys: [String], parent: EntityDraft? = nil) -> EntityDraft {
        var name = requested
        if let parent, parent.name == name, !keys.isEmpty,
           !RecordShapes.sharesOneShape([.object(parent.keyOrder.map { Value.Member(key: $0, value: .null) }),
                                          .object(keys.map { Value.Member(key: $0, value: .null) })]) {
            name = Naming.unique(name, in: Set(entities.map(\.name)))
        }
        if let existing = entities.first(where: { $0.name == name }) { return existing }
        let keySet = Set(keys)
        if keySet.count >= 2, let same = entities.first(where: { Set($0.keyOrder) == keySet }) {
            same.alsoNamed.append(name)
            return same
        }
        let entity = EntityDraft(name: name)
        entities.append(entity)
        return entity
    }

    func observe(_ representation: Value, into owner: EntityDraft) {
        guard case .object(let members) = representation else { return }
        owner.representations.append(representation)
        for member in members {
            // An empty key cannot be named by any key path: it stays unmapped (the draft says so).
            guard !member.key.isEmpty else {
                owner.hasEmptyKey = true
                continue
            }
            let stats = owner.stats(for: member.key)
            stats.present += 1
            switch member.value {
            case .null:
                stats.nulls += 1
            case .object(let entries):
                // {"members": {"-NyQ4k7…": {…}, …}}: decided on the first non-empty object under the key.
                if stats.keyed == nil, stats.target == nil, let keyed = RecordShapes.keyedCollection(entries) { stats.keyed = keyed }
                if let keyed = stats.keyed {
                    guard entries.allSatisfy({ if case .object = $0.value { true } else { false } }) else {
                        stats.scalars.append(member.value)  // not a collection here: the key keeps any value
                        continue
                    }
                    stats.objects += 1
                    let shape = entries.first.map { Self.keys($0.value) } ?? []
                    let target = stats.target ?? entity(named: Naming.entityName(member.key), keys: shape, parent: owner)
                    stats.target = target
                    if target.keyed == nil { target.keyed = keyed }
                    for entry in entries { observe(entry.value, into: target) }
                    continue
                }
                stats.objects += 1
                let target = stats.target ?? entity(named: Naming.entityName(member.key), keys: Self.keys(member.value), parent: owner)
                stats.target = target
                observe(member.value, into: target)
            case .array(let items) where items.isEmpty:
                stats.emptyArrays += 1
            case .array(let items) where Self.isRecordContainer(member.value):
                stats.arraysOfObjects += 1
                let target = stats.target ?? entity(named: Naming.entityName(member.key), keys: Self.keys(items[0]), parent: owner)
                stats.target = target
                for item in items { observe(item, into: target) }
            case .array(let items):
                stats.scalarArrays += 1
                stats.arrayElements += items
            default:
                stats.scalars.append(member.value)
            }
        }
    }
}

/// An entity being drafted: its representations and what each key held.
final class EntityDraft {
    let name: String
    var alsoNamed: [String] = []
    var representations: [Value] = []
    var keyOrder: [String] = []
    var keys: [String: KeyStats] = [:]
    /// Some representation has a key `""`, which no key path can read.
    var hasEmptyKey = false
    /// Attributes whose inferred type failed on a sample, with the type they fall back to.
    var demoted: [String: String] = [:]
    /// The records come from an object keyed by their ids (`keyedBy`): the attribute the keys fill.
    var keyed: KeyedCollectionGuess?

    init(name: String) {
        self.name = name
    }

    func stats(for key: String) -> KeyStats {
        if let stats = keys[key] { return stats }
        let stats = KeyStats()
        keys[key] = stats
        keyOrder.append(key)
        return stats
    }
}

/// What the samples held under one key of an entity.
final class KeyStats {
    var present = 0
    var nulls = 0
    var objects = 0
    var arraysOfObjects = 0
    var emptyArrays = 0
    var scalarArrays = 0
    var scalars: [Value] = []
    var arrayElements: [Value] = []
    var target: EntityDraft?
    /// The objects under this key are collections keyed by ids (`keyedBy`), not records.
    var keyed: KeyedCollectionGuess?

    /// A relationship when the key only ever held objects, lists of objects, empty lists or null.
    var isRelationship: Bool {
        target != nil && scalarArrays == 0 && scalars.isEmpty
    }
}
