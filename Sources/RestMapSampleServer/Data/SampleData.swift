import Foundation

/// The `Samples/` folder the APIs are built from.
struct SampleData: Sendable {
    let folder: URL

    /// A sample that cannot be read or parsed, named by its path.
    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    /// Finds `Samples/` (holding `index.json`): in the working directory, then in every folder
    /// above the executable (`.build/debug/restmap-sample-server` lives three levels down).
    static func locate() throws(LoadError) -> SampleData {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        var folder = executable.deletingLastPathComponent()
        for _ in 0..<8 where folder.path != "/" {
            candidates.append(folder)
            folder = folder.deletingLastPathComponent()
        }
        let samples = candidates.map { $0.appendingPathComponent("Samples") }
        guard let found = samples.first(where: { FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.json").path) }) else {
            throw LoadError(description: "no Samples folder with index.json found (looked in \(samples.map(\.path).joined(separator: ", "))); pass --data DIR")
        }
        return SampleData(folder: found)
    }

    /// The raw bytes of `relativePath`.
    func bytes(_ relativePath: String) throws(LoadError) -> [UInt8] {
        let url = folder.appendingPathComponent(relativePath)
        do {
            return Array(try Data(contentsOf: url))
        } catch {
            throw LoadError(description: "\(url.path): cannot be read (\(error.localizedDescription))")
        }
    }

    /// The JSON value of `relativePath`.
    func json(_ relativePath: String) throws(LoadError) -> JSONValue {
        let data = try bytes(relativePath)
        do {
            return try JSONValue(parsing: data)
        } catch {
            throw LoadError(description: "\(folder.appendingPathComponent(relativePath).path): \(error)")
        }
    }

    /// The JSON array of `relativePath`.
    func array(_ relativePath: String) throws(LoadError) -> [JSONValue] {
        guard let elements = try json(relativePath).arrayValue else {
            throw LoadError(description: "\(folder.appendingPathComponent(relativePath).path): expected a JSON array")
        }
        return elements
    }
}
