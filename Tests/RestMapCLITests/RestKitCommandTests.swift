import Foundation
import Testing

/// Issue 14's behaviours through the built `restmap` binary.
@Suite("restmap map and validate give RestKit's answers")
struct RestKitCommandTests {
    /// A fresh folder holding the given files.
    func folder(_ files: [String: String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restkit-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    func json(_ output: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(output.utf8))
    }

    @Test("An element with no mappable values is reported with its keys; the good record prints; exit 1")
    func noMappableValues() throws {
        let directory = try folder([
            "users.yaml": "restmap: 1\nentities: { User: { attributes: { userID: id, name: name } } }\nresponses: [ { entity: User } ]\n",
            "body.json": #"[{"name": null}, {"favorite_color": "blue"}]"#,
        ])
        let run = try CLI.run(["map", "--schema", "users.yaml", "body.json"], in: directory)
        #expect(run.status == 1)
        let records = try #require(try json(run.output) as? [[String: Any]])
        #expect(records.count == 1)
        #expect(records[0]["name"] is NSNull)
        #expect(run.errors.contains("[1]: User: no mappable values found for any of the attributes or relationships; the representation's keys are: favorite_color"))
    }

    @Test("@parent climbs one object level at a time")
    func parentLevels() throws {
        let directory = try folder([
            "humans.yaml": """
                restmap: 1
                entities:
                  Human: { attributes: [name], relationships: { friends: { from: people.friends, entity: Friend, many: true } } }
                  Friend: { attributes: { name: name, group: "@parent.group", human: "@parent.@parent.name" } }
                responses: [ { entity: Human } ]
                """,
            "body.json": #"{"name": "Blake", "people": {"group": "close", "friends": [{"name": "Jeff"}]}}"#,
        ])
        let run = try CLI.run(["map", "--schema", "humans.yaml", "body.json"], in: directory)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains(#"{"$entity":"Friend","name":"Jeff","group":"close","human":"Blake"}"#))
    }

    @Test("HTTP.request.URL is a full URL from baseURL, or --url; --request-header fills HTTP.request.headers")
    func fullURLs() throws {
        let directory = try folder([
            "users.yaml": """
                restmap: 1
                baseURL: http://restkit.org/api/v1
                entities: { User: { attributes: { name: name, url: "@metadata.HTTP.request.URL", token: "@metadata.HTTP.request.headers.X-Token" } } }
                responses: [ { path: /users, entity: User } ]
                """,
            "body.json": #"{"name": "Blake"}"#,
        ])
        let fromBase = try CLI.run(["map", "--schema", "users.yaml", "--path", "/users", "body.json"], in: directory)
        #expect(fromBase.status == 0, "\(fromBase.errors)")
        #expect(fromBase.output.contains(#""url":"http://restkit.org/api/v1/users""#))
        let fromURL = try CLI.run(["map", "--schema", "users.yaml", "--url", "https://mirror.restkit.org/api/v1/users?q=1",
                                   "--request-header", "X-Token: abc", "body.json"], in: directory)
        #expect(fromURL.status == 0, "\(fromURL.errors)")
        #expect(fromURL.output.contains(#""url":"https://mirror.restkit.org/api/v1/users?q=1","token":"abc""#))
        let notAURL = try CLI.run(["map", "--schema", "users.yaml", "--url", "/users", "body.json"], in: directory)
        #expect(notAURL.status != 0)
        #expect(notAURL.errors.contains("--url takes a full URL"))
    }

    static let settingsSchema = """
        restmap: 1
        entities:
          Preferences:
            relationships: { settings: { entity: Setting, many: true, keyedBy: [category, key] } }
          Setting: { attributes: { category: category, key: key, value: "@self" } }
        responses: [ { entity: Preferences } ]
        """

    @Test("The settings example maps each leaf to a record with its category, key and value")
    func settings() throws {
        let directory = try folder([
            "settings.yaml": Self.settingsSchema,
            "body.json": #"{"settings": {"display": {"theme": "dark", "font": 12}}}"#,
        ])
        let run = try CLI.run(["map", "--schema", "settings.yaml", "body.json"], in: directory)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains(#"{"$entity":"Setting","category":"display","key":"theme","value":"dark"}"#))
        #expect(run.output.contains(#"{"$entity":"Setting","category":"display","key":"font","value":12}"#))
    }

    @Test("validate --sample reports no unmapped keys on keyed responses and relationships")
    func dryRunKeyed() throws {
        let directory = try folder([
            "settings.yaml": Self.settingsSchema,
            "body.json": #"{"settings": {"display": {"theme": "dark", "font": 12}}}"#,
            "members.yaml": "restmap: 1\nentities: { Member: { attributes: [login, role] } }\nresponses: [ { keyPath: members, keyedBy: login, entity: Member } ]\n",
            "members.json": #"{"members": {"ada": {"role": "admin"}, "bob": {"role": "user"}}}"#,
        ])
        for (schema, body) in [("settings.yaml", "body.json"), ("members.yaml", "members.json")] {
            let run = try CLI.run(["validate", schema, "--sample", body], in: directory)
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            #expect(!run.output.contains("unmapped"), "\(run.output)")
            #expect(!run.output.contains("warning"), "\(run.output)")
        }
    }

    @Test("Dynamic matchers pick each element's entity; one that no matcher accepts is reported")
    func dynamicMapping() throws {
        let directory = try folder([
            "shapes.yaml": """
                restmap: 1
                entities:
                  Shape:
                    dynamic:
                      match:
                        - { when: { kind: [circle, disc], radius: { type: number } }, entity: Circle }
                        - { when: { corners: { present: true } }, entity: Polygon }
                      otherwise: error
                  Circle: { attributes: [radius] }
                  Polygon: { attributes: [corners] }
                responses: [ { entity: Shape } ]
                """,
            "body.json": #"[{"kind": "disc", "radius": 2}, {"corners": 4}, {"kind": "circle", "radius": "2"}]"#,
        ])
        let run = try CLI.run(["map", "--schema", "shapes.yaml", "--format", "ndjson", "body.json"], in: directory)
        #expect(run.status == 1)
        #expect(run.output == #"{"$entity":"Circle","radius":2}"# + "\n" + #"{"$entity":"Polygon","corners":4}"# + "\n")
        #expect(run.errors.contains("[2]: Shape: no matcher of dynamic entity 'Shape' holds ('corners' is absent, 'kind' is \"circle\", 'radius' is \"2\")"))
    }

    @Test("validate reports a dynamic matcher that can never match, and an unknown matcher entity, at their positions")
    func dynamicMatchers() throws {
        let directory = try folder([
            "people.yaml": """
                restmap: 1
                entities:
                  Person:
                    dynamic:
                      match:
                        - { when: { type: [Boy, Man] }, entity: Boy }
                        - { when: { type: Boy, age: { present: true } }, entity: Gril }
                  Boy: { attributes: [name] }
                  Girl: { attributes: [name] }
                responses: [ { entity: Person } ]
                """,
        ])
        let run = try CLI.run(["validate", "people.yaml"], in: directory)
        #expect(run.status == 1)
        #expect(run.output.contains("people.yaml:7:11: warning: this matcher can never match: the one at line 6 matches everything it matches, and comes first"))
        #expect(run.output.contains("people.yaml:7:66: error: dynamic matcher refers to undefined entity 'Gril' (did you mean 'Girl'?)"))
    }
}
