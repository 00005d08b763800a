import ArgumentParser
import Foundation

/// `name=value` and `name:value` options.
enum Pairs {
    static func parse(_ items: [String], separator: Character, option: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for item in items {
            guard let index = item.firstIndex(of: separator) else {
                throw ValidationError("\(option) takes name\(separator)value, found '\(item)'")
            }
            result[String(item[..<index]).trimmingCharacters(in: .whitespaces)] =
                String(item[item.index(after: index)...]).trimmingCharacters(in: .whitespaces)
        }
        return result
    }
}
