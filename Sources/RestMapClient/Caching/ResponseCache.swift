import Foundation
import RestMap

/// Validators and results of earlier GET responses, per URL (without credentials): in memory,
/// and in a folder when one is given. A 304 reuses the mapped result kept in memory; an entry
/// read from the folder keeps only the body, which is mapped again.
actor ResponseCache {
    struct Entry: Sendable {
        var etag: String?
        var lastModified: String?
        var headers: [String: String]
        var body: [UInt8]
        /// The mapped result and the values read with it, when mapped in this process.
        var mapped: (result: MappingResult, values: [Value?], keyPaths: [String])?
    }

    private var entries: [String: Entry] = [:]
    private let directory: String?

    init(directory: String?) {
        self.directory = directory
    }

    /// The entry of a URL, from memory or else from the folder.
    func entry(for url: String) -> Entry? {
        if let entry = entries[url] { return entry }
        guard let path = file(for: url), let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              object["url"] as? String == url, let body = (object["body"] as? String).flatMap({ Data(base64Encoded: $0) })
        else { return nil }
        let entry = Entry(etag: object["etag"] as? String, lastModified: object["lastModified"] as? String,
                          headers: object["headers"] as? [String: String] ?? [:], body: Array(body), mapped: nil)
        entries[url] = entry
        return entry
    }

    func store(_ entry: Entry, for url: String) {
        entries[url] = entry
        guard let directory, let path = file(for: url) else { return }
        var object: [String: Any] = [
            "url": url, "body": Data(entry.body).base64EncodedString(),
            "headers": entry.headers.filter { ["content-type", "etag", "last-modified", "link"].contains($0.key.lowercased()) },
        ]
        if let etag = entry.etag { object["etag"] = etag }
        if let lastModified = entry.lastModified { object["lastModified"] = lastModified }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: data)
    }

    /// The file of a URL: a 64-bit FNV-1a hash of it, so no URL text becomes a path.
    private func file(for url: String) -> String? {
        guard let directory else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return URL(fileURLWithPath: directory).appendingPathComponent(String(hash, radix: 16) + ".json").path
    }
}
