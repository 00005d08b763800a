import Foundation

// The data every mapping benchmark shares: the generated GitHub-like array, the schema that maps
// it, and the hand-written Codable structs of the JSONDecoder peer.

/// A GitHub-like array of about `megabytes` MB: 27 fields per repository, a nested owner shared
/// by many repositories, two ISO 8601 dates; `starsOffset` shifts every star count (an update pass).
public func makeDocument(megabytes: Int, starsOffset: Int = 0) -> [UInt8] {
    let targetBytes = megabytes << 20
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
        "homepage":null,"size":\(index * 13 % 100_000),"stargazers_count":\(index * 7 % 50_000 + starsOffset),"watchers_count":\(index * 7 % 50_000),\
        "language":\(language == "null" ? "null" : "\"\(language)\""),"has_issues":true,"has_projects":false,"has_downloads":true,\
        "has_wiki":true,"forks_count":\(index % 1000),"open_issues_count":\(index % 50),"forks":\(index % 1000),"open_issues":\(index % 50),\
        "watchers":\(index * 7 % 50_000),"default_branch":"main","score":\(Double(index % 100) / 4)}
        """
        index += 1
    }
    text += "]"
    return Array(text.utf8)
}

/// The schema the benchmarks map it with: 12 of the 27 fields, the owner nested and identified.
public let schemaText = """
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

/// The Codable peer's owner.
public struct Owner: Codable, Sendable {
    public var login: String
    public var id: Int64
}

/// The Codable peer's repository (the same 12 fields as the schema).
public struct Repository: Codable, Sendable {
    public var id: Int64
    public var name: String
    public var fullName: String
    public var isPrivate: Bool
    public var description: String?
    public var isFork: Bool
    public var createdAt: Date
    public var pushedAt: Date
    public var stars: Int64
    public var language: String?
    public var forks: Int64
    public var owner: Owner

    enum CodingKeys: String, CodingKey {
        case id, name, description, language, owner
        case fullName = "full_name", isPrivate = "private", isFork = "fork", createdAt = "created_at"
        case pushedAt = "pushed_at", stars = "stargazers_count", forks = "forks_count"
    }
}

/// The median of `values` (the middle one of an odd count).
public func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Wall-clock and CPU seconds (of the whole process: only the measured work runs meanwhile).
public func seconds(_ body: () async throws -> Void) async rethrows -> (wall: Double, cpu: Double) {
    func cpu() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    let start = DispatchTime.now().uptimeNanoseconds, startCPU = cpu()
    try await body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpu() - startCPU)
}

/// The array of `megabytes` MB and the same with every star count changed (an update pass),
/// written to files in `folder`: the documents and the files' paths.
public func writeImportDocuments(megabytes: Int, to folder: URL) throws -> (documents: [[UInt8]], files: [String]) {
    let documents = [makeDocument(megabytes: megabytes), makeDocument(megabytes: megabytes, starsOffset: 1)]
    let files = try documents.enumerated().map { index, bytes in
        let url = folder.appendingPathComponent("document-\(index).json")
        try Data(bytes).write(to: url)
        return url.path
    }
    return (documents, files)
}
