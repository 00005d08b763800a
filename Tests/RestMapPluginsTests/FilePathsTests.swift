import Foundation
@testable import RestMapPlugins
import Testing

@Suite struct FilePathsTests {
    @Test(arguments: [
        ("/tmp/a.yaml", "/tmp"), ("/tmp/lock/", "/tmp"), ("/a", "/"), ("/", "/"), ("a.yaml", ""), ("S", ""),
        ("./S", "."), ("a//b", "a"), ("dir/sub/file", "dir/sub"), ("", ""),
    ])
    func folderOfAPath(_ path: String, _ folder: String) {
        #expect(FilePaths.directory(of: path) == folder)
    }

    static let paths = ["/tmp/a.so", "/tmp/lib/", "/", "", "a.so", "dir/sub/file", "a//b", "/a/b//", "S", "./S"]

    @Test("the last component is NSString's lastPathComponent", arguments: paths)
    func lastComponent(_ path: String) {
        #expect(FilePaths.lastComponent(of: path) == (path as NSString).lastPathComponent)
    }

    @Test("joining is NSString's appendingPathComponent", arguments: ["/tmp", "/tmp/", "/", "", "lib", "a/b//"])
    func joining(_ folder: String) {
        for component in ["librestmap-dates.so", "../lib/restmap/plugins"] {
            #expect(FilePaths.joining(folder, component) == (folder as NSString).appendingPathComponent(component), "\(folder) + \(component)")
        }
    }

    @Test("standardizing is NSString's standardizingPath: dots, empty components, links and ~ resolved")
    func standardized() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-paths-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/real/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/real")
        for path in [folder + "/link/sub/../sub/", folder + "//real/./sub", folder + "/link/missing/../sub", folder + "/absent/x/..",
                     "relative/./path", "a//../b/", "./x", "~", "~/plugins", "/"] {
            #expect(FilePaths.standardized(path) == (path as NSString).standardizingPath, "\(path)")
        }
    }
}
