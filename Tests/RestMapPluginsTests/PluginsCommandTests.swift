import Foundation
import Testing

/// `restmap plugins`, run as a process from the build directory (SwiftPM builds the `restmap`
/// binary next to the test binary and the plugin libraries).
@Suite struct PluginsCommandTests {
    @Test func listsPluginsWithVersionsAndArgumentShapes() throws {
        let binary = BuiltPlugins.directory + "/restmap"
        try #require(FileManager.default.fileExists(atPath: binary), "no restmap binary in \(BuiltPlugins.directory)")
        let empty = try temporaryDirectory()
        let result = try run(binary, ["plugins", "--plugin-path", empty.path], timeout: 120)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("dates 1.0.0  \(BuiltPlugins.directory)/librestmap-dates.so"), "\(result.output)")
        #expect(result.output.contains("  dates.parse {formats?: strings, timeZone?: string, locale?: string}"), "\(result.output)")
        #expect(result.output.contains("  ids.prefix {prefix: string}"), "\(result.output)")
        #expect(result.output.contains("  body text/csv {delimiter?: string}"), "\(result.output)")
    }

    @Test func reportsAPluginThatCannotLoad() throws {
        let directory = try temporaryDirectory()
        try Data("not an ELF file".utf8).write(to: directory.appendingPathComponent("librestmap-junk.so"))
        let result = try run(BuiltPlugins.directory + "/restmap", ["plugins", "--plugin-path", directory.path], timeout: 120)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("junk  (cannot load)"), "\(result.output)")
        #expect(result.output.contains("is not a RestMap plugin"), "\(result.output)")
    }
}
