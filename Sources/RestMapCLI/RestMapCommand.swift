import ArgumentParser
import Foundation
import RestMapClient

@main
struct RestMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restmap",
        abstract: "Validate, test and draft RestMap schemas, map responses with them, fetch from and send to REST services, and keep records in a store.",
        discussion: """
            Examples:
              restmap validate 'Schemas/*.yaml'
              restmap map --schema Schemas/tasks.yaml --path /task_list \\
                Samples/tasks/task_list.json
              restmap get --schema Schemas/github.yaml --base-url http://127.0.0.1:8080 \\
                starred --param login=octocat --all-pages
              restmap store import --schema Schemas/github.yaml --db github.sqlite \\
                --path /users/octocat/starred Samples/github/starred.json
              restmap init --path /users/:login/starred Samples/github/starred.json
              restmap test 'Schemas/tests/*.yaml'
            """,
        subcommands: [
            ValidateCommand.self,
            MapCommand.self,
            TestCommand.self,
            InitCommand.self,
            LSPCommand.self,
            SchemaCommand.self,
            PluginsCommand.self,
            GetCommand.self,
            SendCommand.self,
            StoreCommand.self,
            SeedCommand.self,
            SyncCommand.self,
        ]
    )

    /// Exit status of every usage problem (ArgumentParser's own is 64).
    static let usageExitCode = ExitCode(2)

    /// Parses and runs the command; a usage problem of any subcommand exits 2, not 64.
    static func main() async {
        MemoryReuse.configure()
        // The client commands' tasks run where their responses are read (see `runTasksOnEventLoops`).
        let clientCommands: [any ParsableCommand.Type] = [GetCommand.self, SendCommand.self, SyncCommand.self]
        if let subcommand = CommandLine.arguments.dropFirst().first, clientCommands.contains(where: { $0._commandName == subcommand }) {
            RestClient.runTasksOnEventLoops()
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                exit(withError: usageExitCode)
            }
            exit(withError: error)
        }
    }
}
