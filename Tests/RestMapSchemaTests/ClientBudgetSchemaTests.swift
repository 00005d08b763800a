import Foundation
import RestMapSchema
import Testing

/// `client.rateLimit` and `auth.oauth2`: read into the model, and their mistakes reported where they are.
@Suite("Rate budget and OAuth 2.0 settings")
struct ClientBudgetSchemaTests {
    private func validate(_ top: String) -> SchemaValidation {
        let yaml = "restmap: 1\nbaseURL: https://api.example.com\n" + top + "\nentities:\n  Item: { attributes: [id] }\n"
        return Schema.validate(bytes: Array(yaml.utf8), file: "budget.yaml")
    }

    private func errors(_ top: String) -> [Diagnostic] {
        validate(top).diagnostics.filter { $0.severity == .error }
    }

    @Test("A rate budget is read; per defaults to 1 second and burst to the requests")
    func rateLimit() throws {
        let full = try #require(validate("client: { rateLimit: { requests: 10, per: 2, burst: 5 } }").schema)
        #expect(full.client.rateLimit == RateLimitSettings(requests: 10, per: 2, burst: 5))
        let short = try #require(validate("client: { rateLimit: { requests: 3 } }").schema)
        #expect(short.client.rateLimit == RateLimitSettings(requests: 3, per: 1, burst: nil))
        #expect(try #require(validate("client: { cache: false }").schema).client.rateLimit == nil)
    }

    @Test("Rate budget mistakes are errors at their place", arguments: [
        ("client:\n  rateLimit: { requests: 0 }", 4, "requests"),
        ("client:\n  rateLimit: { per: 2 }", 4, "requests"),
        ("client:\n  rateLimit:\n    requests: 5\n    burst: -1", 6, "burst"),
        ("client:\n  rateLimit: { requests: 5, pre: 1 }", 4, "per"),
    ])
    func rateLimitErrors(top: String, line: Int, word: String) {
        let found = errors(top)
        #expect(found.contains { $0.location.line == line && $0.message.contains(word) }, "\(found)")
    }

    @Test("OAuth 2.0 settings are read")
    func oauth2() throws {
        let schema = try #require(validate("""
            auth:
              oauth2:
                tokenURL: /oauth/token
                grant: refreshToken
                clientID: { env: ID }
                clientSecret: { env: SECRET }
                clientAuthentication: post
                scopes: [read, write]
                refreshToken: { env: REFRESH }
                tokenStore: state/token.json
            """).schema)
        #expect(schema.auth == .oauth2(OAuth2Settings(
            tokenURL: "/oauth/token", grant: .refreshToken, clientID: .environment("ID"), clientSecret: .environment("SECRET"),
            clientAuthentication: .post, scopes: ["read", "write"], refreshToken: .environment("REFRESH"), tokenStore: "state/token.json")))
        let minimal = try #require(validate("auth: { oauth2: { tokenURL: 'https://id.example.com/token', grant: clientCredentials, clientID: a, clientSecret: b } }").schema)
        guard case .oauth2(let settings)? = minimal.auth else { Issue.record("\(String(describing: minimal.auth))"); return }
        #expect(settings.clientAuthentication == .basic)
        #expect(settings.scopes.isEmpty)
    }

    @Test("OAuth 2.0 mistakes are errors at their place", arguments: [
        ("auth:\n  oauth2:\n    tokenURL: oauth/token\n    grant: clientCredentials\n    clientID: a\n    clientSecret: b", 5, "tokenURL"),
        ("auth:\n  oauth2:\n    tokenURL: /t\n    grant: password\n    clientID: a\n    clientSecret: b", 6, "clientCredentials"),
        ("auth:\n  oauth2:\n    tokenURL: /t\n    grant: clientCredentials\n    clientID: a", 5, "clientSecret"),
        ("auth:\n  oauth2:\n    tokenURL: /t\n    grant: refreshToken\n    clientID: a", 5, "refreshToken"),
        ("auth:\n  oauth2:\n    tokenURL: /t\n    grant: clientCredentials\n    clientID: a\n    clientSecret: b\n    tokenStore: t.json", 9, "tokenStore"),
        ("auth:\n  oauth2:\n    tokenURL: /t\n    grant: refreshToken\n    clientID: a\n    tokenStore: t.json\n    scopes: [\"read write\"]", 9, "scope"),
        ("auth:\n  oauth2:\n    tokenURL: /t\n    grant: refreshToken\n    clientID: a\n    tokenStore: ../elsewhere/t.json", 8, "inside the schema's folder"),
        ("auth:\n  oauth2:\n    tokenURL: /t\n    grant: refreshToken\n    clientID: a\n    tokenStore: /home/someone/.profile", 8, "inside the schema's folder"),
        ("auth:\n  oauth2:\n    tokenURL: /t\n    grant: refreshToken\n    clientId: a\n    tokenStore: t.json", 7, "clientID"),
        ("auth:\n  oauth2:\n    tokenURL: /t\n    grant: refreshToken\n    clientID: a\n    tokenStore: t.json\n    clientAuthentication: header", 9, "basic"),
    ])
    func oauth2Errors(top: String, line: Int, word: String) {
        let found = errors(top)
        #expect(found.contains { $0.location.line == line && $0.message.contains(word) }, "\(found)")
    }
}
