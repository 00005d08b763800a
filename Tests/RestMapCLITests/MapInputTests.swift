import Foundation
import RestMapTestSupport
import Testing

/// `restmap map`'s input: `--jobs` bounds, `--max-body`, streaming by default above a size,
/// malformed and empty bodies in both modes, a terminal on standard input.
@Suite("restmap map input and limits")
struct MapInputTests {
    /// The streaming suite's schema: repositories with owners, one descriptor, streamable.
    static let schema = StreamCommandTests.schema

    /// A folder holding the schema, a body of `count` repositories and the tasks schema (not streamable).
    func folder(count: Int) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.schema.write(to: folder.appendingPathComponent("schema.yaml"), atomically: true, encoding: .utf8)
        try write(Self.repositories(count), to: folder.appendingPathComponent("body.json"))
        return folder
    }

    static func repositories(_ count: Int) -> String {
        "[" + (0..<count).map { #"{"id": \#($0), "name": "r\#($0)", "owner": {"login": "u\#($0 % 5)"}}"# }.joined(separator: ",") + "]"
    }

    func write(_ text: String, to url: URL) throws {
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// Runs the built `restmap` in `folder` with environment additions.
    func run(_ arguments: [String], in folder: URL = CLI.repository, input: Data? = nil,
             environment: [String: String] = [:]) throws -> CLI.Run {
        try ChildProcess.run(try TestPaths.built("restmap"), arguments, in: folder, input: input, environment: environment)
    }

    // MARK: --jobs

    @Test("--jobs beyond 1024 (or below 1) is a usage error in every command that takes it, before anything runs")
    func absurdJobs() throws {
        let folder = try folder(count: 3)
        defer { try? FileManager.default.removeItem(at: folder) }
        let commands: [[String]] = [
            ["map", "--schema", "schema.yaml", "--path", "/repos", "--stream", "body.json"],
            ["map", "--schema", "schema.yaml", "--input", "ndjson", "--entity", "Repo", "body.json"],
            ["map", "--schema", "schema.yaml", "--path", "/repos", "body.json"],
            ["store", "import", "--schema", "schema.yaml", "--db", "store.sqlite", "--path", "/repos", "body.json"],
            ["seed", "--schema", "schema.yaml", "--db", "seed.sqlite", "body.json:/repos"],
        ]
        for command in commands {
            for jobs in ["32768", "1025", "0"] {
                let run = try run(command + ["--jobs", jobs], in: folder)
                #expect(run.status == 2, "\(command) --jobs \(jobs): \(run.errors)")
                #expect(run.errors.contains("--jobs takes a positive number of threads up to 1024, found \(jobs)"), "\(run.errors)")
                #expect(run.output.isEmpty)
            }
        }
        // Nothing was written by the refused store commands.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("store.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("seed.sqlite").path))
    }

    @Test("A large --jobs is lowered to one thread per core, and prints what one thread prints")
    func jobsAreClamped() throws {
        let folder = try folder(count: 3000)
        defer { try? FileManager.default.removeItem(at: folder) }
        let helpful = ProcessInfo.processInfo.activeProcessorCount
        let one = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "--jobs", "1", "body.json"], in: folder)
        #expect(one.status == 0, "\(one.errors)")
        for mode in [["--stream"], ["--no-stream"], ["--input", "ndjson"]] {
            var input: Data?
            var body = "body.json"
            if mode.contains("ndjson") {
                // One line: the whole body as one response.
                input = try Data(contentsOf: folder.appendingPathComponent("body.json"))
                body = "-"
            }
            let many = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "--jobs", "1024", "--verbose"] + mode + [body],
                               in: folder, input: input)
            #expect(many.status == 0, "\(mode): \(many.errors)")
            #expect(many.errors.contains("on \(helpful) thread(s)"), "\(many.errors)")
            #expect(many.output == one.output)
        }
    }

    @Test("When the system refuses to create mapping threads, the threads that started (or the calling thread) map, and the process ends")
    func threadsThatCannotStart() throws {
        let folder = try folder(count: 20_000)
        defer { try? FileManager.default.removeItem(at: folder) }
        let one = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "--jobs", "1", "--format", "ndjson", "body.json"], in: folder)
        #expect(one.status == 0, "\(one.errors)")
        // Each new thread's stack is the stack limit (1 GiB here) and the address space is capped
        // at 3 GiB: the process and its first threads fit, most mapping threads cannot be created.
        let restmap = try TestPaths.built("restmap").path
        let script = "ulimit -s 1048576 && ulimit -v 3145728 && exec '\(restmap)' map --schema schema.yaml --path /repos "
            + "--jobs 8 --format ndjson \"$@\" body.json"
        for mode in ["--stream", "--no-stream"] {
            let run = try ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh", mode], in: folder)
            #expect(run.status == 0, "\(mode): \(run.errors)")
            #expect(run.output == one.output, "\(mode)")
        }
    }

    // MARK: --profile

    @Test("--profile prints the stages per thread and the serial fraction on standard error, and changes nothing on standard output")
    func profilePrintsStages() throws {
        let folder = try folder(count: 20_000)
        defer { try? FileManager.default.removeItem(at: folder) }
        for mode in [["--no-stream"], ["--stream"], ["--no-stream", "--jobs", "2"]] {
            let plain = try run(["map", "--schema", "schema.yaml", "--path", "/repos"] + mode + ["body.json"], in: folder)
            let profiled = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "--profile"] + mode + ["body.json"], in: folder)
            let variable = try run(["map", "--schema", "schema.yaml", "--path", "/repos"] + mode + ["body.json"], in: folder,
                                   environment: ["RESTMAP_PROFILE": "1"])
            #expect(plain.status == 0 && profiled.status == 0 && variable.status == 0, "\(mode): \(profiled.errors)")
            #expect(profiled.output == plain.output && variable.output == plain.output, "\(mode)")
            #expect(plain.errors.isEmpty, "\(mode): \(plain.errors)")
            for run in [profiled, variable] {
                let lines = run.errors.split(separator: "\n")
                #expect(lines.first?.hasPrefix("ms CPU") == true, "\(mode): \(run.errors)")
                for stage in ["parse", "map", "render"] {
                    #expect(lines.contains { $0.hasPrefix(stage + " ") }, "\(mode): \(stage) in \(run.errors)")
                }
                // A fraction between 0 and 100, then its predictions.
                let fraction = try #require(lines.last?.split(separator: " ").first { $0.hasSuffix("%;") }.flatMap { Double($0.dropLast(2)) })
                #expect(fraction > 0 && fraction < 100, "\(mode): \(run.errors)")
                #expect(lines.last?.contains("16: ") == true)
            }
        }
    }

    // MARK: --max-body

    @Test("A file over --max-body is refused by its size before it is read; exactly the limit maps")
    func fileOverTheLimit() throws {
        let folder = try folder(count: 100)
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("body.json").path)[.size] as? Int)
        for mode in [[], ["--no-stream"], ["--stream"]] {
            let refused = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "--max-body", "1000"] + mode + ["body.json"], in: folder)
            #expect(refused.errors.contains("the body (file 'body.json') is larger than 1000 bytes, the most --max-body allows: it is \(size) bytes; reading stopped after 0 bytes"),
                    "\(refused.errors)")
            #expect(refused.output.isEmpty)
            #expect(refused.status == 1)
            let exact = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "--max-body", "\(size)"] + mode + ["body.json"], in: folder)
            #expect(exact.status == 0, "\(exact.errors)")
            #expect(exact.output.components(separatedBy: #""$entity":"Repo""#).count - 1 == 100)
        }
        let usage = try run(["map", "--schema", "schema.yaml", "--max-body", "0", "body.json"], in: folder)
        #expect(usage.status == 2)
        #expect(usage.errors.contains("--max-body takes a number of bytes from 1 to"))
    }

    @Test("An endless body (/dev/zero) or a pipe over --max-body is refused once the limit is passed, having read one byte more")
    func endlessBody() throws {
        let folder = try folder(count: 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        for mode in [[], ["--no-stream"]] {
            let zero = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "--max-body", "100000"] + mode + ["/dev/zero"], in: folder)
            #expect(zero.status == 1, "\(mode)")
            #expect(zero.errors.contains("the body (file '/dev/zero') is larger than 100000 bytes, the most --max-body allows: it goes on past that; reading stopped after 100001 bytes"),
                    "\(zero.errors)")
            let piped = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "--max-body", "1000"] + mode,
                                in: folder, input: Data(Self.repositories(500).utf8))
            #expect(piped.status == 1)
            #expect(piped.errors.contains("the body (standard input) is larger than 1000 bytes, the most --max-body allows: it goes on past that; reading stopped after 1001 bytes"),
                    "\(piped.errors)")
            #expect(piped.output.isEmpty)
        }
        // NDJSON lines stream: the limit counts every line read.
        let lines = try run(["map", "--schema", "schema.yaml", "--input", "ndjson", "--entity", "Repo", "--max-body", "100000", "/dev/zero"], in: folder)
        #expect(lines.status == 1)
        #expect(lines.errors.contains("the body is larger than 100000 bytes, the most --max-body allows: reading stopped after 100001 bytes"),
                "\(lines.errors)")
    }

    // MARK: Streaming by default

    @Test("A body above RESTMAP_STREAM_THRESHOLD streams when the schema allows, from a file or a pipe, printing what whole-body mapping prints")
    func streamsAboveTheThreshold() throws {
        let folder = try folder(count: 3000)
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = ["RESTMAP_STREAM_THRESHOLD": "10000"]
        let body = try Data(contentsOf: folder.appendingPathComponent("body.json"))
        for format in ["json", "ndjson"] {
            let base = ["map", "--schema", "schema.yaml", "--path", "/repos", "--format", format, "--verbose"]
            let whole = try run(base + ["--no-stream", "body.json"], in: folder, environment: small)
            #expect(whole.status == 0, "\(whole.errors)")
            #expect(whole.errors.contains("mapping the whole body (\(body.count) bytes)"), "\(whole.errors)")
            let file = try run(base + ["body.json"], in: folder, environment: small)
            #expect(file.status == 0, "\(file.errors)")
            #expect(file.errors.contains("restmap: streaming the body (more than 10000 bytes)"), "\(file.errors)")
            #expect(file.output == whole.output)
            // From a pipe, the first 10,001 bytes are read to decide, then streamed with the rest.
            let pipe = try run(base + ["-"], in: folder, input: body, environment: small)
            #expect(pipe.status == 0, "\(pipe.errors)")
            #expect(pipe.errors.contains("restmap: streaming the body (more than 10000 bytes)"), "\(pipe.errors)")
            #expect(pipe.output == whole.output)
            // At the default threshold (64 MiB) the same body maps whole.
            let byDefault = try run(base + ["body.json"], in: folder)
            #expect(byDefault.errors.contains("mapping the whole body (\(body.count) bytes)"), "\(byDefault.errors)")
            #expect(byDefault.output == whole.output)
        }
    }

    @Test("Above the threshold, a schema that cannot stream and output that cannot stream map the whole body")
    func wholeWhenStreamingCannot() throws {
        let small = ["RESTMAP_STREAM_THRESHOLD": "100"]
        let tasks = ["map", "--schema", "Schemas/tasks.yaml", "--path", "/task_list", "--verbose", "Samples/tasks/task_list.json"]
        let connect = try run(tasks, environment: small)
        #expect(connect.status == 0, "\(connect.errors)")
        #expect(connect.errors.contains("mapping the whole body, which cannot stream: cannot stream: relationship"), "\(connect.errors)")
        let reference = try run(tasks + ["--no-stream"])
        #expect(connect.output == reference.output)
        #expect(!connect.output.isEmpty)

        let folder = try folder(count: 300)
        defer { try? FileManager.default.removeItem(at: folder) }
        for options in [["--format", "csv"], ["--pretty"], ["--strict"]] {
            let run = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "--verbose"] + options + ["body.json"],
                              in: folder, environment: small)
            #expect(run.status == 0, "\(options): \(run.errors)")
            #expect(run.errors.contains("mapping the whole body"), "\(options): \(run.errors)")
        }
        let bad = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "body.json"], in: folder,
                          environment: ["RESTMAP_STREAM_THRESHOLD": "lots"])
        #expect(bad.status == 2)
        #expect(bad.errors.contains("RESTMAP_STREAM_THRESHOLD takes a number of bytes, found 'lots'"))
        let both = try run(["map", "--schema", "schema.yaml", "--path", "/repos", "--stream", "--no-stream", "body.json"], in: folder)
        #expect(both.status == 2)
        #expect(both.errors.contains("--no-stream maps the body whole"))
    }

    @Test("A body file of a megabyte or more is read in parts by the mapping threads (also above the threshold when it cannot stream): what a pipe prints, malformed or not")
    func bodyFileReadInParts() throws {
        let folder = try folder(count: 20_000)
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = try Data(contentsOf: folder.appendingPathComponent("body.json"))
        #expect(body.count > 1 << 20)
        var broken = body
        broken.replaceSubrange(body.count / 2 ..< body.count / 2 + 1, with: Data("!".utf8))
        try broken.write(to: folder.appendingPathComponent("broken.json"))
        let base = ["map", "--schema", "schema.yaml", "--path", "/repos", "--verbose"]
        for (options, environment) in [(["--jobs", "1"], [:]), (["--jobs", "2"], [:]),
                                       (["--jobs", "1", "--pretty"], ["RESTMAP_STREAM_THRESHOLD": "10000"])] {
            let jobs = options[1]
            let file = try run(base + options + ["body.json"], in: folder, environment: environment)
            #expect(file.status == 0, "\(file.errors)")
            #expect(file.errors.contains("restmap: mapped the body (\(body.count) bytes) in parts read by \(jobs) thread(s)"), "\(file.errors)")
            let pipe = try run(base + options + ["-"], in: folder, input: body, environment: environment)
            #expect(pipe.errors.contains("mapping the whole body (\(body.count) bytes)"), "\(pipe.errors)")
            #expect(file.output == pipe.output)
            #expect(file.output.contains(#""name": "r19999""#) || file.output.contains(#""name":"r19999""#))
            // A malformed body is read whole after all, and reported as from a pipe.
            let brokenFile = try run(base + options + ["broken.json"], in: folder, environment: environment)
            let brokenPipe = try run(base + options + ["-"], in: folder, input: broken, environment: environment)
            #expect(brokenFile.status == 1)
            #expect(brokenFile.status == brokenPipe.status)
            #expect(brokenFile.output == brokenPipe.output)
            #expect(brokenFile.errors == brokenPipe.errors)
            #expect(brokenFile.errors.contains("malformed JSON"), "\(brokenFile.errors)")
        }
    }

    @Test("A conflict found only while streaming by default leaves the element out and points at --no-stream, which merges")
    func conflictMidStream() throws {
        let folder = try folder(count: 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Owners print their site, so two owners "ann" with other sites differ.
        try Self.schema.replacingOccurrences(of: "attributes: { login: login }", with: "attributes: { login: login, site: site }")
            .write(to: folder.appendingPathComponent("schema.yaml"), atomically: true, encoding: .utf8)
        let filler = (0..<200).map { #"{"id": \#($0 + 10), "name": "filler"}"# }
        let items = [#"{"id": 1, "owner": {"login": "ann", "site": "a"}}"#] + filler + [#"{"id": 2, "owner": {"login": "ann", "site": "b"}}"#]
        try write("[" + items.joined(separator: ",") + "]", to: folder.appendingPathComponent("conflict.json"))
        let base = ["map", "--schema", "schema.yaml", "--path", "/repos", "--format", "ndjson", "--jobs", "1", "conflict.json"]
        let streamed = try run(base, in: folder, environment: ["RESTMAP_STREAM_THRESHOLD": "1000"])
        #expect(streamed.status == 1)
        #expect(streamed.errors.contains("[201]: a record of entity 'Owner' with identification \"ann\" differs"), "\(streamed.errors)")
        #expect(streamed.errors.contains("map the whole body (restmap map --no-stream) to merge them"))
        #expect(streamed.output.split(separator: "\n").count == 201)
        let whole = try run(base + ["--no-stream"], in: folder, environment: ["RESTMAP_STREAM_THRESHOLD": "1000"])
        #expect(whole.status == 0, "\(whole.errors)")
        #expect(whole.output.split(separator: "\n").count == 202)
    }

    // MARK: Malformed, empty and trailing bodies

    @Test("A malformed middle element, an empty body and trailing text give the same output, errors and status in both modes",
          arguments: [
            (#"[{"id": 1}, {"id": 2,, "name": "x"}, {"id": 3}]"#, 1, 2, "record failed: [1]: malformed JSON at column"),
            ("", 0, 0, ""),
            (" \n ", 0, 0, ""),
            (#"[{"id": 1}, {"id": 2}] trailing"#, 1, 2, "malformed JSON at byte 23: unexpected text after the document"),
            (#"[{"id": 1} {"id": 2}]"#, 1, 1, "malformed JSON at byte 11 (element 0): expected ',' or ']' after an array element"),
            (#"[{"id": 1}, , {"id": 3}]"#, 1, 2, "record failed: [1]: malformed JSON at column 1 of the element (byte 0): expected a value, found ','"),
          ])
    func malformedBodies(_ body: String, status: Int32, records: Int, error: String) throws {
        let folder = try folder(count: 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(body, to: folder.appendingPathComponent("odd.json"))
        var runs: [CLI.Run] = []
        for mode in ["--stream", "--no-stream"] {
            for input in ["odd.json", "-"] {
                let run = try run(["map", "--schema", "schema.yaml", "--path", "/repos", mode, input], in: folder,
                                  input: input == "-" ? Data(body.utf8) : nil)
                #expect(run.status == status, "\(mode) \(input): \(run.errors)")
                #expect(run.output.components(separatedBy: #""$entity":"Repo""#).count - 1 == records, "\(mode): \(run.output)")
                if error.isEmpty {
                    #expect(run.errors.isEmpty, "\(mode): \(run.errors)")
                    #expect(run.output == "[]\n")
                } else {
                    #expect(run.errors.contains(error), "\(mode): \(run.errors)")
                }
                runs.append(run)
            }
        }
        for run in runs.dropFirst() {
            #expect(run.output == runs[0].output)
            #expect(run.errors == runs[0].errors)
        }
    }

    @Test("A body whose elements cannot be reached gets the whole body's error by line and column, and no records",
          arguments: [
            (#"{"a": 1"#, "line 1, column 8 (byte 7): unterminated object"),
            ("nul", "line 1, column 1 (byte 0): invalid literal: expected 'null'"),
            ("\u{FEFF}[]", "line 1, column 1 (byte 0): expected a value, found a UTF-8 byte order mark (EF BB BF)"),
            ("\n\n x[1]", "line 3, column 2 (byte 3): expected a value, found 'x'"),
          ])
    func unreachableElements(_ body: String, error: String) throws {
        let folder = try folder(count: 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(body, to: folder.appendingPathComponent("odd.json"))
        for mode in [[], ["--no-stream"]] {
            for input in ["odd.json", "-"] {
                let run = try run(["map", "--schema", "schema.yaml", "--path", "/repos"] + mode + [input], in: folder,
                                  input: input == "-" ? Data(body.utf8) : nil)
                #expect(run.status == 1)
                #expect(run.output.isEmpty, "\(mode) \(input): \(run.output)")
                #expect(run.errors.hasPrefix("restmap: malformed JSON body at \(error)"), "\(mode) \(input): \(run.errors)")
                #expect(run.errors.split(separator: "\n").count == 1, "\(mode) \(input): \(run.errors)")
            }
        }
    }

    // MARK: No body, no descriptor

    @Test("With no BODY and a terminal on standard input, map says it expects a body instead of waiting")
    func terminalInput() throws {
        let restmap = try TestPaths.built("restmap").path
        // Python's pty module gives the child a terminal as standard input; the child is waited
        // for at most 60 s (it would wait for input forever without the check).
        let driver = """
            import os, pty, subprocess, sys
            primary, secondary = os.openpty()
            child = subprocess.run(sys.argv[1:], stdin=secondary, capture_output=True, timeout=60)
            sys.stdout.write("status %d\\n" % child.returncode)
            sys.stdout.write(child.stderr.decode())
            """
        let run = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/python3"),
                                       ["-c", driver, restmap, "map", "--schema", "Schemas/tasks.yaml", "--path", "/task_list"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("status 2\n"), "\(run.output)")
        #expect(run.output.contains("restmap map expects a response body: name the file"), "\(run.output)")
    }

    @Test("A request no descriptor matches names the schema's descriptors and points at --path")
    func noDescriptor() throws {
        for mode in ["--stream", "--no-stream"] {
            let run = try run(["map", "--schema", "Schemas/github.yaml", mode, "Samples/github/starred.json"])
            #expect(run.status == 1)
            #expect(run.errors.contains("no response descriptor matches GET / (status 200); the schema's response descriptors: GET /user → User, GET /users/:login → User"),
                    "\(run.errors)")
            #expect(run.errors.contains("Give the request path with --path"))
        }
    }
}
