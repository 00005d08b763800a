import FoundationEssentials
import Glibc
import RestMapPlugins

/// The checks a plugin library passes before it is opened: opening a library runs its code
/// (its constructors), so a file that someone other than the user or root could have written
/// is refused first, as ssh refuses a key file others can write.
///
/// The library (after symbolic links are resolved) must be a regular file owned by the user or
/// root and writable by no one else (no group or world write bit). Each folder from the one
/// holding it up to `/` must be owned by the user or root and, unless its sticky bit is set
/// (as on `/tmp`), writable by no one else: otherwise another user could rename the file away
/// and put their own in its place.
public enum PluginTrust {
    /// The resolved path of the library at `path`, to be opened, once every check passed.
    /// - Parameter userID: the user whose files are trusted besides root's (the effective user).
    /// - Throws: `PluginError.untrusted` naming the offending file or folder and the reason.
    public static func verifiedPath(of path: String, userID: uid_t = geteuid()) throws(PluginError) -> String {
        guard let resolved = realpath(path, nil) else {
            throw PluginError.untrusted(path: path, reason: "cannot resolve it: \(String(cString: strerror(errno)))")
        }
        defer { free(resolved) }
        let file = String(cString: resolved)
        let status = try self.status(of: file, for: path)
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw PluginError.untrusted(path: path, reason: "\(file) is not a regular file")
        }
        if let problem = problem(with: status, of: file, userID: userID, isFolder: false) {
            throw PluginError.untrusted(path: path, reason: problem)
        }
        var folder = FilePaths.directory(of: file)
        while true {
            let folderStatus = try self.status(of: folder, for: path)
            if let problem = problem(with: folderStatus, of: folder, userID: userID, isFolder: true) {
                throw PluginError.untrusted(path: path, reason: "its folder " + problem)
            }
            if folder == "/" || folder.isEmpty { break }
            folder = FilePaths.directory(of: folder)
        }
        return file
    }

    private static func status(of file: String, for path: String) throws(PluginError) -> stat {
        var status = stat()
        guard stat(file, &status) == 0 else {
            throw PluginError.untrusted(path: path, reason: "cannot read the status of \(file): \(String(cString: strerror(errno)))")
        }
        return status
    }

    /// What makes a file or folder untrustworthy, or `nil`.
    private static func problem(with status: stat, of path: String, userID: uid_t, isFolder: Bool) -> String? {
        if status.st_uid != userID && status.st_uid != 0 {
            return "\(path) is owned by \(userName(status.st_uid)), not by you or root"
        }
        let groupWritable = status.st_mode & S_IWGRP != 0, worldWritable = status.st_mode & S_IWOTH != 0
        guard groupWritable || worldWritable else { return nil }
        if isFolder && status.st_mode & S_ISVTX != 0 { return nil }
        let who = worldWritable ? "everyone" : "its group"
        let what = isFolder ? "without the sticky bit" : "and only its owner may write a plugin"
        return "\(path) is writable by \(who) \(what) (chmod go-w \(path))"
    }

    /// "nobody (uid 65534)", or "uid 1234" for a user without a name.
    private static func userName(_ uid: uid_t) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let name = buffer.withUnsafeMutableBufferPointer { bytes -> String? in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            guard getpwuid_r(uid, &entry, bytes.baseAddress!, bytes.count, &result) == 0, result != nil else { return nil }
            return String(cString: entry.pw_name)
        }
        return name.map { "\($0) (uid \(uid))" } ?? "uid \(uid)"
    }
}
