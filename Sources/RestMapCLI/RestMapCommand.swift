import ArgumentParser
import FoundationEssentials
import Glibc
import RestMapCLICore

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
            GetSummary.self,
            SendSummary.self,
            StoreSummary.self,
            SeedSummary.self,
            SyncSummary.self,
        ]
    )

    /// Runs the command: a services command (`get`, `send`, `store`, `seed`, `sync`) by handing
    /// the arguments over to `restmap-services`, every other one here.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let command = ServicesCommand.handedOver(arguments) {
            Terminal.error("restmap \(command.rawValue): \(ServicesCommand.execute(arguments: arguments))\n")
            Glibc.exit(1)
        }
        MemoryReuse.configure()
        SchemaPreload.begin(arguments)
        await CommandMain.run(Self.self)
    }
}

/// A command `restmap-services` runs, as `restmap --help` lists it: `RestMapCommand.main` hands
/// it over before the arguments are parsed, so it is only described here.
protocol ServicesCommandSummary: ParsableCommand {
    static var command: ServicesCommand { get }
}

extension ServicesCommandSummary {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: command.rawValue, abstract: command.abstract)
    }
}

struct GetSummary: ServicesCommandSummary { static let command = ServicesCommand.get }
struct SendSummary: ServicesCommandSummary { static let command = ServicesCommand.send }
struct StoreSummary: ServicesCommandSummary { static let command = ServicesCommand.store }
struct SeedSummary: ServicesCommandSummary { static let command = ServicesCommand.seed }
struct SyncSummary: ServicesCommandSummary { static let command = ServicesCommand.sync }
