import Foundation
import Logging

/// Logging of RestMap's components with swift-log: one label per component (`restmap.client`,
/// `restmap.mapping`) and a level per label, as RestKit's `RKLogConfigureByName`.
public enum RestMapLogging {
    /// Levels parsed from `RESTMAP_LOG`: `client=debug,mapping=info`; a bare level
    /// (`debug`) sets the default of every label. Unknown words are reported, not ignored.
    public struct Levels: Sendable, Hashable {
        public var defaultLevel: Logger.Level
        /// Level per short label (`client` for `restmap.client`).
        public var perLabel: [String: Logger.Level]

        public init(defaultLevel: Logger.Level = .warning, perLabel: [String: Logger.Level] = [:]) {
            self.defaultLevel = defaultLevel
            self.perLabel = perLabel
        }

        /// Parses a `RESTMAP_LOG` value; `problems` names each item it could not read.
        public init(parsing text: String, problems: inout [String]) {
            self.init()
            for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard let level = Logger.Level(rawValue: parts.last!.lowercased()) else {
                    problems.append("RESTMAP_LOG: unknown level in '\(item)' (trace, debug, info, notice, warning, error, critical)")
                    continue
                }
                if parts.count == 1 { defaultLevel = level } else { perLabel[parts[0].lowercased()] = level }
            }
        }

        /// The level of a full label (`restmap.client`).
        public func level(for label: String) -> Logger.Level {
            let short = label.hasPrefix("restmap.") ? String(label.dropFirst("restmap.".count)) : label
            return perLabel[short] ?? defaultLevel
        }
    }

    /// Sends every log line to standard error with the levels given. Call once per process.
    public static func bootstrap(_ levels: Levels) {
        LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, logLevel: levels.level(for: label)) }
    }
}

/// Writes `restmap[client] debug: message` lines to standard error.
struct StandardErrorLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let short = label.hasPrefix("restmap.") ? String(label.dropFirst("restmap.".count)) : label
        FileHandle.standardError.write(Data("restmap[\(short)] \(event.level): \(event.message)\n".utf8))
    }
}
