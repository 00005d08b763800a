import ArgumentParser
import RestMapSchema

/// `restmap schema --json-schema`: prints the schema language as a JSON Schema (draft 2020-12).
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print a description of the schema language.",
        discussion: """
            --json-schema prints the JSON Schema that editors use to complete and check schema files \
            (Schemas/restmap.schema.json is a copy: swift run restmap schema --json-schema > Schemas/restmap.schema.json).

            Example (redirect it to a file such as restmap.schema.json to keep it):
              restmap schema --json-schema
            """
    )

    @Flag(help: "Print the JSON Schema (draft 2020-12) of schema files.")
    var jsonSchema = false

    func validate() throws {
        guard jsonSchema else { throw ValidationError("say what to print: --json-schema") }
    }

    func run() {
        print(JSONSchemaExport.document(), terminator: "")
    }
}
