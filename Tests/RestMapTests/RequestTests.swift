import Foundation
import RestMap
import Testing

@Suite struct RequestTests {
    static let schema = """
    restmap: 1
    entities:
      User:
        identifiedBy: id
        attributes: { id: { from: id, type: integer }, name: { from: profile.name }, joined: { from: joined_at, type: date }, tag: { from: tag, transform: { lookup: { values: { a: Alpha } } } }, count: items.@count }
        relationships:
          friends: { from: friends, entity: User, many: true }
          owner: { entity: User, connect: { id: id } }
      Task:
        attributes: [name, done]
    responses: [ { entity: User } ]
    requests:
      - { entity: Task, method: POST, rootKeyPath: task, format: form }
      - { entity: Task, attributes: { "task.title": name } }
    """

    let mapper: Mapper
    init() throws { mapper = try Fixture.mapper(yaml: Self.schema) }

    @Test func inverseMappingNestsKeysAndSerializesDates() throws {
        let result = try mapper.map(Response(path: "/", body: #"[{"id": 1, "profile": {"name": "Ann"}, "joined_at": 1363198221, "tag": "a", "items": [1], "friends": [{"id": 2, "profile": {"name": "Bob"}}]}]"#))
        let body = try mapper.requestBody(for: try #require(result.records.first))
        #expect(body.contentType == "application/json")
        #expect(body.text == #"{"id":1,"profile":{"name":"Ann"},"joined_at":"2013-03-13T18:10:21Z","tag":"a","friends":[{"id":2,"profile":{"name":"Bob"}}]}"#)
    }

    @Test func cyclicGraphsSerializeWithoutLooping() throws {
        let result = try mapper.map(Response(path: "/", body: #"[{"id": 1, "friends": [{"id": 2, "friends": [{"id": 1}]}]}]"#))
        let body = try mapper.requestBody(for: try #require(result.records.first))
        #expect(body.text == #"{"id":1,"friends":[{"id":2,"friends":[{"id":1}]}]}"#)
    }

    @Test func explicitKeysRootKeyPathAndFormEncoding() throws {
        let task = try mapper.makeRecord(entity: "Task", values: ["name": .string("Buy milk & eggs"), "done": .bool(false)])
        let form = try mapper.requestBody(for: task, method: "POST")
        #expect(form.contentType == "application/x-www-form-urlencoded")
        #expect(form.text == "task[name]=Buy+milk+%26+eggs&task[done]=false")
        let json = try mapper.requestBody(for: task, method: "PUT")
        #expect(json.text == #"{"task":{"title":"Buy milk & eggs"}}"#)
    }

    @Test func unknownAttributesAreRefused() {
        #expect(throws: SerializationError.self) {
            try mapper.makeRecord(entity: "Task", values: ["nmae": .string("x")])
        }
    }
}
