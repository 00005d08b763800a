import BenchmarkData
import Foundation

// The hand-written peer of `restmap map` for Benchmarks/Pipeline: reads the GitHub-like array
// from a file, decodes it with JSONDecoder into Codable structs (12 fields, 2 ISO 8601 dates),
// and writes it back with JSONEncoder to standard output.

guard CommandLine.arguments.count == 2, let data = FileManager.default.contents(atPath: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: CodablePeer FILE\n".utf8))
    exit(2)
}
let decoder = JSONDecoder()
decoder.dateDecodingStrategy = .iso8601
let encoder = JSONEncoder()
encoder.dateEncodingStrategy = .iso8601
let repositories = try decoder.decode([Repository].self, from: data)
FileHandle.standardOutput.write(try encoder.encode(repositories))
FileHandle.standardOutput.write(Data("\n".utf8))
