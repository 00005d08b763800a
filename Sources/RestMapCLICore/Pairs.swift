import ArgumentParser
import FoundationEssentials
import RestMapPluginKit

/// `name=value` and `name:value` options.
package enum Pairs {
    /// The pairs in the order given; names and values trimmed.
    package static func ordered(_ items: [String], separator: Character, option: String) throws -> [(String, String)] {
        try items.map { item in
            guard let index = item.firstIndex(of: separator) else {
                throw ValidationError("\(option) takes name\(separator)value, found '\(item)'")
            }
            return (String(item[..<index]).trimmingWhitespace(),
                    String(item[item.index(after: index)...]).trimmingWhitespace())
        }
    }

    /// The pairs by name (a later one wins).
    package static func parse(_ items: [String], separator: Character, option: String) throws -> [String: String] {
        Dictionary(try ordered(items, separator: separator, option: option)) { _, later in later }
    }
}
