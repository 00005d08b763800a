import Foundation
import RestMap
import RestMapDates
import RestMapPlugins
import RestMapSchema

// Maps a generated ~20 MB GitHub-like array (nested owner, 2 dates, 27 fields per repository,
// 12 of them mapped) with RestMap and, in the same run, with JSONDecoder into hand-written
// Codable structs, and prints the throughput ratio. Run: swift run -c release RestMapBenchmarks

let targetBytes = (CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20) << 20
/// `--profile` maps with RestMap only, for a profiler.
let profileOnly = CommandLine.arguments.contains("--profile")
let rounds = 7

/// The generated document.
func makeDocument() -> [UInt8] {
    var text = "["
    var index = 0
    let languages = ["Swift", "C", "Ruby", "Go", "Rust", "null"]
    while text.utf8.count < targetBytes {
        if index > 0 { text += "," }
        let owner = index % 977
        let language = languages[index % languages.count]
        text += """
        {"id":\(100_000 + index),"node_id":"MDEwOlJlcG9zaXRvcnkx\(index)","name":"repo-\(index)","full_name":"user\(owner)/repo-\(index)",\
        "private":\(index % 7 == 0),"owner":{"login":"user\(owner)","id":\(owner),"node_id":"MDQ6VXNlcj\(owner)",\
        "avatar_url":"https://avatars.example.com/u/\(owner)?v=4","gravatar_id":"","url":"https://api.example.com/users/user\(owner)",\
        "html_url":"https://example.com/user\(owner)","type":"User","site_admin":false},\
        "html_url":"https://example.com/user\(owner)/repo-\(index)","description":"Repository number \(index) with a \\"quoted\\" word",\
        "fork":\(index % 3 == 0),"url":"https://api.example.com/repos/user\(owner)/repo-\(index)",\
        "created_at":"2013-0\(1 + index % 9)-1\(index % 10)T1\(index % 10):2\(index % 6):3\(index % 10)Z",\
        "updated_at":"2020-02-02T02:02:02Z","pushed_at":"2021-1\(index % 3)-2\(index % 8)T0\(index % 10):15:5\(index % 10)Z",\
        "homepage":null,"size":\(index * 13 % 100_000),"stargazers_count":\(index * 7 % 50_000),"watchers_count":\(index * 7 % 50_000),\
        "language":\(language == "null" ? "null" : "\"\(language)\""),"has_issues":true,"has_projects":false,"has_downloads":true,\
        "has_wiki":true,"forks_count":\(index % 1000),"open_issues_count":\(index % 50),"forks":\(index % 1000),"open_issues":\(index % 50),\
        "watchers":\(index * 7 % 50_000),"default_branch":"main","score":\(Double(index % 100) / 4)}
        """
        index += 1
    }
    text += "]"
    return Array(text.utf8)
}

let schemaText = """
restmap: 1
plugins: [dates]
entities:
  Repository:
    identifiedBy: id
    attributes:
      id: { from: id, type: integer }
      name: name
      fullName: full_name
      isPrivate: { from: private, type: boolean }
      description: description
      isFork: { from: fork, type: boolean }
      createdAt: { from: created_at, type: date }
      pushedAt: { from: pushed_at, type: date }
      stars: { from: stargazers_count, type: integer }
      language: language
      forks: { from: forks_count, type: integer }
    relationships:
      owner: { from: owner, entity: Owner }
  Owner:
    identifiedBy: id
    attributes:
      login: login
      id: { from: id, type: integer }
responses:
  - { entity: Repository }
"""

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

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func time(_ body: () throws -> Int) rethrows -> (seconds: Double, count: Int) {
    let start = DispatchTime.now().uptimeNanoseconds
    let count = try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, count)
}

let document = makeDocument()
let data = Data(document)
var plugins = PluginRegistry()
try plugins.register(DatesPlugin.self)
let loaded = Schema.load(bytes: Array(schemaText.utf8), file: "benchmark.yaml")
guard let schema = loaded.schema else { fatalError(loaded.diagnostics.map(\.description).joined(separator: "\n")) }
let mapper = try Mapper(schema: schema, plugins: plugins)
let decoder = JSONDecoder()
decoder.dateDecodingStrategy = .iso8601

var restMapTimes: [Double] = []
var codableTimes: [Double] = []
var counts = (0, 0)
for _ in 0..<rounds {
    let restMap = try time {
        let result = try mapper.map(Response(path: "/repositories", body: document))
        precondition(result.errors.isEmpty, "\(result.errors.prefix(3))")
        return result.records.count
    }
    if profileOnly { continue }
    let codable = try time { try decoder.decode([Repository].self, from: data).count }
    precondition(restMap.count == codable.count, "RestMap mapped \(restMap.count), Codable decoded \(codable.count)")
    restMapTimes.append(restMap.seconds)
    codableTimes.append(codable.seconds)
    counts = (restMap.count, codable.count)
}

if profileOnly { exit(0) }
let megabytes = Double(document.count) / 1_048_576
let restMapRate = megabytes / median(restMapTimes)
let codableRate = megabytes / median(codableTimes)
print("document: \(String(format: "%.1f", megabytes)) MB, \(counts.0) repositories, 12 of 27 fields mapped, median of \(rounds) rounds")
print("RestMap:            \(String(format: "%7.1f", restMapRate)) MB/s")
print("JSONDecoder+Codable:\(String(format: "%7.1f", codableRate)) MB/s")
print("ratio RestMap / Codable: \(String(format: "%.2f", restMapRate / codableRate))x")
