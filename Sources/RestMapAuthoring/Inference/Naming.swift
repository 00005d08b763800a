/// Names of a drafted schema, made from the keys of sample bodies.
enum Naming {
    /// Words written in capitals inside a name (`avatar_url` → `avatarURL`, `user_id` → `userID`).
    static let acronyms: Set<String> = ["id", "url", "uri", "uuid", "api", "html", "json", "http", "https", "ip", "sql", "xml"]

    /// The words of a key: split at `_`, `-`, `.`, spaces and other punctuation, and before an
    /// upper-case letter that follows a lower-case one (`avatarUrl` → `avatar`, `Url`).
    static func words(_ key: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousIsLower = false
        for character in key {
            guard character.isLetter || character.isNumber else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousIsLower = false
                continue
            }
            if character.isUppercase && previousIsLower {
                words.append(current)
                current = ""
            }
            current.append(character)
            previousIsLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `avatar_url` → `avatarURL`, `current-event` → `currentEvent`, `Title` → `title`, `ID` → `id`.
    static func attributeName(_ key: String) -> String {
        let parts = words(key)
        guard let first = parts.first else { return "value" }
        var name = first.lowercased()
        for part in parts.dropFirst() {
            name += acronyms.contains(part.lowercased()) ? part.uppercased() : part.prefix(1).uppercased() + part.dropFirst()
        }
        if name.first!.isNumber { return "n" + name }
        return YAMLText.readsAsText(name) ? name : name + "Value"
    }

    /// `repos` → `Repo`, `current-event` → `CurrentEvent`, `categories` → `Category`.
    static func entityName(_ key: String) -> String {
        var parts = words(key)
        guard let last = parts.popLast() else { return "Item" }
        parts.append(singular(last))
        let name = parts.map { acronyms.contains($0.lowercased()) ? $0.uppercased() : $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if name.first!.isNumber { return "E" + name }
        return YAMLText.readsAsText(name) ? name : name + "Record"
    }

    /// A plural English word's singular, for the usual endings.
    static func singular(_ word: String) -> String {
        let lower = word.lowercased()
        let irregular = ["people": "person", "children": "child", "men": "man", "women": "woman", "data": "data", "news": "news"]
        if let single = irregular[lower] { return String(word.prefix(1)) + single.dropFirst() }
        if lower.hasSuffix("ies") && lower.count > 4 { return String(word.dropLast(3)) + "y" }
        for ending in ["sses", "ches", "shes", "xes", "uses"] where lower.hasSuffix(ending) { return String(word.dropLast(2)) }
        if lower.hasSuffix("s") && !lower.hasSuffix("ss") && !lower.hasSuffix("us") && !lower.hasSuffix("is") && lower.count > 3 {
            return String(word.dropLast())
        }
        return word
    }

    /// `name`, then `name2`, `name3`… until it is not in `taken`.
    static func unique(_ name: String, in taken: Set<String>) -> String {
        guard taken.contains(name) else { return name }
        var number = 2
        while taken.contains("\(name)\(number)") { number += 1 }
        return "\(name)\(number)"
    }
}

/// YAML text of drafted values.
enum YAMLText {
    /// A scalar, quoted when a plain scalar would read differently (a number, a boolean, null,
    /// an indicator character, `: ` or ` #`).
    static func scalar(_ text: String) -> String {
        readsAsText(text) ? text : quoted(text)
    }

    /// Whether a plain scalar of this text reads back as the same string.
    static func readsAsText(_ text: String) -> Bool {
        let reserved: Set<String> = ["", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
                                     "yes", "no", "on", "off", "y", "n", "Yes", "No", "On", "Off"]
        let safe = text.unicodeScalars.allSatisfy { scalar in
            (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-./: ".unicodeScalars.contains(scalar))
                && scalar.value < 0x2028
        }
        return safe && !reserved.contains(text) && Double(text) == nil && Int(text) == nil
            && !text.hasPrefix("-") && !text.hasPrefix(" ") && !text.hasSuffix(" ") && !text.hasSuffix(":")
            && !text.contains(": ") && !text.hasPrefix(":") && !text.hasPrefix(".")
    }

    /// A double-quoted scalar with JSON-style escapes (YAML double quotes accept them).
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// The key path that reads one literal key: a plain string when no escape is needed, else the
    /// list form of literal segments (`["LUPO.API.Log"]`).
    static func keyPath(_ key: String) -> String {
        if key.contains(".") || key.contains("\\") || key.hasPrefix("@") { return "[\(quoted(key))]" }
        return scalar(key)
    }

    /// The key path that reads literal keys one inside the other (`_embedded.orders`): dotted
    /// text when no key needs an escape, else the list form of literal segments.
    static func keyPath(segments: [String]) -> String {
        if segments.count == 1 { return keyPath(segments[0]) }
        if segments.contains(where: { $0.contains(".") || $0.contains("\\") || $0.hasPrefix("@") }) {
            return "[\(segments.map(quoted).joined(separator: ", "))]"
        }
        return scalar(segments.joined(separator: "."))
    }
}
