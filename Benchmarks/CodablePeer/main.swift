import Foundation

// The hand-written peer of `restmap map` for Benchmarks/Pipeline: reads the GitHub-like array
// from a file, decodes it with JSONDecoder into Codable structs (12 fields, 2 ISO 8601 dates),
// and writes it back with JSONEncoder to standard output.

struct Owner: Codable {
    var login: String
    var id: Int64
}

struct Repository: Codable {
    var id: Int64
    var name: String
    var fullName: String
    var isPrivate: Bool
    var description: String?
    var isFork: Bool
    var createdAt: Date
    var pushedAt: Date
    var stars: Int64
    var language: String?
    var forks: Int64
    var owner: Owner

    enum CodingKeys: String, CodingKey {
        case id, name, description, language, owner
        case fullName = "full_name", isPrivate = "private", isFork = "fork", createdAt = "created_at"
        case pushedAt = "pushed_at", stars = "stargazers_count", forks = "forks_count"
    }
}

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
