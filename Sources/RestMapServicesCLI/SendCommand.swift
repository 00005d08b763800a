import ArgumentParser
import Foundation
import HTTPTypes
import RestMap
import RestMapCLICore
import RestMapClient

/// `restmap send`: serializes a record with the request descriptor, sends it, prints the answer.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: ServicesCommand.send.abstract,
        discussion: """
            RECORD is a JSON object as `restmap map` prints records: "$entity" (or --entity) names the entity, the \
            other keys are its attributes, and relationships hold such objects. TARGET is a named route or a path; \
            the route's parameters come from --param, then from the record's attributes. Standard input is read \
            for the record when RECORD is '-', or when RECORD is missing and the method sends a body (POST, PUT, \
            PATCH); a DELETE without RECORD sends no record and no body. Exit status as for `get`; a failed send \
            prints nothing on standard output.

            Examples:
              restmap send --schema Schemas/tasks.yaml --method POST /tasks task.json
              echo '{"$entity": "Task", "name": "Write"}' | restmap send --schema Schemas/tasks.yaml --method POST /tasks -
              restmap send --schema Schemas/tasks.yaml --method DELETE /tasks/42
            """
    )

    enum Method: String, ExpressibleByArgument, CaseIterable {
        case POST, PUT, PATCH, DELETE

        /// Whether the method sends the record as its body (DELETE sends none).
        var sendsBody: Bool { self != .DELETE }

        /// The method as the client takes it.
        var httpMethod: HTTPRequest.Method { HTTPRequest.Method(rawValue)! }
    }

    @OptionGroup var client: ClientOptions

    @Option(name: .long, help: "POST, PUT, PATCH or DELETE.")
    var method: Method

    @Option(name: .long, help: "The record's entity when the record has no \"$entity\".")
    var entity: String?

    @Flag(name: .long, help: "Indent JSON output.")
    var pretty = false

    @Argument(help: ArgumentHelp("A route name or a path.", valueName: "TARGET"))
    var target: String

    @Argument(help: ArgumentHelp("The record: a JSON file, or '-' for standard input (also read when missing, except for DELETE).",
                                 valueName: "RECORD"))
    var record: String?

    func run() async throws {
        let client = try self.client.makeClient()
        let status = await send(with: client)
        await client.shutdown()
        if status != 0 { throw ExitCode(status) }
    }

    private func send(with client: RestClient) async -> Int32 {
        do {
            let parameters = try self.client.parameters
            let response: ClientResponse
            if record == nil, !method.sendsBody {
                response = isPath(target)
                    ? try await client.send(method: method.httpMethod, path: target, parameters: parameters)
                    : try await client.send(method: method.httpMethod, route: target, parameters: parameters)
            } else {
                let made = try RecordInput.record(from: try CommandInput.read(record, what: "record"), entity: entity, mapper: client.mapper)
                response = isPath(target)
                    ? try await client.send(made, method: method.httpMethod, path: target, parameters: parameters)
                    : try await client.send(made, method: method.httpMethod, route: target, parameters: parameters)
            }
            Terminal.write(RecordWriter.output(response.result.records, format: .json, pretty: pretty))
            for error in response.result.errors { Terminal.error("restmap: record failed: \(error)\n") }
            let count = response.result.records.count
            Terminal.error("restmap: \(method.rawValue) \(response.url): \(response.status.code), \(count) record\(count == 1 ? "" : "s")\n")
            return response.result.errors.isEmpty ? 0 : 1
        } catch let error as ClientError {
            Terminal.error("restmap: \(error)\n")
            return error.exitStatus
        } catch {
            Terminal.error("restmap: \(error)\n")
            return 1
        }
    }
}

/// A record given as JSON in the output shape of `restmap map`.
enum RecordInput {
    static func record(from bytes: [UInt8], entity: String?, mapper: Mapper) throws -> Record {
        let value: Value
        do { value = try JSONText.parse(String(decoding: bytes, as: UTF8.self)) } catch {
            throw ValidationError("the record is not JSON: \(error)")
        }
        return try record(from: value, entity: entity, mapper: mapper, path: "record")
    }

    private static func record(from value: Value, entity: String?, mapper: Mapper, path: String) throws -> Record {
        guard case .object(let members) = value else { throw ValidationError("\(path) is not a JSON object") }
        guard let name = value["$entity"]?.stringValue ?? entity else {
            throw ValidationError("\(path) has no \"$entity\"; give --entity")
        }
        guard let definition = mapper.schema.entity(named: name) else { throw ValidationError("\(path): no entity named '\(name)'") }
        var values: [String: Value] = [:]
        var related: [String: [Record]] = [:]
        for member in members where member.key != "$entity" {
            if let relationship = definition.relationships.first(where: { $0.name == member.key }) {
                let items: [Value] = if case .array(let list) = member.value { list } else { [member.value] }
                related[member.key] = try items.enumerated().map { index, item in
                    try record(from: item, entity: relationship.entity.value, mapper: mapper, path: "\(path).\(member.key)[\(index)]")
                }
            } else {
                values[member.key] = member.value
            }
        }
        do { return try mapper.makeRecord(entity: name, values: values, relationships: related) } catch {
            throw ValidationError("\(path): \(error)")
        }
    }
}
