/// Checks a node tree against the grammar: unknown keys, wrong value kinds, missing keys.
struct StructuralValidator {
    var diagnostics: [Diagnostic] = []
    /// The suggestions of the whole validation (a choice's trial validators share it).
    let suggester: Suggester

    init(suggester: Suggester = Suggester()) {
        self.suggester = suggester
    }

    mutating func check(_ node: SchemaNode, against shape: Shape, context: String) {
        if suggester.cancellation?.isCancelled == true { return }
        switch shape {
        case .any:
            return
        case .string(let format):
            // Numbers read as their text where a number makes sense as text (a key path's array
            // index, a header value); names, routes, path patterns and URLs must be strings.
            if node.scalarText == nil || node.isNull || node.boolValue != nil
                || !format.acceptsNumbers && node.numberValue != nil {
                mismatch(node, expected: shape, context: context)
            }
        case .integer(let minimum):
            guard let value = node.intValue else { return mismatch(node, expected: shape, context: context) }
            if let minimum, value < minimum {
                diagnostics.append(.error("\(context) must be at least \(minimum), found \(value)", at: node.location))
            }
        case .boolean:
            guard node.boolValue == nil else { return }
            var message = "\(context) must be true or false, found \(Self.describe(node))"
            if let text = node.scalarText, ["yes", "no", "y", "n", "on", "off"].contains(text.lowercased()) {
                message += " (write true or false)"
            }
            diagnostics.append(.error(message, at: node.location))
        case .enumeration(let words):
            guard let text = node.stringValue else { return mismatch(node, expected: shape, context: context) }
            if !words.contains(text) {
                let hint = suggester.hint(for: text, words)
                let choices = words.count <= 9 ? ": one of \(words.joined(separator: ", "))" : ""
                diagnostics.append(.error("'\(text)' is not a valid value for \(context)\(hint.isEmpty ? choices : hint)", at: node.textLocation))
            }
        case .list(let item):
            guard let items = node.sequence else { return mismatch(node, expected: shape, context: context) }
            for element in items { check(element, against: item, context: "an item of \(context)") }
        case .dictionary(let value, let maximumEntries):
            guard let pairs = node.mapping else { return mismatch(node, expected: shape, context: context) }
            if let maximumEntries, pairs.count > maximumEntries {
                diagnostics.append(.error("\(context) must have exactly one key, found \(pairs.count)", at: node.location))
            }
            for pair in pairs { check(pair.value, against: value, context: "'\(pair.key.scalarText ?? "")'") }
        case .object(let object):
            guard let pairs = node.mapping else { return mismatch(node, expected: shape, context: context) }
            // A misspelled required key is reported once, as an unknown key with its suggestion.
            var suggested = Set<String>()
            for pair in pairs {
                let key = pair.key.scalarText ?? ""
                guard let property = object.property(named: key) else {
                    let near = suggester.closest(to: key, object.properties.map(\.name))
                    if let near { suggested.insert(near) }
                    let hint = near.map { " (did you mean '\($0)'?)" } ?? ""
                    diagnostics.append(.error("unknown key '\(key)' in \(object.name)\(hint)", at: pair.key.location))
                    continue
                }
                check(pair.value, against: property.shape, context: "'\(key)'")
            }
            let present = Set(pairs.compactMap(\.key.scalarText)).union(suggested)
            for property in object.properties where property.isRequired && !present.contains(property.name) {
                diagnostics.append(.error("\(object.name) is missing required key '\(property.name)'", at: node.location))
            }
        case .choice(let alternatives):
            let candidates = alternatives.filter { $0.accepts(kindOf: node) }
            guard !candidates.isEmpty else { return mismatch(node, expected: shape, context: context) }
            var first: [Diagnostic]?
            for candidate in candidates {
                var trial = StructuralValidator(suggester: suggester)
                trial.check(node, against: candidate, context: context)
                if trial.diagnostics.isEmpty { return }
                first = first ?? trial.diagnostics
            }
            diagnostics += first ?? []
        }
    }

    private mutating func mismatch(_ node: SchemaNode, expected shape: Shape, context: String) {
        diagnostics.append(.error("\(context) must be \(shape.expectation), found \(Self.describe(node))", at: node.location))
    }

    /// "a list", "null", "a string 'always'": the kind of a node, and the text of a short scalar.
    static func describe(_ node: SchemaNode) -> String {
        guard let text = node.scalarText, !node.isNull, text.count <= 40 else { return node.kindName }
        return "\(node.kindName) '\(text)'"
    }
}

extension Shape {
    /// Whether a node of this kind could be this shape (scalars, lists and mappings are told apart).
    func accepts(kindOf node: SchemaNode) -> Bool {
        switch (self, node.content) {
        case (.any, _): true
        case (.string, .scalar), (.integer, .scalar), (.boolean, .scalar), (.enumeration, .scalar): true
        case (.list, .sequence): true
        case (.dictionary, .mapping), (.object, .mapping): true
        case (.choice(let shapes), _): shapes.contains { $0.accepts(kindOf: node) }
        default: false
        }
    }
}

extension Shape {
    /// Checks a node tree against this shape: unknown keys (with "did you mean"), wrong kinds,
    /// missing required keys, each at its position. Other file formats built on the schema
    /// loader (schema tests) describe themselves as shapes and check with this.
    public func diagnostics(for node: SchemaNode, context: String) -> [Diagnostic] {
        var validator = StructuralValidator()
        validator.check(node, against: self, context: context)
        return validator.diagnostics
    }
}
