/// Path text helpers that behave on every input.
///
/// Foundation's `NSString.deletingLastPathComponent` traps on a one-character relative path
/// (`"S"`) on Linux; a file name is user input, so RestMap takes folders apart itself.
package enum FilePaths {
    /// The folder part of `path`, as `deletingLastPathComponent` defines it: `"/tmp/a.yaml"` →
    /// `"/tmp"`, `"/tmp/lock/"` → `"/tmp"`, `"/a"` → `"/"`, `"a.yaml"` → `""`.
    package static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        var directory = trimmed[..<slash]
        while directory.hasSuffix("/") { directory = directory.dropLast() }
        return directory.isEmpty ? "/" : String(directory)
    }
}
