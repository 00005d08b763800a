/// What the validator knows about available transformers: names and argument shapes.
///
/// The schema module does not load plugins; whoever does (the interpreter, the CLI) describes
/// what is loaded with a catalog so the validator can check names and arguments.
public struct TransformerCatalog: Sendable {
    /// One argument of a transformer.
    public struct Argument: Sendable, Hashable {
        public var name: String
        /// `string`, `strings`, `integer`, `number`, `boolean` or `any`.
        public var kind: String
        public var isRequired: Bool
        public init(name: String, kind: String, isRequired: Bool) {
            self.name = name
            self.kind = kind
            self.isRequired = isRequired
        }
    }

    /// Qualified name → arguments.
    public var transformers: [String: [Argument]]
    /// Names of the plugins that were loaded.
    public var loadedPlugins: Set<String>

    public init(transformers: [String: [Argument]] = [:], loadedPlugins: Set<String> = []) {
        self.transformers = transformers
        self.loadedPlugins = loadedPlugins
    }
}

/// Options of schema loading and validation.
public struct SchemaValidationOptions: Sendable {
    /// When set, transformer names and arguments are checked against it.
    public var transformers: TransformerCatalog?
    public var loader = SchemaLoader()
    /// The most steps "did you mean" suggestions may take in one validation (see `SuggestionBudget`).
    public var suggestionLimit = SuggestionBudget.defaultLimit
    /// When set and cancelled, validation stops early and its result is incomplete
    /// (`LoadedSchema.wasCancelled`): an editor cancels the analysis of text it has replaced.
    public var cancellation: ValidationCancellation?

    public init(transformers: TransformerCatalog? = nil) {
        self.transformers = transformers
    }
}
