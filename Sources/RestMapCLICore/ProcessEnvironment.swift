import FoundationEssentials
import Glibc

/// One variable of the process environment.
///
/// `ProcessInfo.processInfo.environment` copies every variable into a new dictionary on each use;
/// the commands read a handful of variables on every start, so they ask for each by name.
package enum ProcessEnvironment {
    /// The value of `name`, or nil when it is not set.
    package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The cores this process may run on (`ProcessInfo.activeProcessorCount`, which reads the
    /// cgroup's quota on each use), read once.
    package static let activeProcessorCount = ProcessInfo.processInfo.activeProcessorCount
}
