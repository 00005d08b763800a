import RestMapSchema

/// The grammar of schema test files (`restmap test`), as a `Shape`: the structural validator of
/// schema files checks test files too, with the same positions and "did you mean" hints.
/// Docs/Authoring.md describes the format.
public enum SchemaTestGrammar {
    /// Test-file format versions this runtime understands.
    public static let supportedVersions = [1]

    static let schemaReference = Shape.choice([.string(.text), .dictionary(.any)])
    static let textMap = Shape.dictionary(.string(.text))

    static let message = [
        Property("message", .string(.text), "The exact message."),
        Property("messageContains", .string(.text), "Text the message contains."),
    ]

    static let diagnostic = ObjectShape("diagnostic", "A diagnostic the schema must produce.", [
        Property("severity", .enumeration(["error", "warning"]), "error or warning; default: any."),
        Property("line", .integer(minimum: 1), "Line of the diagnostic."),
        Property("column", .integer(minimum: 1), "Column of the diagnostic."),
    ] + message)

    /// What a record must hold; used for selected records and for relationship targets.
    static let recordProperties = [
        Property("entity", .string(.entityName), "The record's entity."),
        Property("attributes", .dictionary(.any), "Attribute values: name: expected value (null means a JSON null)."),
        Property("types", .dictionary(.enumeration(RestMapGrammar.types + ["null", "array", "object"])),
                 "Value kinds: name: integer, number, decimal, string, boolean, date, url, null, array or object."),
        Property("absent", .list(.string(.text)), "Attributes or relationships the record must not have."),
        Property("relationships", .dictionary(.any),
                 "Relationship targets: null (none), a record expectation (to-one), a list of them (to-many, "
                     + "exact and in order) or {count, contains}."),
        Property("count", .integer(minimum: 0), "In a relationship expectation: how many related records."),
        Property("contains", .list(.any), "In a relationship expectation: record expectations that some related record meets."),
    ]

    static let record = ObjectShape("record", "Expectations on one record of the result.", [
        Property("index", .integer(minimum: 0), "Which record of the entity (mapping order, nested included); default 0."),
        Property("root", .integer(minimum: 0), "Instead: the root record at this index."),
        Property("where", .dictionary(.any), "Instead: the first record of the entity whose attributes have these values."),
    ] + recordProperties)

    static let recordError = ObjectShape("recordError", "A record that must fail to map.", [
        Property("entity", .string(.entityName), "The entity of the failed record."),
        Property("attribute", .string(.text), "The attribute that failed."),
        Property("path", .string(.text), "Where in the body: services[3].current-event.timestamp."),
    ] + message)

    static let failure = ObjectShape("failure", "The whole mapping must fail.", [
        Property("kind", .enumeration(["malformedBody", "undecodableBody", "noResponseDescriptor", "noMappableRepresentations",
                                        "errorResponse", "unprocessableErrorResponse", "invalidRecords"]),
                 "What kind of failure."),
        Property("status", .integer(minimum: 100), "The status of an error response."),
        Property("messages", .list(.string(.text)), "The mapped error messages of an error response, in order."),
        Property("line", .integer(minimum: 1), "Line of a malformed body's syntax error."),
        Property("column", .integer(minimum: 1), "Column of a malformed body's syntax error."),
    ] + message)

    static let request = ObjectShape("request", "A request body serialized from a record.", [
        Property("entity", .string(.entityName), required: true, "The entity of the record sent."),
        Property("method", .enumeration(RestMapGrammar.methods), "The request method; default POST."),
        Property("index", .integer(minimum: 0), "Send the mapped record of the entity at this index (default 0)."),
        Property("where", .dictionary(.any), "Send the first mapped record of the entity whose attributes have these values."),
        Property("values", .dictionary(.any), "Send a record built from these attribute values instead of a mapped one."),
        Property("body", .any, "The expected JSON body, compared as values (key order ignored)."),
        Property("bodyText", .string(.text), "The expected body text, exactly (form bodies)."),
        Property("contentType", .string(.text), "The expected Content-Type."),
        Property("error", .string(.text), "Text of the serialization error expected instead of a body."),
    ])

    static let expectations = ObjectShape("expect", "What the mapping must produce.", [
        Property("failure", .object(failure), "The whole mapping fails; records are not checked."),
        Property("roots", .integer(minimum: 0), "Number of root records."),
        Property("keyPaths", .dictionary(.integer(minimum: 0)), "Number of root records per response key path (\"\" is the whole body)."),
        Property("counts", .dictionary(.integer(minimum: 0)), "Number of records per entity, nested ones included."),
        Property("records", .list(.object(record)), "Expectations on individual records."),
        Property("errors", .list(.object(recordError)),
                 "Records that fail to map, exactly these in order; without it, any failed record fails the case."),
        Property("requests", .list(.object(request)), "Request bodies serialized from records."),
    ])

    static let testCase = ObjectShape("case", "One response mapped with the schema, and what it must produce.", [
        Property("name", .string(.text), required: true, "The case's name, as reports show it."),
        Property("notes", .string(.text), "Free text: what the case is about, where it comes from."),
        Property("divergence", .string(.text), "Free text: how RestMap deliberately differs from RestKit here (reported, not checked)."),
        Property("tags", .list(.string(.text)), "Free labels; `restmap test --tag` runs only cases with one of them."),
        Property("schema", schemaReference, "A schema for this case only: a path or an inline schema."),
        Property("method", .enumeration(RestMapGrammar.methods), "The request method; default GET."),
        Property("path", .string(.text), "The request path relative to the schema's baseURL; default /."),
        Property("status", .integer(minimum: 100), "The response status; default 200."),
        Property("headers", textMap, "Response headers."),
        Property("params", textMap, "Routing parameters (@metadata.routing.parameters)."),
        Property("metadata", .dictionary(.any), "User metadata (@metadata.user)."),
        Property("body", .any, "The body as an inline value (written as JSON)."),
        Property("bodyFile", .string(.text), "The body as a file, relative to the test file."),
        Property("bodyText", .string(.text), "The body as raw text (malformed JSON, CSV)."),
        Property("strict", .boolean, "Map strictly: any failed record fails the whole mapping."),
        Property("expect", .object(expectations), required: true, "What the mapping must produce."),
    ])

    /// The whole file.
    public static let file = Shape.object(ObjectShape("test file", "Schema tests: responses and what they must map to.", [
        Property("restmapTest", .integer(minimum: 1), required: true, "Test-file format version: 1."),
        Property("schema", schemaReference, "The schema under test: a path relative to this file, or an inline schema."),
        Property("pluginPaths", .list(.string(.text)), "Directories searched for plugins, relative to this file."),
        Property("schemaDiagnostics", .list(.object(diagnostic)),
                 "The schema's diagnostics, exactly these; without it, the schema must have no error."),
        Property("cases", .list(.object(testCase)), "The test cases."),
    ]))
}
