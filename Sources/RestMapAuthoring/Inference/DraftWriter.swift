import FoundationEssentials
import RestMap

/// One drafted attribute or relationship of an entity.
struct DraftMember {
    var name: String
    var key: String
    var line: String
    var note: String?
}

extension SchemaInference {
    /// The draft as YAML text, with a comment on each line that holds a guess.
    func render() -> String {
        let reachable = reachableEntities()
        var needsDates = false
        var entityLines: [String] = []
        for entity in entities where reachable.contains(ObjectIdentifier(entity)) {
            let members = draftMembers(of: entity, needsDates: &needsDates)
            var header = "  \(entity.name):"
            if !entity.alsoNamed.isEmpty {
                header += "  # guessed: one shape, also found as \(entity.alsoNamed.joined(separator: ", "))"
            }
            entityLines.append(header)
            if let (name, note) = identification(of: entity, members: members.attributes) {
                entityLines.append(Self.commented("    identifiedBy: \(name)", note))
            } else if members.attributes.contains(where: { ["id", "ID", "identifier", "url", "URL"].contains($0.name) }) {
                entityLines.append("    # no identifiedBy: no attribute is unique across the samples; records may merge by their inferred identification")
            } else {
                entityLines.append("    # no identifiedBy: no attribute is unique across the samples, so records never merge")
            }
            if let keyed = entity.keyed?.attribute {
                entityLines.append("    # '\(keyed)' is filled from the object keys (keyedBy)")
            }
            if entity.hasEmptyKey {
                entityLines.append("    # the samples have an empty key \"\", which no key path can read: it stays unmapped")
            }
            entityLines.append("    attributes:")
            if members.attributes.isEmpty { entityLines[entityLines.count - 1] += " {}" }
            for attribute in members.attributes { entityLines.append(Self.commented("      " + attribute.line, attribute.note)) }
            if !members.relationships.isEmpty {
                entityLines.append("    relationships:")
                for relationship in members.relationships { entityLines.append(Self.commented("      " + relationship.line, relationship.note)) }
            }
            entityLines.append("")
        }

        var lines = options.jsonSchema.map { ["# yaml-language-server: $schema=\($0)"] } ?? []
        lines += [
            "# Drafted by restmap init from \(samples.count) sample\(samples.count == 1 ? "" : "s"): review the lines marked 'guessed'.",
            "restmap: 1",
        ]
        if let name = options.name { lines.append("name: \(YAMLText.scalar(name))") }
        if let baseURL = options.baseURL { lines.append("baseURL: \(YAMLText.scalar(baseURL))") }
        if let pagination { lines.append(pagination.line) }
        let plugins = (needsDates ? ["dates"] : []) + (usesCSV ? ["csv"] : [])
        if !plugins.isEmpty {
            let reasons = (needsDates ? ["dates parses the date attributes"] : []) + (usesCSV ? ["csv decodes text/csv bodies"] : [])
            lines.append(Self.commented("plugins: [\(plugins.joined(separator: ", "))]", reasons.joined(separator: "; ")))
        }
        lines += ["", "entities:"] + entityLines + ["responses:"]
        for descriptor in descriptors {
            var fields = ["method: \(options.method.uppercased())", "path: \(YAMLText.scalar(options.path))"]
            if !descriptor.keyPath.isEmpty { fields.append("keyPath: \(YAMLText.keyPath(segments: descriptor.keyPath))") }
            if let keyedBy = descriptor.keyedBy { fields.append("keyedBy: \(keyedBy)") }
            fields.append("entity: \(descriptor.entity.name)")
            lines.append(Self.commented("  - { \(fields.joined(separator: ", ")) }", descriptor.note))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func commented(_ line: String, _ note: String?) -> String {
        guard let note else { return line }
        return "\(line)  # \(note.replacing("\n", with: " "))"
    }

    private func reachableEntities() -> Set<ObjectIdentifier> {
        var seen = Set<ObjectIdentifier>()
        var queue = descriptors.map(\.entity)
        while let entity = queue.popLast() {
            guard seen.insert(ObjectIdentifier(entity)).inserted else { continue }
            for key in entity.keyOrder {
                if let stats = entity.keys[key], stats.isRelationship, let target = stats.target { queue.append(target) }
            }
        }
        return seen
    }

    /// The attributes and relationships of an entity, named in camelCase and unique.
    func draftMembers(of entity: EntityDraft, needsDates: inout Bool) -> (attributes: [DraftMember], relationships: [DraftMember]) {
        var taken = Set<String>()
        var attributes: [DraftMember] = []
        var relationships: [DraftMember] = []
        if let keyed = entity.keyed?.attribute {
            taken.insert(keyed)
            attributes.append(DraftMember(name: keyed, key: keyed, line: "\(keyed): { type: string }", note: nil))
        }
        for key in entity.keyOrder {
            guard let stats = entity.keys[key] else { continue }
            let name = Naming.unique(Naming.attributeName(key), in: taken)
            taken.insert(name)
            let from = key == name ? "" : "from: \(YAMLText.keyPath(key)), "
            var notes: [String] = []
            if stats.present < entity.representations.count { notes.append("absent in some samples") }
            if stats.nulls > 0 && stats.nulls < stats.present { notes.append("null in some samples") }
            if stats.isRelationship, let target = stats.target {
                var many = stats.arraysOfObjects > 0 || stats.emptyArrays > 0 ? ", many: true" : ""
                if let keyed = stats.keyed, let attribute = target.keyed?.attribute {
                    many = ", many: true, keyedBy: \(attribute)"
                    notes.insert("guessed: \(keyed.reason): each key becomes '\(attribute)'", at: 0)
                }
                relationships.append(DraftMember(name: name, key: key, line: "\(name): { \(from)entity: \(target.name)\(many) }",
                                                 note: notes.isEmpty ? nil : notes.joined(separator: "; ")))
                continue
            }
            var guess = typeGuess(stats, key: key)
            if let fallback = entity.demoted[key] {
                guess = TypeGuess(type: fallback, note: "\(guess.type) did not map every sample; kept as \(fallback)")
            }
            needsDates = needsDates || guess.needsDates
            if let note = guess.note { notes.insert(note, at: 0) }
            let transform = guess.transform.map { "transform: \($0), " } ?? ""
            attributes.append(DraftMember(name: name, key: key, line: "\(name): { \(from)\(transform)type: \(guess.type) }",
                                          note: notes.isEmpty ? nil : notes.joined(separator: "; ")))
        }
        return (attributes, relationships)
    }

    private func typeGuess(_ stats: KeyStats, key: String) -> TypeGuess {
        if stats.objects > 0 || stats.arraysOfObjects > 0 {
            return TypeGuess(type: "any", note: "objects and plain values under one key: kept as they are")
        }
        if stats.scalarArrays > 0 {
            return stats.scalars.isEmpty ? ValueKinds.guessArray(stats.arrayElements, key: key)
                : TypeGuess(type: "any", note: "lists and plain values under one key: kept as they are")
        }
        if stats.emptyArrays > 0 && stats.scalars.isEmpty {
            return TypeGuess(type: "any", note: "always an empty list in the samples: element type unknown")
        }
        if stats.emptyArrays > 0 { return TypeGuess(type: "any", note: "lists and plain values under one key: kept as they are") }
        return ValueKinds.guess(stats.scalars, key: key, fromCSV: usesCSV)
    }

    /// The identifying attribute: `id`, `uuid`, `<entity>_id` or another `*_id`, present in every
    /// representation, whose equal values only ever belong to equal representations.
    private func identification(of entity: EntityDraft, members: [DraftMember]) -> (String, String?)? {
        let entityWords = Naming.words(entity.name).map { $0.lowercased() }
        func rank(_ key: String) -> Int? {
            let words = Naming.words(key).map { $0.lowercased() }
            if words == ["id"] { return 0 }
            if words == ["uuid"] || words == ["guid"] { return 1 }
            if words == entityWords + ["id"] { return 2 }
            if words.last == "id" { return 3 }
            return nil
        }
        let candidates = members.compactMap { member in rank(member.key).map { (member, $0) } }
            .filter { candidate in
                guard let stats = entity.keys[candidate.0.key], stats.scalars.count == entity.representations.count else { return false }
                return stats.scalars.allSatisfy { if case .integer = $0 { true } else { $0.stringValue != nil } }
            }
            .sorted { $0.1 < $1.1 }
        for (member, rank) in candidates {
            // Representations with equal values must agree on every key they share: the same
            // object, or partial views of one record (RestKit merges `{"id": 1}` into the full one).
            var byValue: [Value: [Value]] = [:]
            var identical = true
            let consistent = entity.representations.allSatisfy { representation in
                guard let value = representation[member.key] else { return false }
                let seen = byValue[value, default: []]
                byValue[value] = seen + [representation]
                identical = identical && seen.allSatisfy { $0 == representation }
                return seen.allSatisfy { Self.agree($0, representation) }
            }
            guard consistent else { continue }
            if byValue.count == entity.representations.count {
                return (member.name, rank == 0 ? nil : "guessed: '\(member.key)' is unique across the samples")
            }
            return (member.name, identical
                    ? "guessed: equal '\(member.key)' values only ever belong to identical objects in the samples"
                    : "guessed: equal '\(member.key)' values belong to partial views of one object (they merge)")
        }
        return nil
    }

    /// Two objects that hold equal values under every key they share.
    private static func agree(_ first: Value, _ second: Value) -> Bool {
        guard case .object(let members) = first else { return first == second }
        return members.allSatisfy { member in second[member.key].map { $0 == member.value } ?? true }
    }
}
