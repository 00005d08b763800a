import Foundation
import RestMapPluginLoader
import RestMapPlugins
import RestMapPluginKit
import RestMapTestSupport
import Testing

/// The first-party plugins, loaded from the .so files SwiftPM built next to the test binary.
enum BuiltPlugins {
    /// The build directory: the folder of the running test binary.
    static let directory: String = PluginSearchPath.executableDirectory!

    /// A search path of just the build directory, for first- and third-party plugins.
    static let searchPath = PluginSearchPath([directory], firstPartyDirectories: [directory])

    /// A registry with `dates`, `ids` and `csv` loaded from disk.
    static func registry() throws -> PluginRegistry {
        var registry = PluginRegistry()
        for name in ["dates", "ids", "csv"] {
            try registry.load(named: name, searchPath: searchPath)
        }
        return registry
    }

    static let loaded: PluginRegistry = try! registry()
}

/// Applies a transformer from `registry` to a value.
func transform(
    _ name: String, _ value: Value, arguments: [String: Value] = [:], in registry: PluginRegistry = BuiltPlugins.loaded
) throws -> Value {
    let definition = try #require(registry.transformer(named: name), "no transformer \(name)")
    return try definition.make(arguments).transform(value)
}

/// Applies a transformer's reverse direction.
func reverse(
    _ name: String, _ value: Value, arguments: [String: Value] = [:], in registry: PluginRegistry = BuiltPlugins.loaded
) throws -> Value {
    let definition = try #require(registry.transformer(named: name), "no transformer \(name)")
    return try definition.make(arguments).reverseTransform(value)
}

/// A fresh temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-plugins-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Compiles C source into a shared library with `cc -shared -fPIC`.
func compileSharedLibrary(_ source: String, named fileName: String, in directory: URL) throws -> String {
    let sourceURL = directory.appendingPathComponent("\(fileName).c")
    try source.write(to: sourceURL, atomically: true, encoding: .utf8)
    let output = directory.appendingPathComponent(fileName).path
    let result = try run("/usr/bin/env", ["cc", "-shared", "-fPIC", "-o", output, sourceURL.path], timeout: 120)
    try #require(result.status == 0, "cc failed: \(result.output)")
    return output
}

/// Runs a process to completion (or until `timeout`), returning its status and combined output.
func run(_ executable: String, _ arguments: [String], timeout: TimeInterval) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let logURL = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-run-\(UUID().uuidString).log")
    _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
    let log = try FileHandle(forWritingTo: logURL)
    defer { try? FileManager.default.removeItem(at: logURL) }
    process.standardOutput = log
    process.standardError = log
    try process.run()
    let timedOut = !ChildProcess.waitForExit(of: process, timeout: timeout)
    if timedOut { process.terminate(); process.waitUntilExit() }
    try log.close()
    var output = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
    if timedOut { output += "\n(timed out after \(Int(timeout)) s)" }
    return (timedOut ? -1 : process.terminationStatus, output)
}
