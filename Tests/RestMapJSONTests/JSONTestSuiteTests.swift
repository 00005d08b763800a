import Foundation
import RestMapJSON
import Testing

/// The JSONTestSuite corpus (https://github.com/nst/JSONTestSuite, MIT): y_ must parse,
/// n_ must be rejected, i_ may go either way but must never crash.
@Suite struct JSONTestSuiteTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/JSONTestSuite/test_parsing")

    static func files(_ prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    @Test func corpusIsPresent() {
        #expect(Self.files("y_").count == 95)
        #expect(Self.files("n_").count == 188)
        #expect(Self.files("i_").count == 35)
    }

    @Test(arguments: files("y_"))
    func acceptsValidDocument(_ name: String) throws {
        #expect(throws: Never.self, "\(name) must parse") { _ = try JSONDocument(bytes: try Self.bytes(name)) }
    }

    @Test(arguments: files("n_"))
    func rejectsInvalidDocument(_ name: String) throws {
        let bytes = try Self.bytes(name)
        #expect(throws: JSONParseError.self, "\(name) must be rejected") { _ = try JSONDocument(bytes: bytes) }
    }

    @Test(arguments: files("i_"))
    func implementationDefinedDocumentNeverCrashes(_ name: String) throws {
        let bytes = try Self.bytes(name)
        let root: JSONNode
        do {
            root = try JSONDocument(bytes: bytes).root
        } catch {
            #expect(error.offset <= bytes.count, "\(name): error offset inside the input")
            return
        }
        // An accepted document must be readable in full and survive a round trip.
        var writer = JSONWriter()
        Self.write(root, to: &writer)
        let reparsed = try JSONDocument(bytes: writer.bytes).root
        #expect(reparsed.kind == root.kind && reparsed.count == root.count, "\(name): round trip changed the document")
    }

    /// Writes a node and everything under it.
    static func write(_ node: JSONNode, to writer: inout JSONWriter) {
        switch node.kind {
        case .null: writer.null()
        case .bool: writer.bool(node.boolValue!)
        case .number: writer.raw(node.number!.text)
        case .string: writer.string(node.stringValue!)
        case .array:
            writer.beginArray()
            for element in node.elements { write(element, to: &writer) }
            writer.endArray()
        case .object:
            writer.beginObject()
            for member in node.members {
                writer.key(member.key)
                write(member.value, to: &writer)
            }
            writer.endObject()
        }
    }
}
