import FoundationEssentials
import Glibc
import RestMapPluginLoader
import RestMapPlugins

/// The commands of `restmap` that reach HTTP services and databases. They live in an executable
/// of their own, `restmap-services`, installed beside `restmap`: it links the HTTP client, TLS,
/// SQLite and PostgreSQL, which `restmap map`, `validate` and the other commands never use, and
/// whose loading would cost every start of those (measured: an empty `restmap map` took about a
/// fifth less CPU once they left its executable, and a services command pays one more process
/// start). `restmap <command>` hands these over unchanged.
package enum ServicesCommand: String, CaseIterable, Sendable {
    case get, send, store, seed, sync

    /// The file name of the executable that runs them.
    package static let executableName = "restmap-services"

    /// The command's one-line summary, in its own `--help` and in `restmap --help`.
    package var abstract: String {
        switch self {
        case .get: "Fetch a route or path from the service and print the mapped records."
        case .send: "Send a record to the service and print the mapped response."
        case .store: "Keep mapped records in a store (SQLite or PostgreSQL): import, query, search."
        case .seed: "Build a SQLite store from JSON files, reproducibly."
        case .sync: "Keep a store in step with a service: incremental, fanned out over parents, resumable."
        }
    }

    /// The services command that `arguments` (the process's, without the program name) name,
    /// to run it (`get …`) or for its help (`help get …`); `nil` for every other command.
    package static func handedOver(_ arguments: some Collection<String>) -> ServicesCommand? {
        guard let first = arguments.first else { return nil }
        if first == "help" { return arguments.dropFirst().first.flatMap(ServicesCommand.init(rawValue:)) }
        return ServicesCommand(rawValue: first)
    }

    /// Replaces this process with `restmap-services` from the folder of the running executable,
    /// with the same arguments, standard streams and environment. Returns only when that fails,
    /// with the reason.
    package static func execute(arguments: [String]) -> String {
        guard let folder = PluginSearchPath.executableDirectory else {
            return "\(executableName), which runs it, could not be found: the running executable's folder cannot be read"
        }
        let path = FilePaths.joining(folder, executableName)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        return "\(executableName), which runs it, could not be started from \(folder) (\(reason)); "
            + "it is built with `swift build` (or `swift build --product \(executableName)`) and installed beside restmap"
    }
}
