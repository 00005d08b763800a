import ArgumentParser

/// How both executables, `restmap` and `restmap-services`, run their command line.
package enum CommandMain {
    /// Exit status of every usage problem (ArgumentParser's own is 64).
    package static let usageExitCode = ExitCode(2)

    /// Parses the process's arguments as `Root`'s and runs the command they name. A usage problem
    /// of any subcommand prints ArgumentParser's message and exits with `usageExitCode`.
    ///
    /// Main-actor isolated, like the `main` that calls it: a synchronous command runs on the main
    /// thread, as it would in `main` itself, instead of waiting for a thread of the global
    /// executor (which a process short of threads may never get).
    @MainActor
    package static func run<Root: ParsableCommand>(_ root: Root.Type) async {
        do {
            var command = try Root.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if Root.exitCode(for: error) == .validationFailure {
                Terminal.error(Root.fullMessage(for: error) + "\n")
                Root.exit(withError: usageExitCode)
            }
            Root.exit(withError: error)
        }
    }
}
