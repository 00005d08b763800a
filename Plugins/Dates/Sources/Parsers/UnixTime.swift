/// Unix timestamps in seconds or milliseconds.
///
/// Without an explicit unit, a magnitude of at least 10^11 is read as milliseconds and anything
/// smaller as seconds: 10^11 seconds is the year 5138, while 10^11 milliseconds is 1973-03-03, so
/// only millisecond timestamps before March 1973 are misread.
public enum UnixTime {
    /// The unit of a timestamp.
    public enum Unit: String, Sendable {
        case seconds, milliseconds
    }

    /// The heuristic's threshold: magnitudes at or above it are milliseconds.
    public static let millisecondThreshold = 1e11

    /// Seconds since 1970 for a timestamp in `unit`, or guessed by magnitude when `unit` is `nil`.
    public static func seconds(_ timestamp: Double, unit: Unit?) -> Double {
        switch unit ?? (abs(timestamp) >= millisecondThreshold ? .milliseconds : .seconds) {
        case .seconds: timestamp
        case .milliseconds: timestamp / 1000
        }
    }

    /// The number in a numeric string (`1363198221`, `-5`, `1363198221.5`), else `nil`.
    public static func number(in bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        var digits = 0, dots = 0
        while index < bytes.count {
            if bytes[index] &- 0x30 < 10 {
                digits += 1
            } else if bytes[index] == UInt8(ascii: ".") {
                dots += 1
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0, dots <= 1 else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }
}
