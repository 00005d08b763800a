import Foundation
import RestMap
import RestMapDates
import RestMapPluginLoader
import RestMapPlugins
import Testing

/// A plugin library is refused before `dlopen` when someone other than the user or root could
/// have written it; first-party names come only from the first-party folders; names are identifiers.
@Suite struct TrustTests {
    /// A library whose constructor appends to `marker` when it is opened, named `fileName`.
    static func hostileLibrary(named fileName: String, in directory: URL, marker: URL) throws -> String {
        let source = """
            #include <stdio.h>
            __attribute__((constructor)) static void hostile(void) {
                FILE *file = fopen("\(marker.path)", "a");
                if (file) { fputs("constructor ran\\n", file); fclose(file); }
            }
            """
        return try compileSharedLibrary(source, named: fileName, in: directory)
    }

    /// Loading the library at `path` fails with `.untrusted`; returns the reason.
    func refusalReason(_ path: String) throws -> String {
        let error = #expect(throws: PluginError.self) { try PluginLoader.load(path: path) }
        guard case .untrusted(let refused, let reason)? = error else {
            Issue.record("expected untrusted, got \(String(describing: error))")
            return ""
        }
        #expect(refused == path)
        return reason
    }

    @Test func groupOrWorldWritableLibraryIsRefusedBeforeItRuns() throws {
        let directory = try temporaryDirectory()
        let marker = directory.appendingPathComponent("marker")
        let path = try Self.hostileLibrary(named: "librestmap-geo.so", in: directory, marker: marker)
        for (mode, who) in [(0o664, "its group"), (0o646, "everyone")] {
            #expect(chmod(path, mode_t(mode)) == 0)
            let reason = try refusalReason(path)
            #expect(reason == "\(path) is writable by \(who) and only its owner may write a plugin (chmod go-w \(path))")
            #expect(!FileManager.default.fileExists(atPath: marker.path), "the constructor ran")
        }
        // The control: once only its owner can write it, it is opened, and its constructor runs.
        #expect(chmod(path, 0o644) == 0)
        #expect(throws: PluginError.notAPlugin(path: path, reason: "it does not export restmap_plugin_entry_v1")) {
            try PluginLoader.load(path: path)
        }
        #expect(FileManager.default.fileExists(atPath: marker.path))
    }

    @Test func folderWritableByOthersIsRefusedUnlessSticky() throws {
        let directory = try temporaryDirectory()
        let folder = directory.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let marker = directory.appendingPathComponent("marker")
        let path = try Self.hostileLibrary(named: "librestmap-geo.so", in: folder, marker: marker)
        #expect(chmod(folder.path, 0o777) == 0)
        #expect(try refusalReason(path)
            == "its folder \(folder.path) is writable by everyone without the sticky bit (chmod go-w \(folder.path))")
        #expect(chmod(folder.path, 0o775) == 0)
        #expect(try refusalReason(path)
            == "its folder \(folder.path) is writable by its group without the sticky bit (chmod go-w \(folder.path))")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the constructor ran")
        // With the sticky bit (as on /tmp) others cannot replace the owner's file.
        #expect(chmod(folder.path, 0o1777) == 0)
        #expect(try PluginTrust.verifiedPath(of: path) == path)
    }

    @Test func libraryOwnedByAnotherUserIsRefused() throws {
        let directory = try temporaryDirectory()
        let path = try Self.hostileLibrary(
            named: "librestmap-geo.so", in: directory, marker: directory.appendingPathComponent("marker"))
        // Root's files are always trusted: as root, give the file away; as a user, ask as another user.
        let owner: uid_t
        let asking: uid_t
        if geteuid() == 0 {
            #expect(chown(path, 65534, 65534) == 0)
            (owner, asking) = (65534, 0)
        } else {
            (owner, asking) = (geteuid(), geteuid() + 1)
        }
        let error = #expect(throws: PluginError.self) { try PluginTrust.verifiedPath(of: path, userID: asking) }
        guard case .untrusted(_, let reason)? = error else {
            Issue.record("expected untrusted, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("\(path) is owned by "), "\(reason)")
        #expect(reason.hasSuffix("(uid \(owner)), not by you or root"), "\(reason)")
    }

    @Test func symbolicLinksAreCheckedAtTheirTarget() throws {
        let directory = try temporaryDirectory()
        let target = try Self.hostileLibrary(
            named: "real.so", in: directory, marker: directory.appendingPathComponent("marker"))
        let link = directory.appendingPathComponent("librestmap-geo.so").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(chmod(target, 0o666) == 0)
        #expect(try refusalReason(link) == "\(target) is writable by everyone and only its owner may write a plugin (chmod go-w \(target))")
        #expect(chmod(target, 0o644) == 0)
        #expect(try PluginTrust.verifiedPath(of: link) == target)
    }

    @Test func firstPartyNamesComeOnlyFromFirstPartyFolders() throws {
        let directory = try temporaryDirectory()
        let marker = directory.appendingPathComponent("marker")
        _ = try Self.hostileLibrary(named: "librestmap-dates.so", in: directory, marker: marker)
        let searchPath = PluginSearchPath([directory.path], firstPartyDirectories: [BuiltPlugins.directory])
        #expect(try searchPath.locate("dates") == BuiltPlugins.directory + "/librestmap-dates.so")
        var registry = PluginRegistry()
        let dates = try registry.load(named: "dates", searchPath: searchPath)
        #expect(dates.path == BuiltPlugins.directory + "/librestmap-dates.so")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the constructor ran")
        let refusals = searchPath.refusals()
        #expect(refusals.map(\.name) == ["dates"])
        #expect(refusals.map(\.path) == [directory.path + "/librestmap-dates.so"])
        #expect(refusals.map(\.reason)
            == ["'dates' is a first-party plugin, taken only from the restmap binary's folder or the installed plugin folder"])
        #expect(!searchPath.candidates().contains { $0.path.hasPrefix(directory.path) })
        // One name's refusals, found by its file name, are the listing's of that name.
        #expect(searchPath.refusals(forPlugin: "dates") == refusals)
        #expect(searchPath.refusals(forPlugin: "ids").isEmpty)
        let unsearched = PluginSearchPath([], firstPartyDirectories: [BuiltPlugins.directory], unsearchedDirectories: [directory.path])
        #expect(unsearched.refusals(forPlugin: "dates") == unsearched.refusals().filter { $0.name == "dates" })
        #expect(unsearched.refusals(forPlugin: "dates").count == 1)

        // Without a first-party folder holding it, the copy still is not taken.
        let embedded = PluginSearchPath([directory.path], firstPartyDirectories: [])
        #expect(throws: PluginError.notFound(name: "dates", searched: [], untrusted: [directory.path + "/librestmap-dates.so"])) {
            try embedded.locate("dates")
        }
    }

    @Test func anEmbedderLinkingDatesInProcessIgnoresTheCopyBesideTheSchema() throws {
        let folder = try temporaryDirectory()
        let marker = folder.appendingPathComponent("marker")
        let copy = try Self.hostileLibrary(named: "librestmap-dates.so", in: folder, marker: marker)
        let schema = folder.appendingPathComponent("schema.yaml").path
        try "restmap: 1\nplugins: [dates]\nentities:\n  E:\n    attributes:\n      at: { from: at, type: date }\nresponses:\n  - { entity: E }\n"
            .write(toFile: schema, atomically: true, encoding: .utf8)
        var linked = PluginRegistry()
        try linked.register(DatesPlugin.self)
        // No plugin provider: an embedder that links its plugins never makes loading look at the disk.
        let loaded = Schema.load(contentsOf: schema, options: SchemaLoadOptions(plugins: linked))
        #expect(loaded.schema != nil)
        #expect(loaded.plugins.plugins.first { $0.name == "dates" }?.path == nil, "dates must stay the linked one")
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        #expect(FileManager.default.fileExists(atPath: copy))
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the constructor ran")
    }

    @Test func pluginsBesideTheSchemaAreNamedButNotSearched() throws {
        let schemaFolder = try temporaryDirectory()
        let marker = schemaFolder.appendingPathComponent("marker")
        let geo = try Self.hostileLibrary(named: "librestmap-geo.so", in: schemaFolder, marker: marker)
        let searchPath = PluginSearchPath(
            schemaDirectory: schemaFolder.path, environment: [:], executableDirectory: BuiltPlugins.directory,
            currentDirectory: "/nonexistent")
        #expect(searchPath.directories == [BuiltPlugins.directory + "/../lib/restmap/plugins"].map { ($0 as NSString).standardizingPath })
        let error = #expect(throws: PluginError.self) { try searchPath.locate("geo") }
        #expect(error == .notFound(name: "geo", searched: searchPath.directories, untrusted: [geo]))
        #expect(error?.description.hasSuffix(
            "; found \(geo), in a folder that is not searched: pass --plugin-path \(schemaFolder.path) to trust it") == true,
            "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the constructor ran")
    }

    @Test func aLibraryMustDeclareItsFileName() throws {
        let directory = try temporaryDirectory()
        try FileManager.default.copyItem(
            atPath: BuiltPlugins.directory + "/librestmap-ids.so", toPath: directory.path + "/librestmap-geo.so")
        var registry = PluginRegistry()
        #expect(throws: PluginError.notAPlugin(path: directory.path + "/librestmap-geo.so",
                                               reason: "it declares the plugin name 'ids', not 'geo'")) {
            try registry.load(named: "geo", searchPath: PluginSearchPath([directory.path]))
        }
        #expect(registry.plugins.isEmpty)
    }

    @Test(arguments: ["../../x", "a/b", "", ".", "dates.so", "géo", "a b"])
    func namesThatAreNotIdentifiersAreRefused(_ name: String) throws {
        #expect(!PluginNames.isValid(name))
        #expect(throws: PluginError.invalidName(name)) { try BuiltPlugins.searchPath.locate(name) }
    }

    @Test func identifiersAreNames() {
        #expect(["dates", "geo-2", "my_plugin", "X9"].allSatisfy(PluginNames.isValid))
        #expect(PluginError.invalidName("../x").description == "'../x' is not a plugin name: use letters, digits, '-' and '_'")
    }
}
