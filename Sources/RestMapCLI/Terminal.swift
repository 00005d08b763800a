import Foundation

/// Writing to the standard streams.
enum Terminal {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

extension Terminal {
    /// Writes bytes to standard output as they are.
    static func write(_ bytes: [UInt8]) {
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
