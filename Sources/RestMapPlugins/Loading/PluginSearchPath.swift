import Foundation

/// The directories searched, in order, for a plugin named in a schema (`librestmap-<name>.so`).
///
/// The standard order is: the schema's own folder, each `--plugin-path` directory, each entry of
/// `RESTMAP_PLUGIN_PATH` (colon-separated), the folder of the `restmap` binary, and
/// `<bindir>/../lib/restmap/plugins`. The current directory is never searched implicitly: empty
/// entries are dropped, and only a directory given explicitly (such as `.`) is searched.
public struct PluginSearchPath: Sendable, Equatable {
    /// The environment variable holding extra plugin directories.
    public static let environmentVariable = "RESTMAP_PLUGIN_PATH"

    /// The directories, in search order, without duplicates.
    public private(set) var directories: [String]

    /// A search path of exactly these directories (empty entries and duplicates dropped).
    public init(_ directories: [String]) {
        var seen: Set<String> = []
        self.directories = directories.filter { !$0.isEmpty }
            .map { ($0 as NSString).standardizingPath }
            .filter { seen.insert($0).inserted }
    }

    /// The standard search path.
    /// - Parameters:
    ///   - schemaDirectory: the folder of the schema being loaded, if any.
    ///   - pluginPaths: directories given with `--plugin-path`.
    ///   - environment: the process environment (for `RESTMAP_PLUGIN_PATH`).
    ///   - executableDirectory: the folder of the `restmap` binary, if known.
    public init(
        schemaDirectory: String?,
        pluginPaths: [String] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executableDirectory: String? = PluginSearchPath.executableDirectory
    ) {
        var directories: [String] = []
        if let schemaDirectory { directories.append(schemaDirectory) }
        directories += pluginPaths
        if let variable = environment[Self.environmentVariable] {
            directories += variable.split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        }
        if let executableDirectory {
            directories.append(executableDirectory)
            directories.append((executableDirectory as NSString).appendingPathComponent("../lib/restmap/plugins"))
        }
        self.init(directories)
    }

    /// The folder of the running executable (from `/proc/self/exe`), if it can be read.
    public static var executableDirectory: String? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        return (executable as NSString).deletingLastPathComponent
    }

    /// The library file name of a plugin: `librestmap-<name>.so`.
    public static func fileName(forPlugin name: String) -> String { "librestmap-\(name).so" }

    /// The plugin name in a library file name (`librestmap-dates.so` gives `dates`), else `nil`.
    public static func pluginName(fromFileName fileName: String) -> String? {
        let prefix = "librestmap-", suffix = ".so"
        guard fileName.hasPrefix(prefix), fileName.hasSuffix(suffix), fileName.count > prefix.count + suffix.count else {
            return nil
        }
        return String(fileName.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// The path of the first `librestmap-<name>.so` on the search path.
    /// - Throws: `PluginError.notFound` listing the directories searched.
    public func locate(_ name: String) throws(PluginError) -> String {
        guard !name.isEmpty, !name.contains("/") else { throw PluginError.notFound(name: name, searched: directories) }
        let fileName = Self.fileName(forPlugin: name)
        for directory in directories {
            let path = (directory as NSString).appendingPathComponent(fileName)
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        throw PluginError.notFound(name: name, searched: directories)
    }

    /// A plugin library found on the search path.
    public struct Candidate: Sendable, Equatable {
        /// The plugin name from the file name.
        public var name: String
        /// The library's path.
        public var path: String
    }

    /// Every `librestmap-*.so` on the search path, sorted by name; where several directories hold
    /// the same name, only the first (the one `locate` finds) is listed.
    public func candidates() -> [Candidate] {
        var found: [String: Candidate] = [:]
        for directory in directories {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for file in files.sorted() {
                guard let name = Self.pluginName(fromFileName: file), found[name] == nil else { continue }
                found[name] = Candidate(name: name, path: (directory as NSString).appendingPathComponent(file))
            }
        }
        return found.values.sorted { $0.name < $1.name }
    }
}
