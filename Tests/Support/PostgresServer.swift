import Foundation
import Synchronization

/// A PostgreSQL server for the tests, on 127.0.0.1: the one `RESTMAP_TEST_DATABASE_URL` names
/// (`.ci/run` starts a throwaway cluster and sets it), else a throwaway cluster this test process
/// starts once (`initdb` in a temporary folder, a free port, trust authentication) and stops
/// when it exits. As root, `initdb` and `pg_ctl` run as the `postgres` user (they refuse root).
public enum PostgresServer {
    /// The URL of the server's `postgres` database, for administration.
    public static func administrationURL() throws -> String {
        try started.get()
    }

    /// A new, empty database on the server: its URL. Every test takes its own.
    public static func freshDatabase() throws -> String {
        let admin = try administrationURL()
        let name = "restmap_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))"
        let created = try psql(admin, "CREATE DATABASE \(name)")
        guard created.status == 0 else { throw TestSupportError("CREATE DATABASE failed: \(created.errors)") }
        return replacingDatabase(of: admin, with: name)
    }

    /// Runs SQL with `psql` (unaligned, tuples only: rows as `|`-separated lines).
    public static func psql(_ url: String, _ sql: String) throws -> ProcessOutput {
        try ChildProcess.run(try program("psql"), [url, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    /// `url` with its database replaced.
    static func replacingDatabase(of url: String, with database: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.path = "/" + database
        return components.string ?? url
    }

    private static let started: Result<String, any Error> = Result {
        if let url = ProcessInfo.processInfo.environment["RESTMAP_TEST_DATABASE_URL"], !url.isEmpty { return url }
        return try startCluster()
    }

    /// The data folder of the cluster this process started, stopped at exit.
    private static let clusterFolder = Mutex<String?>(nil)

    private static func startCluster() throws -> String {
        let asRoot = getuid() == 0
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var command: [String] = []
        if asRoot {
            let chown = try ChildProcess.run(URL(fileURLWithPath: "/bin/chown"), ["postgres:postgres", folder])
            guard chown.status == 0 else { throw TestSupportError("chown postgres \(folder): \(chown.errors)") }
            command = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        }
        // Output to a file, not a pipe: the server `pg_ctl` starts keeps its descriptors open.
        func run(_ arguments: [String]) throws {
            let log = folder + "/setup.log"
            let status = try spawn(command + arguments, output: log, in: folder)
            guard status == 0 else {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw TestSupportError("\(arguments.joined(separator: " ")) failed: \(text)")
            }
        }
        let data = folder + "/data"
        try run([try program("initdb").path, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
        let port = try freePort()
        try run([try program("pg_ctl").path, "-D", data, "-l", folder + "/server.log", "-w", "-o",
                 "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", "start"])
        clusterFolder.withLock { $0 = data }
        atexit {
            guard let data = PostgresServer.clusterFolder.withLock({ $0 }) else { return }
            let stop = (getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [(try? PostgresServer.program("pg_ctl").path) ?? "pg_ctl", "-D", data, "-m", "immediate", "stop"]
            _ = try? PostgresServer.spawn(stop, output: "/dev/null", in: "/")
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: data).deletingLastPathComponent().path)
        }
        return "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=disable"
    }

    /// Runs a program to its end with its output appended to a file; its exit status. (With
    /// `posix_spawn` and `waitpid`: Foundation's `Process` may miss the end of a program that
    /// starts a daemon.)
    static func spawn(_ arguments: [String], output: String, in directory: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let command = (["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in command { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, command, environ)
        guard spawned == 0 else { throw TestSupportError("\(arguments[0]): posix_spawn failed (\(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status >> 8) & 0xff
    }

    /// A PostgreSQL program: on the PATH, else in Debian's versioned folder.
    static func program(_ name: String) throws -> URL {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted(by: >)
        for folder in path + versions.map({ "/usr/lib/postgresql/\($0)/bin" }) {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        throw TestSupportError("\(name) is missing: install PostgreSQL (apt-get install postgresql) or set RESTMAP_TEST_DATABASE_URL")
    }

    /// A loopback port no one listens on now.
    private static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestSupportError("socket() failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw TestSupportError("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
