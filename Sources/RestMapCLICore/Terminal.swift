import FoundationEssentials
import RestMap

/// Writing to the standard streams.
package enum Terminal {
    package static func out(_ text: String) {
        DescriptorOutput.write(text, to: 1)
    }

    package static func error(_ text: String) {
        DescriptorOutput.write(text, to: 2)
    }
}

extension Terminal {
    /// Writes bytes to standard output as they are.
    package static func write(_ bytes: some ContiguousBytes) {
        _ = bytes.withUnsafeBytes { DescriptorOutput.write($0, to: 1) }
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
