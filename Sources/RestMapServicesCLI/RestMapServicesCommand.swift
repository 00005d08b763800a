import ArgumentParser
import RestMapCLICore
import RestMapClient

/// `restmap-services`: the commands of `restmap` that reach HTTP services and databases
/// (`ServicesCommand`). `restmap get …` and the others hand their arguments over to it, so its
/// usage and help read as `restmap`'s.
@main
struct RestMapServicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restmap",
        abstract: "The commands of restmap that fetch from and send to REST services and keep records in a store; run them as 'restmap <command>'.",
        subcommands: [GetCommand.self, SendCommand.self, StoreCommand.self, SeedCommand.self, SyncCommand.self]
    )

    static func main() async {
        MemoryReuse.configure()
        // The client commands' tasks run where their responses are read (see `runTasksOnEventLoops`).
        let clientCommands: [ServicesCommand] = [.get, .send, .sync]
        if let command = ServicesCommand.handedOver(CommandLine.arguments.dropFirst()), clientCommands.contains(command) {
            RestClient.runTasksOnEventLoops()
        }
        await CommandMain.run(Self.self)
    }
}
