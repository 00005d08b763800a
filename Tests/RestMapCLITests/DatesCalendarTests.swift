import Foundation
import RestMapTestSupport
import Testing

/// The `dates` plugin reads ISO 8601, HTTP dates and Unix time itself; Unicode patterns and named
/// time zones come from `librestmap-dates-calendar.so` (Foundation and ICU), which it opens only
/// when a schema names one.
@Suite("dates: the calendar library, opened when a pattern or a zone needs it")
struct DatesCalendarTests {
    /// Maps `body` with `transform` using the `restmap` in `folder` (the built one by default),
    /// with the dynamic loader listing the libraries it loads (`LD_DEBUG=libs`, on standard error).
    static func map(_ transform: String, _ body: String, restmap: URL? = nil) throws -> ProcessOutput {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-calendar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try PluginValidationTests().schema(plugins: "dates", transform: transform).write(to: directory.appendingPathComponent("schema.yaml"), atomically: true, encoding: .utf8)
        try body.write(to: directory.appendingPathComponent("body.json"), atomically: true, encoding: .utf8)
        return try ChildProcess.run(try restmap ?? TestPaths.built("restmap"), ["map", "--schema", "schema.yaml", "body.json"],
                                    in: directory, environment: ["LD_DEBUG": "libs"])
    }

    /// The libraries the dynamic loader initialized, by file name.
    static func loaded(_ run: ProcessOutput) -> Set<String> {
        Set(run.errors.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "calling init: ") else { return nil }
            return line[range.upperBound...].split(separator: "/").last.map(String.init)
        })
    }

    @Test("ISO 8601 text loads the plugin but neither Foundation nor ICU")
    func defaultChainLoadsNoFoundation() throws {
        let run = try Self.map("dates.parse", #"[{"at": "2013-03-13T18:10:21Z"}]"#)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains(#""at":"2013-03-13T18:10:21Z""#), "\(run.output)")
        let libraries = Self.loaded(run)
        #expect(libraries.contains("librestmap-dates.so"), "\(libraries)")
        for library in ["librestmap-dates-calendar.so", "libFoundation.so", "lib_FoundationICU.so"] {
            #expect(!libraries.contains(library), "\(library) loaded: \(libraries)")
        }
    }

    @Test("A pattern and a named zone load the calendar library, and read as before")
    func patternLoadsTheCalendar() throws {
        let run = try Self.map(#"{dates.parse: {formats: ["dd.MM.yyyy HH:mm"], timeZone: "Europe/Berlin"}}"#, #"[{"at": "13.03.2013 19:10"}]"#)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains(#""at":"2013-03-13T18:10:00Z""#), "\(run.output)")
        let libraries = Self.loaded(run)
        #expect(libraries.isSuperset(of: ["librestmap-dates.so", "librestmap-dates-calendar.so", "libFoundation.so"]), "\(libraries)")
    }

    @Test("Without the calendar library a pattern or a zone is refused, naming the library and where it was looked for; other dates still map")
    func missingCalendarLibrary() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-no-calendar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let restmap = folder.appendingPathComponent("restmap")
        try FileManager.default.copyItem(at: try TestPaths.built("restmap"), to: restmap)
        try FileManager.default.copyItem(at: try TestPaths.built("librestmap-dates.so"), to: folder.appendingPathComponent("librestmap-dates.so"))
        let expected = folder.appendingPathComponent("librestmap-dates-calendar.so").path
        for transform in [#"{dates.parse: {formats: ["dd.MM.yyyy"]}}"#, #"{dates.parse: {timeZone: "Europe/Berlin"}}"#, #"{dates.format: {format: "yyyy"}}"#] {
            let run = try Self.map(transform, #"[{"at": "13.03.2013"}]"#, restmap: restmap)
            #expect(run.status != 0, "\(transform): \(run.output)")
            #expect(run.errors.contains("needs \(expected), which is missing"), "\(transform): \(run.errors)")
        }
        let iso = try Self.map("dates.parse", #"[{"at": "2013-03-13T18:10:21Z"}]"#, restmap: restmap)
        #expect(iso.status == 0, "\(iso.errors)")
        #expect(iso.output.contains(#""at":"2013-03-13T18:10:21Z""#), "\(iso.output)")

        // Opened with the checks a plugin passes: a library others may write is refused.
        try FileManager.default.copyItem(at: try TestPaths.built("librestmap-dates-calendar.so"), to: URL(fileURLWithPath: expected))
        try FileManager.default.setAttributes([.posixPermissions: 0o775], ofItemAtPath: expected)
        let writable = try Self.map(#"{dates.parse: {formats: ["dd.MM.yyyy"]}}"#, #"[{"at": "13.03.2013"}]"#, restmap: restmap)
        #expect(writable.status != 0)
        #expect(writable.errors.contains("\(expected), which was not opened: refused to load \(expected): \(expected) is writable by its group"), "\(writable.errors)")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: expected)
        let trusted = try Self.map(#"{dates.parse: {formats: ["dd.MM.yyyy"]}}"#, #"[{"at": "13.03.2013"}]"#, restmap: restmap)
        #expect(trusted.status == 0, "\(trusted.errors)")
        #expect(trusted.output.contains(#""at":"2013-03-13T00:00:00Z""#), "\(trusted.output)")
    }
}
