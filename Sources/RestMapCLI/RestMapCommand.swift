import ArgumentParser

@main
struct RestMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restmap",
        abstract: "Validate RestMap schemas, map responses with them, and fetch from and send to REST services.",
        subcommands: [
            ValidateCommand.self,
            MapCommand.self,
            SchemaCommand.self,
            PluginsCommand.self,
            GetCommand.self,
            SendCommand.self,
            StoreCommand.self,
            SeedCommand.self,
        ]
    )
}
