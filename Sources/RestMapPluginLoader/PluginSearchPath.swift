import FoundationEssentials
import Glibc
import RestMapPlugins

/// Where plugins named in a schema (`librestmap-<name>.so`) may be loaded from.
///
/// Only folders the *user* chose are searched: each `--plugin-path` directory, each entry of
/// `RESTMAP_PLUGIN_PATH` (colon-separated), and the installed plugin folder
/// `<bindir>/../lib/restmap/plugins`. The schema's folder and the current directory are never
/// searched implicitly (empty entries are dropped; give `.` explicitly to search it): a schema is
/// untrusted input, and loading a library runs its code.
///
/// The first-party plugins (`dates`, `ids`, `csv`) are reserved: they are taken only from the
/// folder of the `restmap` binary or the installed plugin folder, and a library of the same name
/// anywhere else is ignored (see `refusals()`).
public struct PluginSearchPath: Sendable, Equatable {
    /// The directories searched for third-party plugins, in search order, without duplicates.
    public private(set) var directories: [String]

    /// The directories the first-party plugins are taken from, in search order.
    public private(set) var firstPartyDirectories: [String]

    /// Folders never searched, only looked into to explain a refusal (the schema's folder and the
    /// current directory): a plugin found there is named in the "not found" error.
    public private(set) var unsearchedDirectories: [String]

    /// A search path of exactly these directories.
    /// - Parameters:
    ///   - directories: searched for third-party plugins, in order (empty entries and duplicates dropped).
    ///   - firstPartyDirectories: where the reserved first-party plugins come from; by default the
    ///     folder of the running executable and its installed plugin folder.
    ///   - unsearchedDirectories: folders looked into only to explain a plugin that is not found.
    public init(
        _ directories: [String],
        firstPartyDirectories: [String] = PluginSearchPath.installationDirectories(of: PluginSearchPath.executableDirectory),
        unsearchedDirectories: [String] = []
    ) {
        self.directories = Self.normalized(directories)
        self.firstPartyDirectories = Self.normalized(firstPartyDirectories)
        let searched = Set(self.directories)
        self.unsearchedDirectories = Self.normalized(unsearchedDirectories).filter { !searched.contains($0) }
    }

    /// The standard search path.
    /// - Parameters:
    ///   - schemaDirectory: the folder of the schema being loaded, if any: never searched, only
    ///     named when it holds a plugin that is not found.
    ///   - pluginPaths: directories given with `--plugin-path`.
    ///   - environment: the process environment (only `RESTMAP_PLUGIN_PATH` is read; by default
    ///     that one variable of this process's).
    ///   - executableDirectory: the folder of the `restmap` binary, if known.
    ///   - currentDirectory: the current directory: never searched, only named like the schema's folder.
    public init(
        schemaDirectory: String?,
        pluginPaths: [String] = [],
        environment: [String: String] = PluginSearchPath.processEnvironment(),
        executableDirectory: String? = PluginSearchPath.executableDirectory,
        currentDirectory: String? = FileManager.default.currentDirectoryPath
    ) {
        var directories = pluginPaths
        if let variable = environment[PluginNames.searchPathVariable] {
            directories += variable.split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        }
        let installation = Self.installationDirectories(of: executableDirectory)
        directories += installation.dropFirst()
        self.init(directories, firstPartyDirectories: installation,
                  unsearchedDirectories: [schemaDirectory, currentDirectory].compactMap { $0 })
    }

    /// This search path, also naming `directory` in "not found" errors when it is not searched.
    public func addingUnsearchedDirectory(_ directory: String) -> PluginSearchPath {
        PluginSearchPath(directories, firstPartyDirectories: firstPartyDirectories,
                         unsearchedDirectories: unsearchedDirectories + [directory])
    }

    /// The variable the search path reads from this process's environment, without copying the
    /// rest of it (as `ProcessInfo.processInfo.environment` does on each use).
    public static func processEnvironment() -> [String: String] {
        guard let value = getenv(PluginNames.searchPathVariable) else { return [:] }
        return [PluginNames.searchPathVariable: String(cString: value)]
    }

    /// The folder of the running executable (from `/proc/self/exe`), if it can be read.
    public static var executableDirectory: String? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        return FilePaths.directory(of: executable)
    }

    /// An executable's folder and its installed plugin folder, `<bindir>/../lib/restmap/plugins`.
    public static func installationDirectories(of executableDirectory: String?) -> [String] {
        guard let executableDirectory else { return [] }
        return [executableDirectory, FilePaths.joining(executableDirectory, "../lib/restmap/plugins")]
    }

    /// The directories a plugin of this name may come from, in order.
    public func directories(forPlugin name: String) -> [String] {
        PluginNames.reserved.contains(name) ? firstPartyDirectories : directories
    }

    /// The path of the first `librestmap-<name>.so` in the directories the name may come from.
    /// - Throws: `PluginError.invalidName` for a name that is not an identifier, else
    ///   `PluginError.notFound` listing the directories searched and the copies refused.
    public func locate(_ name: String) throws(PluginError) -> String {
        guard PluginNames.isValid(name) else { throw PluginError.invalidName(name) }
        if let path = firstLibrary(named: name) { return path }
        throw PluginError.notFound(name: name, searched: directories(forPlugin: name), untrusted: refusals(forPlugin: name).map(\.path))
    }

    /// The first `librestmap-<name>.so` that exists in the directories the name may come from.
    private func firstLibrary(named name: String) -> String? {
        let fileName = PluginNames.fileName(forPlugin: name)
        return directories(forPlugin: name).lazy.map { FilePaths.joining($0, fileName) }
            .first { FileManager.default.fileExists(atPath: $0) }
    }

    /// A plugin library found on the search path.
    public struct Candidate: Sendable, Equatable {
        /// The plugin name from the file name.
        public var name: String
        /// The library's path.
        public var path: String
    }

    /// Every plugin `locate` can find, sorted by name: each third-party `librestmap-*.so` of the
    /// search directories and each first-party one of the first-party directories (where several
    /// hold the same name, the first).
    public func candidates() -> [Candidate] {
        var found: [String: Candidate] = [:]
        for (directory, reserved) in firstPartyDirectories.map({ ($0, true) }) + directories.map({ ($0, false) }) {
            for candidate in Self.libraries(in: directory)
            where PluginNames.reserved.contains(candidate.name) == reserved && found[candidate.name] == nil {
                found[candidate.name] = candidate
            }
        }
        return found.values.sorted { $0.name < $1.name }
    }

    /// A plugin library that is never loaded from where it lies, and why.
    public struct Refusal: Sendable, Equatable {
        /// The plugin name from the file name.
        public var name: String
        /// The library's path.
        public var path: String
        /// Why it is not loaded, and what would load it if that is wanted.
        public var reason: String
    }

    /// The plugin libraries that are never loaded, sorted by path: a first-party name outside the
    /// first-party directories, and any plugin in an unsearched folder (the schema's, the current one).
    /// A file that is the very one `locate` loads, reached by another path (`.` when run from the
    /// binary's folder, a link), is not a refusal: files are compared by device and inode.
    public func refusals() -> [Refusal] {
        untrustedDirectories.flatMap { directory, searched in
            Self.libraries(in: directory).compactMap { candidate in
                guard let reason = Self.refusalReason(for: candidate.name, in: directory, searched: searched),
                      !isLoaded(candidate.path, asPlugin: candidate.name) else { return nil }
                return Refusal(name: candidate.name, path: candidate.path, reason: reason)
            }
        }.sorted { $0.path < $1.path }
    }

    /// `refusals()` of one plugin name, found by looking for its file in each folder instead of
    /// listing every folder (what a schema naming the plugin needs).
    public func refusals(forPlugin name: String) -> [Refusal] {
        guard PluginNames.isValid(name) else { return [] }
        let fileName = PluginNames.fileName(forPlugin: name)
        return untrustedDirectories.compactMap { directory, searched in
            let path = FilePaths.joining(directory, fileName)
            guard let reason = Self.refusalReason(for: name, in: directory, searched: searched),
                  FileManager.default.fileExists(atPath: path), !isLoaded(path, asPlugin: name) else { return nil }
            return Refusal(name: name, path: path, reason: reason)
        }.sorted { $0.path < $1.path }
    }

    /// The folders outside the first-party ones, each with whether it is searched.
    private var untrustedDirectories: [(directory: String, searched: Bool)] {
        let trusted = Set(firstPartyDirectories)
        return (directories.map { ($0, true) } + unsearchedDirectories.map { ($0, false) }).filter { !trusted.contains($0.0) }
    }

    /// Why a plugin of this name in this folder is never loaded; `nil` when it may be.
    private static func refusalReason(for name: String, in directory: String, searched: Bool) -> String? {
        if PluginNames.reserved.contains(name) {
            return "'\(name)' is a first-party plugin, taken only from the restmap binary's folder or the installed plugin folder"
        }
        return searched ? nil : "\(directory) is not searched for plugins: pass --plugin-path \(directory) to trust it"
    }

    // MARK: Helpers

    /// A file's device and inode: one file reached by two paths has one identity.
    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64

        /// The identity of the file at `path` (links followed), or `nil` when it cannot be read.
        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// Whether the file at `path` is the file `locate(name)` finds.
    private func isLoaded(_ path: String, asPlugin name: String) -> Bool {
        guard PluginNames.isValid(name), let located = firstLibrary(named: name), let identity = FileIdentity(path: path) else { return false }
        return FileIdentity(path: located) == identity
    }

    private static func normalized(_ directories: [String]) -> [String] {
        var seen: Set<String> = []
        return directories.filter { !$0.isEmpty }
            .map { FilePaths.standardized($0) }
            .filter { seen.insert($0).inserted }
    }

    /// The `librestmap-<name>.so` files with a valid name in a directory, sorted by name.
    private static func libraries(in directory: String) -> [Candidate] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted().compactMap { file in
            guard let name = PluginNames.pluginName(fromFileName: file), PluginNames.isValid(name) else { return nil }
            return Candidate(name: name, path: FilePaths.joining(directory, file))
        }
    }
}
