import ArgumentParser
import Foundation

/// `name=value` and `name:value` options.
enum Pairs {
    /// The pairs in the order given; names and values trimmed.
    static func ordered(_ items: [String], separator: Character, option: String) throws -> [(String, String)] {
        try items.map { item in
            guard let index = item.firstIndex(of: separator) else {
                throw ValidationError("\(option) takes name\(separator)value, found '\(item)'")
            }
            return (String(item[..<index]).trimmingCharacters(in: .whitespaces),
                    String(item[item.index(after: index)...]).trimmingCharacters(in: .whitespaces))
        }
    }

    /// The pairs by name (a later one wins).
    static func parse(_ items: [String], separator: Character, option: String) throws -> [String: String] {
        Dictionary(try ordered(items, separator: separator, option: option)) { _, later in later }
    }
}

/// Files the commands read.
enum CommandInput {
    /// The bytes of a file, or of standard input for `-` or no file; `what` names it in the error.
    static func read(_ path: String?, what: String = "body") throws -> [UInt8] {
        guard let path, path != "-" else { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read the \(what) file '\(path)'")
        }
        return Array(data)
    }
}
