import RestMapPlugins
import RestMapPluginKit
import Testing

@Suite struct IDsTests {
    let oid = "507f1f77bcf86cd799439011"

    @Test func objectIdBothShapes() throws {
        #expect(try transform("ids.oid", .object([Value.Member(key: "$oid", value: .string(oid))])) == .string(oid))
        #expect(try transform("ids.oid", .string(oid)) == .string(oid))
        #expect(try transform("ids.oid", .null) == .null)
        #expect(try transform("ids.oid", .string("manually-assigned-id-243")) == .string("manually-assigned-id-243"))
        #expect(throws: PluginError.transformerFailed(transformer: "ids.oid", message: "'xyz' is not an ObjectId (24 hexadecimal digits)")) {
            try transform("ids.oid", .object([Value.Member(key: "$oid", value: .string("xyz"))]))
        }
        #expect(throws: PluginError.self) { try transform("ids.oid", .object([Value.Member(key: "id", value: .string(oid))])) }
    }

    @Test func integers() throws {
        #expect(try transform("ids.integer", .string("9223372036854775807")) == .integer(.max))
        #expect(try transform("ids.integer", .integer(42)) == .integer(42))
        #expect(try transform("ids.integer", .number(42)) == .integer(42))
        #expect(throws: PluginError.self) { try transform("ids.integer", .string("42.5")) }
        #expect(throws: PluginError.self) { try transform("ids.integer", .number(42.5)) }
        #expect(throws: PluginError.self) { try transform("ids.integer", .string("9223372036854775808")) }
    }

    @Test func strings() throws {
        #expect(try transform("ids.string", .integer(42)) == .string("42"))
        #expect(try transform("ids.string", .number(42.0)) == .string("42"))
        #expect(try transform("ids.string", .number(4.5)) == .string("4.5"))
        #expect(try transform("ids.string", .string("a")) == .string("a"))
    }

    @Test func uuids() throws {
        let canonical = "123e4567-e89b-12d3-a456-426614174000"
        #expect(try transform("ids.uuid", .string("123E4567-E89B-12D3-A456-426614174000")) == .string(canonical))
        #expect(try transform("ids.uuid", .string("{123e4567-e89b-12d3-a456-426614174000}")) == .string(canonical))
        #expect(try transform("ids.uuid", .string("123e4567e89b12d3a456426614174000")) == .string(canonical))
        #expect(throws: PluginError.self) { try transform("ids.uuid", .string("123e4567-e89b-12d3-a456-42661417400")) }
        #expect(throws: PluginError.self) { try transform("ids.uuid", .string("123e4567-e89b-12d3-a456-42661417400g")) }
    }

    @Test func lastPathComponent() throws {
        #expect(try transform("ids.lastPathComponent", .string("https://status.example.com/api/v1/services/aaron")) == .string("aaron"))
        #expect(try transform("ids.lastPathComponent", .string("/api/v1/services/aaron/")) == .string("aaron"))
        #expect(try transform("ids.lastPathComponent", .string("/services/aaron?page=2#top")) == .string("aaron"))
    }

    @Test func prefixAndComposite() throws {
        #expect(try transform("ids.prefix", .integer(42), arguments: ["prefix": .string("gh-")]) == .string("gh-42"))
        #expect(try reverse("ids.prefix", .string("gh-42"), arguments: ["prefix": .string("gh-")]) == .string("42"))
        let object = Value.object([
            Value.Member(key: "owner", value: .string("apple")), Value.Member(key: "number", value: .integer(7)),
        ])
        let arguments: [String: Value] = ["keys": .array([.string("owner"), .string("number")]), "separator": .string("#")]
        #expect(try transform("ids.composite", object, arguments: arguments) == .string("apple#7"))
        #expect(try reverse("ids.composite", .string("apple#7"), arguments: arguments)
            == .object([Value.Member(key: "owner", value: .string("apple")), Value.Member(key: "number", value: .string("7"))]))
        #expect(try transform("ids.composite", object, arguments: ["keys": .array([.string("owner"), .string("number")])]) == .string("apple:7"))
        #expect(throws: PluginError.self) { try transform("ids.composite", .object([]), arguments: arguments) }
    }
}
