import Foundation
import Testing

/// `restmap map --stream` and `--input ndjson` run as a process.
@Suite("restmap map streaming")
struct StreamCommandTests {
    static let schema = """
        restmap: 1
        entities:
          Repo:
            identifiedBy: id
            attributes:
              id: { from: id, type: integer }
              name: name
            relationships:
              owner: { from: owner, entity: Owner }
          Owner:
            identifiedBy: login
            attributes: { login: login }
        responses:
          - { path: /repos, entity: Repo }
        """

    /// A folder holding the schema and a body of `count` repositories.
    func folder(count: Int) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.schema.write(to: folder.appendingPathComponent("schema.yaml"), atomically: true, encoding: .utf8)
        let items = (0..<count).map { #"{"id": \#($0), "name": "r\#($0)", "owner": {"login": "u\#($0 % 5)"}}"# }
        try ("[" + items.joined(separator: ",") + "]").write(to: folder.appendingPathComponent("body.json"), atomically: true, encoding: .utf8)
        try items.joined(separator: "\n").write(to: folder.appendingPathComponent("body.ndjson"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test("--stream prints what the whole-body mapping prints, in both formats and with several jobs")
    func streamMatchesWholeBody() throws {
        let folder = try folder(count: 3000)
        defer { try? FileManager.default.removeItem(at: folder) }
        for format in ["json", "ndjson"] {
            let base = ["map", "--schema", "schema.yaml", "--path", "/repos", "--format", format]
            let whole = try CLI.run(base + ["body.json"], in: folder)
            #expect(whole.status == 0, "\(whole.errors)")
            for jobs in ["1", "3"] {
                let streamed = try CLI.run(base + ["--stream", "--jobs", jobs, "body.json"], in: folder)
                #expect(streamed.status == 0, "\(streamed.errors)")
                #expect(streamed.output == whole.output)
            }
            let lines = try CLI.run(base + ["--input", "ndjson", "--entity", "Repo", "body.ndjson"], in: folder)
            #expect(lines.output == whole.output)
        }
    }

    @Test("A body of more than 1 MB that is one array maps on several threads (--jobs) to the bytes one thread prints")
    func wholeBodyOnSeveralThreads() throws {
        let folder = try folder(count: 25_000)
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("body.json").path)[.size] as? Int
        #expect((size ?? 0) > 1 << 20)
        for format in ["json", "ndjson"] {
            let base = ["map", "--schema", "schema.yaml", "--path", "/repos", "--format", format]
            let one = try CLI.run(base + ["--jobs", "1", "body.json"], in: folder)
            #expect(one.status == 0, "\(one.errors)")
            #expect(one.output.split(separator: "\n").count == (format == "json" ? 1 : 25_000))
            let three = try CLI.run(base + ["--jobs", "3", "body.json"], in: folder)
            #expect(three.status == 0, "\(three.errors)")
            #expect(three.output == one.output)
        }
    }

    @Test("A bad NDJSON line on standard input is reported by line number; the other lines print; exit status 1")
    func badLine() throws {
        let folder = try folder(count: 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = #"{"id": 1, "name": "a"}"# + "\n" + #"{"id": 2, "name": "b"}"# + "\n{\"id\": 3,\n" + #"{"id": 4}"# + "\n"
        let run = try CLI.run(["map", "--schema", "schema.yaml", "--input", "ndjson", "--entity", "Repo", "--format", "ndjson", "-"],
                              in: folder, input: Data(input.utf8))
        #expect(run.status == 1)
        #expect(run.output.split(separator: "\n").count == 3)
        #expect(run.errors.contains("line 3: malformed JSON"))
    }

    @Test("NDJSON from a file, read and cut by the mapping threads, prints what it prints from standard input: records, bad lines, conflicts")
    func ndjsonFileReadByThreads() throws {
        let folder = try folder(count: 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        // About 3 MB: several chunks per thread. Blank lines, CRLF endings, malformed lines and
        // one owner given twice with different content sit in different chunks; no final newline.
        let lines = (0..<40_000).map { index -> String in
            switch index {
            case 9_999, 30_001: return #"{"id": \#(index), "name": "#
            case 20_000: return ""
            case 35_000: return #"{"id": 5, "name": "another"}"#
            default: return #"{"id": \#(index), "name": "repository number \#(index)", "owner": {"login": "u\#(index % 5)"}}"# + (index % 7 == 0 ? "\r" : "")
            }
        }
        let base = ["map", "--schema", "schema.yaml", "--input", "ndjson", "--entity", "Repo", "--format", "ndjson"]
        let piped = try fromFileAsFromStandardInput(base, body: lines.joined(separator: "\n"), file: "lines.ndjson", in: folder)
        #expect(piped.status == 1)
        #expect(piped.output.split(separator: "\n").count == 40_000 - 4)
        #expect(piped.errors.contains("line 10000: malformed JSON"))
        #expect(piped.errors.contains("line 30002: malformed JSON"))
        #expect(piped.errors.contains("line 35001: a record of entity 'Repo' with identification 5 differs"))
    }

    /// Writes `body` to `file` and runs `base` on it with 1, 2 and 5 jobs: each run must print
    /// byte for byte what `base` prints from standard input (with two jobs), which it returns.
    func fromFileAsFromStandardInput(_ base: [String], body: String, file: String, in folder: URL) throws -> CLI.Run {
        try body.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
        let piped = try CLI.run(base + ["--jobs", "2", "-"], in: folder, input: Data(body.utf8))
        for jobs in ["1", "2", "5"] {
            let read = try CLI.run(base + ["--jobs", jobs, file], in: folder)
            #expect(read.status == piped.status, "\(file), jobs \(jobs)")
            #expect(read.output == piped.output, "\(file), jobs \(jobs)")
            #expect(read.errors == piped.errors, "\(file), jobs \(jobs)")
        }
        return piped
    }

    @Test("An array from a file, read and cut by the mapping threads, prints what it prints from standard input: records, bad elements, conflicts, broken framing")
    func arrayFileReadByThreads() throws {
        let folder = try folder(count: 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        // About 3 MB: several chunks per thread. Malformed elements, strings full of brackets,
        // commas and escaped quotes, and one owner given twice with different content.
        let elements = (0..<40_000).map { index -> String in
            switch index {
            case 9_999: return #"{"id": 9999, "name": }"#
            case 35_000: return #"{"id": 5, "name": "another"}"#
            default: return #"{"id": \#(index), "name": "repo \"\#(index)\" [{,}]", "owner": {"login": "u\#(index % 5)"}}"#
            }
        }
        for (name, body) in [("array.json", "[" + elements.joined(separator: ",\n") + "]\n"),
                             ("broken.json", "[" + elements[..<30_000].joined(separator: ",") + " {\"id\": 1}]")] {
            let base = ["map", "--schema", "schema.yaml", "--path", "/repos", "--stream", "--format", "ndjson"]
            let piped = try fromFileAsFromStandardInput(base, body: body, file: name, in: folder)
            #expect(piped.status == 1)
            #expect(piped.output.split(separator: "\n").count == (name == "array.json" ? 40_000 - 2 : 30_000 - 1))
            #expect(piped.errors.contains("[9999]: malformed JSON"))
            if name == "array.json" {
                #expect(piped.errors.contains("[35000]: a record of entity 'Repo' with identification 5 differs"))
            } else {
                #expect(piped.errors.contains("expected ',' or ']' after an array element"))
            }
        }
    }

    @Test("What streaming cannot do is refused with the reason: connect, CSV output, --entity without NDJSON")
    func refusals() throws {
        let connect = try CLI.run(["map", "--schema", "Schemas/tasks.yaml", "--path", "/task_list", "--stream", "Samples/tasks/task_list.json"])
        #expect(connect.status != 0)
        #expect(connect.errors.contains("uses 'connect'"))
        #expect(connect.output.isEmpty)
        let csv = try CLI.run(["map", "--schema", "Schemas/tasks.yaml", "--stream", "--format", "csv", "Samples/tasks/task_list.json"])
        #expect(csv.status != 0)
        #expect(csv.errors.contains("--format csv is not available when streaming"))
        let entity = try CLI.run(["map", "--schema", "Schemas/tasks.yaml", "--entity", "Task", "Samples/tasks/task_list.json"])
        #expect(entity.status != 0)
        #expect(entity.errors.contains("--entity needs --input ndjson"))
    }
}

/// `restmap map --watch`: a running process picks up schema edits.
@Suite("restmap map --watch")
struct WatchCommandTests {
    @Test("Editing the schema while NDJSON lines stream in: the next lines use it; a broken edit is reported and not used")
    func watch() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let schema = folder.appendingPathComponent("schema.yaml")
        func write(_ attribute: String) throws {
            try "restmap: 1\nentities:\n  Item:\n    attributes: { id: id, \(attribute): \(attribute) }\n".write(to: schema, atomically: true, encoding: .utf8)
        }
        try write("name")
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("restmap")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["map", "--schema", schema.path, "--input", "ndjson", "--entity", "Item", "--format", "ndjson", "--watch", "-"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let line = Data(#"{"id": 1, "name": "a", "title": "b"}"#.utf8 + [0x0A])
        var received = ""
        /// Sends lines until an output line satisfies `wanted` (at most 200 lines / 10 s).
        func send(until wanted: (Substring) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            for _ in 0..<200 where Date() < deadline {
                input.fileHandleForWriting.write(line)
                let chunk = output.fileHandleForReading.availableData
                received += String(decoding: chunk, as: UTF8.self)
                if received.split(separator: "\n").last.map(wanted) == true { return true }
                usleep(50_000)
            }
            return false
        }
        #expect(send { $0.contains(#""name":"a""#) })
        try "restmap: 1\nentities: [".write(to: schema, atomically: true, encoding: .utf8)
        // The broken edit is reported on standard error before the next lines are sent (waited on
        // as an event: at most 100 polls of 100 ms).
        var log = ""
        var pollDescriptor = pollfd(fd: errors.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        for _ in 0..<100 where !log.contains("schema change not used") {
            if poll(&pollDescriptor, 1, 100) > 0 { log += String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self) }
        }
        #expect(log.contains("schema change not used"), "\(log)")
        #expect(send { $0.contains(#""name":"a""#) })
        try write("title")
        #expect(send { $0.contains(#""title":"b""#) && !$0.contains("name") })
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        log += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(log.contains("schema reloaded (version 2)"))
    }
}
