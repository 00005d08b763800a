import Foundation

// `restmap get --all-pages` over loopback against the sample server, versus a Python peer
// (urllib + json, the same mapping) in the same run. Reports ratios of wall-clock times, and of the
// CPU time of the two processes (the shared server's is in neither).
//
//   swift build -c release && .build/release/ClientBenchmarks [--repositories N] [--articles N] [--runs N (default 5)]

let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
let benchmarkFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let repository = benchmarkFolder.deletingLastPathComponent().deletingLastPathComponent()

func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = CommandLine.arguments.firstIndex(of: name), index + 1 < CommandLine.arguments.count,
          let value = Int(CommandLine.arguments[index + 1]) else { return fallback }
    return value
}

let repositories = option("--repositories", 20_000)
let articles = option("--articles", 20_000)
let runs = option("--runs", 5)

/// Runs a process to its end; returns the seconds it took, the CPU seconds it used and the lines it printed.
/// The output goes to a file, counted after the process ends: a pipe read while it runs would put
/// the benchmark's own reading on the cores the process and the server share. The process is
/// spawned and reaped with `posix_spawn` and `wait4`: Foundation's `Process.waitUntilExit` polls
/// every 50 ms, which rounded every time up to the next twentieth of a second.
func timed(_ executable: String, _ arguments: [String]) throws -> (seconds: Double, cpu: Double, lines: Int) {
    let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-client-benchmark-\(getpid()).out").path
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var child: pid_t = 0
    let started = DispatchTime.now()
    let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { throw NSError(domain: "benchmark", code: Int(spawned), userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable)"]) }
    var status: Int32 = 0, usage = rusage()
    while wait4(child, &status, 0, &usage) < 0 && errno == EINTR {}
    let wall = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    guard status == 0 else {
        throw NSError(domain: "benchmark", code: Int(status),
                      userInfo: [NSLocalizedDescriptionKey: "\(executable) \(arguments) exited with wait status \(status)"])
    }
    let lines = try Data(contentsOf: URL(fileURLWithPath: outputPath)).reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
    return (wall, seconds(usage.ru_utime) + seconds(usage.ru_stime), lines)
}

// Every process runs in the repository (the schema names its plugins relative to it).
precondition(FileManager.default.changeCurrentDirectoryPath(repository.path), "cannot enter \(repository.path)")

// Start the server.
let server = Process()
server.executableURL = folder.appendingPathComponent("restmap-sample-server")
server.arguments = ["--port", "0", "--repositories", "\(repositories)", "--articles", "\(articles)"]
server.currentDirectoryURL = repository
let serverOutput = Pipe()
server.standardOutput = serverOutput
server.standardError = FileHandle.nullDevice
try server.run()
var banner = Data()
while !banner.contains(10) {
    let chunk = serverOutput.fileHandleForReading.availableData
    if chunk.isEmpty { break }
    banner += chunk
}
let listening = String(decoding: banner, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
guard listening.hasPrefix("listening on ") else { fatalError("the sample server did not start: \(listening)") }
let base = String(listening.dropFirst("listening on ".count))
defer { server.terminate() }

let restmap = folder.appendingPathComponent("restmap").path
let schema = benchmarkFolder.appendingPathComponent("repositories.yaml").path
let peer = benchmarkFolder.appendingPathComponent("peer.py").path

struct Scenario {
    var title: String
    var restmapArguments: [String]
    var peerArguments: [String]
}

let scenarios = [
    Scenario(title: "\(repositories) GitHub-like repositories, Link pages of 100, --concurrency 1",
             restmapArguments: ["repositories", "--param", "login=octocat"], peerArguments: ["repositories"]),
    Scenario(title: "\(articles) articles, numbered pages of 100, --concurrency 1",
             restmapArguments: ["articles", "--concurrency", "1"], peerArguments: ["articles"]),
    Scenario(title: "\(articles) articles, numbered pages of 100, --concurrency 4",
             restmapArguments: ["articles", "--concurrency", "4"], peerArguments: ["articles"]),
]

/// The load averages (1, 5, 15 minutes) of the machine, as /proc/loadavg tells them.
func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

print("restmap get --all-pages vs Python urllib + json, same mapping, loopback sample server, median of \(runs) runs (load average \(loadAverage()))")
print("| scenario | restmap | Python peer | ratio of medians | ratio per run, lowest–highest | CPU: restmap / peer, ratio |")
print("|---|---|---|---|---|---|")
for scenario in scenarios {
    var ours: [Double] = [], theirs: [Double] = [], ourCPU: [Double] = [], theirCPU: [Double] = []
    for _ in 0..<runs {
        let a = try timed(restmap, ["get", "--schema", schema, "--base-url", base, "--all-pages", "--format", "ndjson"]
                          + scenario.restmapArguments)
        let b = try timed("/usr/bin/env", ["python3", peer] + scenario.peerArguments + [base])
        guard a.lines == b.lines else { fatalError("\(scenario.title): restmap printed \(a.lines) records, the peer \(b.lines)") }
        ours.append(a.seconds)
        theirs.append(b.seconds)
        ourCPU.append(a.cpu)
        theirCPU.append(b.cpu)
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    let ratios = zip(theirs, ours).map { $0 / $1 }
    print(String(format: "| %@ | %.2f s (%.2f–%.2f) | %.2f s (%.2f–%.2f) | **%.1f×** | %.1f×–%.1f× | %.2f s / %.2f s, %.1f× |", scenario.title,
                 median(ours), ours.min()!, ours.max()!, median(theirs), theirs.min()!, theirs.max()!,
                 median(theirs) / median(ours), ratios.min()!, ratios.max()!,
                 median(ourCPU), median(theirCPU), median(theirCPU) / median(ourCPU)))
}
print("load average after the runs: \(loadAverage())")
