import Foundation
import RestMap
import RestMapJSON
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

        public init(name: String? = nil, baseURL: String? = nil, path: String = "/", method: String = "GET") {
            self.name = name
            self.baseURL = baseURL
            self.path = path
            self.method = method
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
    /// Plugins for CSV samples and for checking the draft; `pluginPaths` finds them.
    var plugins = PluginRegistry()
    let pluginPaths: [String]

    /// - Parameter pluginPaths: directories searched for the `csv` and `dates` plugins (after
    ///   `RESTMAP_PLUGIN_PATH` and the folder of the running binary).
    public init(options: Options, pluginPaths: [String] = []) {
        self.options = options
        self.pluginPaths = pluginPaths
    }

    /// Adds one sample body; a `.csv` file is decoded by the `csv` plugin.
    public func add(sample bytes: [UInt8], file: String) throws(InferenceError) {
        var json = bytes
        let isCSV = BodyMediaType.isCSV(file)
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
        for located in try locateRecords(body) {
            let entity = entity(named: located.name, keys: located.items.first.map(Self.keys) ?? [])
            if !descriptors.contains(where: { $0.keyPath == located.keyPath && $0.entity === entity }) {
                descriptors.append((located.keyPath, located.keyedBy, entity, located.note))
            }
            for item in located.items { observe(item, into: entity) }
        }
    }

    // MARK: Where the records sit

    private struct LocatedRecords {
        var keyPath: [String]
        var keyedBy: String?
        var name: String
        var items: [Value]
        var note: String?
    }

    /// Wrapper words whose entity is named after the path instead (`{"data": […]}`).
    static let wrapperKeys: Set<String> = ["data", "items", "results", "records", "objects", "entries", "rows", "list",
                                           "values", "hits", "docs", "elements", "content", "payload", "response"]

    private func locateRecords(_ body: Value) throws(InferenceError) -> [LocatedRecords] {
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
                return [LocatedRecords(keyPath: only, name: name(for: only[0], pathName: pathName),
                                       items: objects.compactMap { $0[only[0]] },
                                       note: "guessed: every element of the top-level list wraps its record in '\(only[0])'")]
            }
            return [LocatedRecords(keyPath: [], name: pathName, items: objects)]
        case .object(let members):
            let containers = members.filter { Self.isRecordContainer($0.value) }
            // {"data": […], "meta": {…}}: a known wrapper key; {"services": […]}: the only key.
            if members.count == 1, let only = containers.first {
                if let keyed = keyedRecords(only) { return [keyed] }
                return [LocatedRecords(keyPath: [only.key], name: name(for: only.key, pathName: pathName),
                                       items: Self.objects(in: only.value),
                                       note: "guessed: the records sit under '\(only.key)', the body's only key")]
            }
            if let wrapper = containers.first(where: { Self.wrapperKeys.contains($0.key.lowercased()) }),
               case .array = wrapper.value {
                let others = members.filter { $0.key != wrapper.key }.map(\.key)
                return [LocatedRecords(keyPath: [wrapper.key], name: pathName, items: Self.objects(in: wrapper.value),
                                       note: "guessed: '\(wrapper.key)' wraps the records; not mapped: \(others.joined(separator: ", "))")]
            }
            // {"humans": […], "cats": […]}: several lists of records side by side.
            if members.count > 1, containers.count == members.count,
               members.allSatisfy({ if case .array = $0.value { true } else { false } }) {
                return members.map {
                    LocatedRecords(keyPath: [$0.key], name: Naming.entityName($0.key), items: Self.objects(in: $0.value),
                                   note: "guessed: the body holds several lists of records")
                }
            }
            return [LocatedRecords(keyPath: [], name: pathName, items: [body])]
        default:
            throw InferenceError(description: "the sample is a \(body.kindName), not an object or a list of objects")
        }
    }

    /// `{"members": {"ada": {…}, "grace": {…}}}`: an object whose values are objects of one shape
    /// is a collection keyed by name (`keyedBy`).
    private func keyedRecords(_ member: Value.Member) -> LocatedRecords? {
        guard case .object(let entries) = member.value, entries.count >= 2,
              entries.allSatisfy({ if case .object = $0.value { true } else { false } }),
              Set(entries.map { Self.keys($0.value) }).count == 1 else { return nil }
        let keys = Self.keys(entries[0].value)
        let keyName = Naming.unique("key", in: Set(keys.map(Naming.attributeName)))
        return LocatedRecords(keyPath: [member.key], keyedBy: keyName, name: Naming.entityName(member.key), items: entries.map(\.value),
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
    func entity(named name: String, keys: [String]) -> EntityDraft {
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
            case .object:
                stats.objects += 1
                let target = stats.target ?? entity(named: Naming.entityName(member.key), keys: Self.keys(member.value))
                stats.target = target
                observe(member.value, into: target)
            case .array(let items) where items.isEmpty:
                stats.emptyArrays += 1
            case .array(let items) where Self.isRecordContainer(member.value):
                stats.arraysOfObjects += 1
                let target = stats.target ?? entity(named: Naming.entityName(member.key), keys: Self.keys(items[0]))
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

    /// A relationship when the key only ever held objects, lists of objects, empty lists or null.
    var isRelationship: Bool {
        target != nil && scalarArrays == 0 && scalars.isEmpty
    }
}
