import RestMapPluginLoader
import RestMapPlugins
import Testing

@Suite struct SearchPathTests {
    @Test func standardOrderWithoutTheSchemaFolderOrTheCurrentDirectory() {
        let path = PluginSearchPath(
            schemaDirectory: "/schemas",
            pluginPaths: ["/opt/plugins"],
            environment: ["RESTMAP_PLUGIN_PATH": "/env/a::/env/b:"],
            executableDirectory: "/usr/local/bin",
            currentDirectory: "/home/me")
        #expect(path.directories == ["/opt/plugins", "/env/a", "/env/b", "/usr/local/lib/restmap/plugins"])
        #expect(path.firstPartyDirectories == ["/usr/local/bin", "/usr/local/lib/restmap/plugins"])
        #expect(path.unsearchedDirectories == ["/schemas", "/home/me"])
        #expect(path.directories(forPlugin: "dates") == path.firstPartyDirectories)
        #expect(path.directories(forPlugin: "geo") == path.directories)
        #expect(!path.directories.contains("."))
        #expect(!path.directories.contains(""))
    }

    @Test func aFolderTheUserGaveIsSearchedEvenIfItHoldsTheSchema() {
        let path = PluginSearchPath(schemaDirectory: "/schemas", pluginPaths: ["/schemas"], environment: [:],
                                    executableDirectory: nil, currentDirectory: "/schemas")
        #expect(path.directories == ["/schemas"])
        #expect(path.unsearchedDirectories.isEmpty)
        #expect(path.firstPartyDirectories.isEmpty)
    }

    @Test func candidatesListTheBuiltPlugins() {
        let names = BuiltPlugins.searchPath.candidates().map(\.name)
        #expect(["csv", "dates", "ids"].allSatisfy(names.contains))
    }

    @Test func fileNames() {
        #expect(PluginNames.fileName(forPlugin: "dates") == "librestmap-dates.so")
        #expect(PluginNames.pluginName(fromFileName: "librestmap-text.so") == "text")
        #expect(PluginNames.pluginName(fromFileName: "libfoo.so") == nil)
    }
}
