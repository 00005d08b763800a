import Foundation
import Testing

extension CLI {
    /// Runs `restmap map` on a schema and a body written into a folder of their own.
    static func map(schema: String, body: String, arguments: [String] = []) throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-core-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try schema.write(to: folder.appendingPathComponent("s.yaml"), atomically: true, encoding: .utf8)
        try body.write(to: folder.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
        return try run(["map", "--schema", "s.yaml"] + arguments + ["b.json"], in: folder)
    }

    /// The records `restmap map` printed as a JSON array.
    static func records(_ output: String) throws -> [[String: Any]] {
        try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
    }
}

/// An empty object `{}` standing for a related record is nothing, through the built binary.
@Suite("restmap map: an empty object under a relationship")
struct EmptyObjectCommandTests {
        static let charges = """
        restmap: 1
        entities:
          Charge:
            identifiedBy: id
            attributes: [id]
            relationships:
              metadata: { entity: Metadata }
              refunds: { entity: Refund, many: true }
          Metadata: { attributes: [order] }
          Refund: { attributes: [id] }
        responses: [{ keyPath: data, entity: Charge }]
        """

    @Test("Stripe's metadata: {} beside metadata with keys maps both charges, exit 0")
    func emptyObjectUnderARelationshipIsNothing() throws {
        let run = try CLI.map(schema: Self.charges, body: """
            {"data": [{"id": "ch_1", "metadata": {"order": "6735"}, "refunds": [{}]},
                      {"id": "ch_2", "metadata": {}, "refunds": [{}, {"id": "re_1"}]}]}
            """)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.isEmpty)
        let charges = try CLI.records(run.output)
        #expect(charges.count == 2)
        #expect((charges[0]["metadata"] as? [String: Any])?["order"] as? String == "6735")
        #expect(charges[1]["metadata"] is NSNull)
        #expect((charges[0]["refunds"] as? [Any])?.count == 0)
        #expect((charges[1]["refunds"] as? [[String: Any]])?.map { $0["id"] as? String } == ["re_1"])
    }

    @Test("A non-empty object with nothing mappable under a relationship is still reported, exit 1")
    func nonEmptyObjectWithNothingMappableIsReported() throws {
        let run = try CLI.map(schema: Self.charges, body: #"{"data": [{"id": "ch_1", "metadata": {"note": "x"}}]}"#)
        #expect(run.status == 1)
        #expect(run.errors.contains("data[0].metadata: Metadata: no mappable values found for any of the attributes or relationships; the representation's keys are: note"))
        #expect(try CLI.records(run.output).count == 1)
    }

    @Test("A body of empty objects where a descriptor wants records still gets the documented error")
    func emptyObjectsAtTheRootAreStillReported() throws {
        let run = try CLI.map(schema: Self.charges, body: #"{"data": [{}, {}]}"#)
        #expect(run.status == 1)
        #expect(run.errors.contains("data[0]: Charge: no mappable values found"))
        #expect(run.errors.contains("data[1]: Charge: no mappable values found"))
        #expect(try CLI.records(run.output).isEmpty)
        let nothing = try CLI.map(schema: Self.charges, body: "{}")
        #expect(nothing.status == 1)
        #expect(nothing.errors.contains("No mappable object representations were found at the key paths searched: data; the body is an empty object"))
    }
}
