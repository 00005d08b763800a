import Foundation
import RestMap
import Testing

@Suite struct OutputTests {
    static let schema = """
    restmap: 1
    entities:
      User:
        identifiedBy: id
        attributes: { id: { from: id, type: integer }, name: name, big: { from: big, type: decimal } }
        relationships:
          best: { from: best, entity: User }
          peers: { entity: User, many: true, connect: { id: id } }
    responses: [ { entity: User } ]
    """

    @Test func recordsPrintEntityFirstAndCyclesAsReferences() throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        let result = try mapper.map(Response(path: "/", body: #"[{"id": 1, "name": "a, \"b\"", "big": 12345678901234567890.5, "best": {"id": 2, "name": "b", "best": {"id": 1}}}]"#))
        let json = RecordWriter.json(result.records)
        #expect(json == #"[{"$entity":"User","id":1,"name":"a, \"b\"","big":12345678901234567890.5,"best":{"$entity":"User","id":2,"name":"b","best":{"$entity":"User","$ref":1},"peers":[{"$entity":"User","$ref":2}]},"peers":[{"$entity":"User","$ref":1}]}]"#)
        #expect(RecordWriter.ndjson(result.records).split(separator: "\n").count == 1)
        let csv = RecordWriter.csv(result.records)
        #expect(csv == "$entity,id,name,big,best\r\nUser,1,\"a, \"\"b\"\"\",12345678901234567890.5,2\r\n")
    }

    @Test("CSV quotes a field by its bytes: a CRLF line break, a quote before a combining mark")
    func csvQuotesByBytes() throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        // "\r\n" and "\"\u{301}" are each one Character, which a character-wise check would miss.
        let result = try mapper.map(Response(path: "/", body: #"[{"id": 1, "name": "two\r\nlines"}, {"id": 2, "name": "x\"\u0301y"}]"#))
        let csv = RecordWriter.csv(result.records)
        #expect(csv == "$entity,id,name,big,best\r\nUser,1,\"two\r\nlines\",,\r\nUser,2,\"x\"\"\u{301}y\",,\r\n", "\(csv.debugDescription)")
    }
}
