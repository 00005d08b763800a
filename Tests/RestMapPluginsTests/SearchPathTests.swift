import RestMapPlugins
import Testing

@Suite struct SearchPathTests {
    @Test func standardOrderAndNoImplicitCurrentDirectory() {
        let path = PluginSearchPath(
            schemaDirectory: "/schemas",
            pluginPaths: ["/opt/plugins"],
            environment: ["RESTMAP_PLUGIN_PATH": "/env/a::/env/b:"],
            executableDirectory: "/usr/local/bin")
        #expect(path.directories == [
            "/schemas", "/opt/plugins", "/env/a", "/env/b", "/usr/local/bin", "/usr/local/lib/restmap/plugins",
        ])
        #expect(!path.directories.contains("."))
        #expect(!path.directories.contains(""))
    }

    @Test func candidatesListTheBuiltPlugins() {
        let names = BuiltPlugins.searchPath.candidates().map(\.name)
        #expect(["csv", "dates", "ids"].allSatisfy(names.contains))
    }

    @Test func fileNames() {
        #expect(PluginSearchPath.fileName(forPlugin: "dates") == "librestmap-dates.so")
        #expect(PluginSearchPath.pluginName(fromFileName: "librestmap-text.so") == "text")
        #expect(PluginSearchPath.pluginName(fromFileName: "libfoo.so") == nil)
    }
}
