import Foundation
import RestMapPluginKit
import Hummingbird

/// The GitHub-like API (Schemas/github.yaml): users, repositories and starred, `Link` pages,
/// validators on every 200, bearer auth on `/user…`.
actor GitHubAPI {
    /// `Last-Modified` of everything until something is starred or unstarred.
    static let initialModification = Date(timeIntervalSince1970: 1_736_769_600)   // 2025-01-13 12:00:00 UTC
    static let defaultPageSize = 30

    private let user: [UInt8]
    private let restKitUser: JSONValue
    private let sampleStarred: [JSONValue]
    /// The generated repositories of octocat, written once.
    private let generated: [[UInt8]]
    private let generatedNames: [String: Int]
    private let credentials: Credentials
    private var starred: [JSONValue]
    private var starredModification = GitHubAPI.initialModification

    init(data: SampleData, credentials: Credentials, repositories: Int) throws(SampleData.LoadError) {
        user = try data.bytes("github/user.json")
        sampleStarred = try data.array("github/starred.json")
        guard let owner = sampleStarred.lazy.compactMap({ $0["owner"] }).first(where: { $0["login"]?.stringValue == "RestKit" }) else {
            throw SampleData.LoadError(description: "\(data.folder.path)/github/starred.json: no repository owned by RestKit")
        }
        restKitUser = owner
        let octocat = sampleStarred.lazy.compactMap({ $0["owner"] }).first { $0["login"]?.stringValue == "octocat" } ?? .object([])
        generated = (0..<repositories).map { Self.generatedRepository($0 + 1, owner: octocat).bytes }
        generatedNames = Dictionary(uniqueKeysWithValues: (0..<repositories).map { (Self.generatedName($0 + 1), $0) })
        starred = sampleStarred
        self.credentials = credentials
    }

    private static func generatedName(_ number: Int) -> String {
        let digits = String(number)
        return "repo-" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    /// Repository `number` of the generated list; it depends on nothing else.
    private static func generatedRepository(_ number: Int, owner: JSONValue) -> JSONValue {
        let name = generatedName(number)
        let pushed = ISO8601Text.string(from: 1_420_070_400 + TimeInterval(number) * 3_600)
        let stars = JSONValue.integer(number * 7_919 % 10_000)
        return .object([
            "id": .integer(100_000 + number), "owner": owner, "name": .string(name),
            "full_name": .string("octocat/" + name), "description": .string("Generated repository \(number)"),
            "private": .bool(false), "fork": .bool(number % 5 == 0),
            "url": .string("https://api.github.com/repos/octocat/" + name),
            "html_url": .string("https://github.com/octocat/" + name),
            "stargazers_count": stars, "watchers_count": stars,
            "pushed_at": .string(pushed), "created_at": .string("2015-01-01T00:00:00Z"), "updated_at": .string(pushed),
        ])
    }

    nonisolated func register(on router: some RouterMethods<SampleRequestContext>) {
        // The authenticated user's routes need the bearer token.
        let credentials = credentials
        let user = router.group("/user").add(middleware: CredentialsMiddleware { request, _ in credentials.checkBearer(request.headers) } refusal: { outcome in
            .unauthorized("message", outcome == .missing ? "Requires authentication" : "Bad credentials", challenge: "Bearer realm=\"restmap-sample\"")
        })
        user.on(.get, "") { _ in self.userReply(self.user) }
        user.on(.get, "/starred") { request in await self.starredPage(request) }
        user.on(.get, "/starred/:owner/:repo") { request in await self.isStarred(request) }
        user.on(.put, "/starred/:owner/:repo") { request in await self.star(request) }
        user.on(.delete, "/starred/:owner/:repo") { request in await self.unstar(request) }
        router.on(.get, "/users/:login") { request in
            switch request.parameter("login") {
            case "octocat": self.userReply(self.user)
            case "RestKit": self.userReply(self.restKitUser.bytes)
            default: Self.notFound
            }
        }
        router.on(.get, "/users/:login/starred") { request in
            switch request.parameter("login") {
            case "octocat": await self.starredPage(request)
            case "RestKit": .linkedPage([], request: request, defaultSize: Self.defaultPageSize, lastModified: Self.initialModification)
            default: Self.notFound
            }
        }
        router.on(.get, "/users/:login/repos") { request in
            switch request.parameter("login") {
            case "octocat": .linkedPage(self.generated, request: request, defaultSize: Self.defaultPageSize, lastModified: Self.initialModification)
            case "RestKit":
                .linkedPage(self.sampleStarred.filter { $0["owner"]?["login"]?.stringValue == "RestKit" }.map(\.bytes),
                            request: request, defaultSize: Self.defaultPageSize, lastModified: Self.initialModification)
            default: Self.notFound
            }
        }
        router.on(.get, "/repos/:owner/:repo") { request in
            guard let repository = self.repository(owner: request.parameter("owner"), name: request.parameter("repo")) else { return Self.notFound }
            var reply = Reply.json(bytes: repository)
            reply.lastModified = Self.initialModification
            return reply
        }
    }

    static let notFound = Reply.json(
        .object(["message": .string("Not Found"), "documentation_url": .string("https://developer.github.com/v3")]),
        status: .notFound
    )

    private nonisolated func userReply(_ bytes: [UInt8]) -> Reply {
        var reply = Reply.json(bytes: bytes)
        reply.lastModified = Self.initialModification
        return reply
    }

    /// A known repository (sample or generated) as JSON.
    private nonisolated func repository(owner: String, name: String) -> [UInt8]? {
        if let sample = sampleStarred.first(where: { $0["full_name"]?.stringValue == owner + "/" + name }) { return sample.bytes }
        guard owner == "octocat", let index = generatedNames[name] else { return nil }
        return generated[index]
    }

    private func starredPage(_ request: RouteRequest) -> Reply {
        .linkedPage(starred.map(\.bytes), request: request, defaultSize: Self.defaultPageSize, lastModified: starredModification)
    }

    private func starredIndex(_ request: RouteRequest) -> Int? {
        let fullName = request.parameter("owner") + "/" + request.parameter("repo")
        return starred.firstIndex { $0["full_name"]?.stringValue == fullName }
    }

    private func isStarred(_ request: RouteRequest) -> Reply {
        starredIndex(request) == nil ? Self.notFound : .noContent
    }

    private func star(_ request: RouteRequest) -> Reply {
        guard let bytes = repository(owner: request.parameter("owner"), name: request.parameter("repo")) else { return Self.notFound }
        if starredIndex(request) == nil, let repository = try? JSONValue(parsing: bytes) {
            starred.append(repository)
            touch()
        }
        return .noContent
    }

    private func unstar(_ request: RouteRequest) -> Reply {
        if let index = starredIndex(request) {
            starred.remove(at: index)
            touch()
        }
        return .noContent
    }

    /// Moves `Last-Modified` of the starred list forward, at least one second.
    private func touch() {
        starredModification = max(Date(), starredModification.addingTimeInterval(1))
    }
}
