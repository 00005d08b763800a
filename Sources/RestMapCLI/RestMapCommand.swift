import ArgumentParser

@main
struct RestMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restmap",
        abstract: "Validate RestMap schemas and map responses with them.",
        subcommands: [
            ValidateCommand.self,
            MapCommand.self,
            SchemaCommand.self,
            PluginsCommand.self,
            StoreCommand.self,
            SeedCommand.self,
        ]
    )
}
