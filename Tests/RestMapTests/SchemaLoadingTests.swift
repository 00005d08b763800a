import Foundation
import RestMap
import RestMapDates
import RestMapPluginLoader
import Testing

/// `Schema.load`, the one way in: where the plugins a schema names come from, and its options.
struct SchemaLoadingTests {
    static let namingDates = """
        restmap: 1
        plugins: [dates]
        entities:
          Event:
            attributes:
              at: { from: at, transform: [dates.iso8601] }
        responses:
          - { entity: Event }

        """

    @Test func aPluginNeitherRegisteredNorProvidedIsAnErrorAtItsName() {
        let loaded = Schema.load(bytes: Array(Self.namingDates.utf8), file: "events.yaml")
        #expect(loaded.schema == nil)
        #expect(loaded.diagnostics.first?.description.hasPrefix(
            "events.yaml:2:11: error: cannot load plugin 'dates': plugin 'dates' is not registered") == true,
                "\(loaded.diagnostics)")
        #expect(throws: SchemaLoadError.self) { try loaded.mapper() }
    }

    @Test func aPluginLinkedInProcessServesTheSchemaWithoutTouchingTheDisk() throws {
        var plugins = PluginRegistry()
        try plugins.register(DatesPlugin.self)
        let loaded = Schema.load(bytes: Array(Self.namingDates.utf8), file: "events.yaml", options: SchemaLoadOptions(plugins: plugins))
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        #expect(loaded.plugins.plugins.first { $0.name == "dates" }?.path == nil)
        let result = try loaded.mapper().map(Response(path: "/", body: Array(#"{"at": "2026-11-26T04:00:00Z"}"#.utf8)))
        #expect(result.records.first?["at"].date == Date(timeIntervalSince1970: 1_795_665_600))
    }

    @Test func aSearchPathProviderLoadsThePluginLibraryFromTheBuildFolder() throws {
        let loaded = Schema.load(bytes: Array(Self.namingDates.utf8), file: "events.yaml",
                                 options: SchemaLoadOptions(pluginProvider: PluginSearchPath(schemaDirectory: nil)))
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        let path = try #require(loaded.plugins.plugins.first { $0.name == "dates" }?.path)
        #expect(path.hasSuffix("/librestmap-dates.so"))
    }

    @Test func theLimitsOfTheOptionsBoundTheDocument() {
        var options = SchemaLoadOptions()
        options.limits.maximumFileSize = 16
        let loaded = Schema.load(bytes: Array(Self.namingDates.utf8), file: "events.yaml", options: options)
        #expect(loaded.diagnostics.map(\.description) == [
            "events.yaml:1:1: error: file is \(Self.namingDates.utf8.count) bytes; schemas larger than 16 bytes are refused",
        ])
    }
}
