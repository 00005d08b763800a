import Glibc

/// Writing bytes to a file descriptor in full, with `write(2)`.
package enum DescriptorOutput {
    /// Writes all of `bytes` to `descriptor`, retrying after interruptions and short writes;
    /// `false` when the system refuses (a closed pipe, a full disk), with what was written kept.
    @discardableResult
    package static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += count
        }
        return true
    }

    /// Writes `text`'s UTF-8 bytes to `descriptor` in full.
    @discardableResult
    package static func write(_ text: String, to descriptor: Int32) -> Bool {
        var text = text
        return text.withUTF8 { write(UnsafeRawBufferPointer($0), to: descriptor) }
    }
}
