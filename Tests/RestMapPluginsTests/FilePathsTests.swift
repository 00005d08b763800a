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
}
