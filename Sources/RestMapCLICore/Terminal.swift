import Foundation

/// Writing to the standard streams.
package enum Terminal {
    package static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    package static func error(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

extension Terminal {
    /// Writes bytes to standard output as they are.
    package static func write(_ bytes: some ContiguousBytes) {
        var written = 0
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = Foundation.write(1, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return
                }
                written += count
            }
        }
    }
}

/// Values a command leaves to the end of the process instead of freeing them.
package enum ProcessLifetime {
    private final class Kept<Value> {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Keeps `value` (and what it references) alive until the process exits: for a large result
    /// printed just before the command returns, tearing it down is work without use.
    package static func keepUntilExit<Value>(_ value: Value) {
        _ = Unmanaged.passRetained(Kept(value))
    }
}
