import Glibc

/// Path text helpers that behave on every input.
///
/// Foundation's `NSString.deletingLastPathComponent` traps on a one-character relative path
/// (`"S"`) on Linux; a file name is user input, so RestMap takes folders apart itself (and the
/// programs that read schemas do not link Foundation for its path methods).
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

    /// The last component of `path`, as `lastPathComponent` defines it: `"/tmp/a.so"` → `"a.so"`,
    /// `"/tmp/lib/"` → `"lib"`, `"/"` → `"/"`, `""` → `""`.
    package static func lastComponent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// `component` appended to `folder` with one slash between them (`appendingPathComponent`).
    package static func joining(_ folder: String, _ component: String) -> String {
        if folder.isEmpty { return component }
        return folder.hasSuffix("/") ? folder + component : folder + "/" + component
    }

    /// `path` with `~` expanded and without empty components and `.` (but a leading one); when absolute, also without
    /// `..` and with each existing component's symbolic links resolved (`standardizingPath`).
    package static func standardized(_ path: String) -> String {
        var path = path
        if path == "~" || path.hasPrefix("~/"), let home = getenv("HOME").map({ String(cString: $0) }) {
            path = home + path.dropFirst()
        }
        guard path.hasPrefix("/") else {
            let components = path.split(separator: "/")
            return components.enumerated().filter { $0.offset == 0 || $0.element != "." }.map(\.element).joined(separator: "/")
        }
        var resolved = "/"
        for component in path.split(separator: "/") where component != "." {
            if component == ".." {
                resolved = directory(of: resolved)
                continue
            }
            let candidate = joining(resolved, String(component))
            if let real = realpath(candidate, nil) {
                resolved = String(cString: real)
                free(real)
            } else {
                resolved = candidate
            }
        }
        return resolved
    }
}
