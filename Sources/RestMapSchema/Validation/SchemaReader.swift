import FoundationEssentials

/// The result of validating a schema document without its plugins: the model when it has no
/// errors, and every diagnostic. `Schema.load` (module RestMap) is the public way in.
package struct SchemaValidation: Sendable {
    /// The schema, present only when there is no error.
    package var schema: Schema?
    /// Every problem found, sorted by position.
    package var diagnostics: [Diagnostic]
    /// The steps "did you mean" suggestions took (at most `SchemaValidationOptions.suggestionLimit`).
    package var suggestionSteps = 0
    /// Whether validation stopped early because `SchemaValidationOptions.cancellation` was
    /// cancelled: the diagnostics are then incomplete.
    package var wasCancelled = false
}

extension Schema {
    /// Reads and validates the schema file at `path`.
    package static func validate(contentsOf path: String, options: SchemaValidationOptions = .init()) -> SchemaValidation {
        validate(options.loader.load(contentsOf: path), file: path, options: options)
    }

    /// Reads and validates a schema held in memory; `file` names it in diagnostics.
    package static func validate(bytes: [UInt8], file: String, options: SchemaValidationOptions = .init()) -> SchemaValidation {
        validate(options.loader.load(bytes: bytes, file: file), file: file, options: options)
    }

    /// Validates a document already read by a `SchemaLoader`.
    package static func validate(_ document: SchemaDocument, file: String, options: SchemaValidationOptions = .init()) -> SchemaValidation {
        guard let root = document.root else {
            return SchemaValidation(schema: nil, diagnostics: document.diagnostics.sortedByPosition())
        }
        let reader = SchemaReader(file: file, root: root, options: options)
        let schema = reader.read()
        let diagnostics = (document.diagnostics + reader.diagnostics).sortedByPosition()
        let cancelled = options.cancellation?.isCancelled == true
        return SchemaValidation(schema: diagnostics.containsErrors || cancelled ? nil : schema, diagnostics: diagnostics,
                                suggestionSteps: reader.suggester.budget.spent, wasCancelled: cancelled)
    }
}

/// Builds the typed model from a node tree and runs the semantic checks.
final class SchemaReader {
    let file: String
    let root: SchemaNode
    let options: SchemaValidationOptions
    var diagnostics: [Diagnostic] = []
    /// `defaults.sourceKeys`: how a name without `from` becomes its key.
    let keyStyle: KeyStyle?
    /// "Did you mean" look-ups, within one budget for the whole validation.
    let suggester: Suggester

    init(file: String, root: SchemaNode, options: SchemaValidationOptions) {
        self.file = file
        self.root = root
        self.options = options
        suggester = Suggester(budget: SuggestionBudget(limit: options.suggestionLimit), cancellation: options.cancellation)
        keyStyle = root["defaults"]?["sourceKeys"]?.stringValue.flatMap(KeyStyle.init(rawValue:))
    }

    /// The key a name reads when no `from` is given.
    func sourceKey(for name: String) -> String {
        keyStyle?.key(for: name) ?? name
    }

    func read() -> Schema {
        var structure = StructuralValidator(suggester: suggester)
        structure.check(root, against: RestMapGrammar.schema, context: "the schema")
        diagnostics += structure.diagnostics

        let version = root["restmap"]?.intValue ?? 0
        if let node = root["restmap"], let value = node.intValue, !RestMapGrammar.supportedVersions.contains(value) {
            error("unsupported format version \(value); this restmap reads version \(RestMapGrammar.supportedVersions.map(String.init).joined(separator: ", "))", at: node)
        }
        if let node = root["baseURL"], let text = node.stringValue {
            let url = URL(string: text)
            if url?.scheme.map({ ["http", "https"].contains($0.lowercased()) }) != true || url?.host == nil {
                error("baseURL must be an absolute http(s) URL, found '\(text)'", at: node)
            }
        }
        let plugins = (root["plugins"]?.sequence ?? []).compactMap { node in node.scalarText.map { Located($0, at: node.location) } }
        for node in root["plugins"]?.sequence ?? [] {
            if let name = node.stringValue, !Self.isPluginName(name) {
                // A plugin name becomes part of a file name: nothing may make it a path.
                diagnostics.append(.error("'\(name)' is not a plugin name: use letters, digits, '-' and '_'", at: node.textLocation))
            }
        }
        var headers: [String: String] = [:]
        for pair in root["headers"]?.mapping ?? [] {
            if let key = pair.key.scalarText, let value = pair.value.scalarText { headers[key] = value }
        }

        var schema = Schema(
            file: file, version: version, name: root["name"]?.scalarText, baseURL: root["baseURL"]?.stringValue,
            plugins: plugins, headers: headers, sourceKeys: keyStyle, entities: [], responses: [], errors: [], routes: [], requests: [],
            pagination: readPagination(root["pagination"]), auth: nil, client: readClient(root["client"]),
            store: root["store"], root: root)
        let pluginNames = Set(plugins.map(\.value))
        for pair in root["entities"]?.mapping ?? [] {
            if isCancelled { break }
            if let entity = readEntity(pair, plugins: pluginNames) { schema.entities.append(entity) }
        }
        schema.responses = (root["responses"]?.sequence ?? []).compactMap(readResponse)
        schema.errors = (root["errors"]?.sequence ?? []).compactMap(readError)
        schema.routes = (root["routes"]?.mapping ?? []).compactMap(readNamedRoute)
        schema.requests = (root["requests"]?.sequence ?? []).compactMap(readRequest)
        schema.auth = readAuth(root["auth"], routes: schema.routes)
        schema.sync = (root["sync"]?.mapping ?? []).compactMap(readSyncResource)

        if !isCancelled { SemanticChecks(schema: schema, suggester: suggester).run(into: &diagnostics) }
        if let warning = suggester.exhaustionWarning(file: file) { diagnostics.append(warning) }
        return schema
    }

    var isCancelled: Bool { options.cancellation?.isCancelled == true }

    /// `" (did you mean 'x'?)"` or the empty string; `set` names a candidate set the schema defines.
    func hint(for name: String, in set: String? = nil, _ candidates: @autoclosure () -> [String]) -> String {
        suggester.hint(for: name, in: set, candidates())
    }

    // MARK: Diagnostics

    func error(_ message: String, at node: SchemaNode) {
        diagnostics.append(.error(message, at: node.location))
    }

    func warning(_ message: String, at node: SchemaNode) {
        diagnostics.append(.warning(message, at: node.location))
    }

    // MARK: Small syntaxes

    /// Whether `name` is a plugin name: one or more ASCII letters, digits, `-` and `_`.
    static func isPluginName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "-" || $0 == "_") }
    }

    func keyPath(_ node: SchemaNode?) -> MappingKeyPath? {
        guard let node else { return nil }
        if let items = node.sequence {
            let keys = items.compactMap(\.scalarText)
            guard keys.count == items.count else { return nil }
            do { return try MappingKeyPath.literal(keys) } catch {
                diagnostics.append(.error(error.message, at: node.location))
                return nil
            }
        }
        guard let text = node.scalarText, !node.isNull else { return nil }
        do { return try MappingKeyPath.parse(text) } catch {
            diagnostics.append(.error(error.message, at: node.textLocation.advanced(by: error.offset)))
            return nil
        }
    }

    func pathPattern(_ node: SchemaNode?, offset: Int = 0) -> PathPattern? {
        guard let node, let text = node.stringValue else { return nil }
        return pathPattern(String(text.dropFirst(offset)), at: node.textLocation.advanced(by: offset))
    }

    func pathPattern(_ text: String, at location: SourceLocation) -> PathPattern? {
        do { return try PathPattern.parse(text) } catch {
            diagnostics.append(.error("malformed path pattern: \(error.message)", at: location.advanced(by: error.offset)))
            return nil
        }
    }

    func status(_ node: SchemaNode?, default fallback: StatusSpecification) -> StatusSpecification {
        guard let node else { return fallback }
        let items = node.sequence ?? [node]
        var ranges: [ClosedRange<Int>] = []
        for item in items {
            guard let text = item.scalarText else { continue }
            if let range = StatusSpecification.parseItem(text) {
                ranges.append(range)
            } else {
                error("malformed status '\(text)': write a code (404), a class (4xx) or a range (400-499) between 100 and 599", at: item)
            }
        }
        return ranges.isEmpty ? fallback : StatusSpecification(ranges)
    }

    func method(_ node: SchemaNode?) -> String? {
        guard let text = node?.stringValue, text != "ANY" else { return nil }
        return text
    }

    /// Parses `METHOD /path`; reports a missing or unknown method.
    func route(_ node: SchemaNode, allowAny: Bool = false) -> RouteSpecification? {
        guard let text = node.stringValue else { return nil }
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else {
            error("a route is 'METHOD /path', found '\(text)'", at: node)
            return nil
        }
        let method = String(parts[0])
        let methods = RestMapGrammar.methods + (allowAny ? ["ANY"] : [])
        guard methods.contains(method) else {
            error("unknown method '\(method)' in route\(hint(for: method, methods))", at: node)
            return nil
        }
        let patternOffset = text.distance(from: text.startIndex, to: parts[1].startIndex)
        guard let pattern = pathPattern(String(parts[1]), at: node.textLocation.advanced(by: patternOffset)) else { return nil }
        return RouteSpecification(method: method == "ANY" ? nil : method, pattern: pattern)
    }

    func readPagination(_ node: SchemaNode?) -> Pagination? {
        guard let node, node.mapping != nil else { return nil }
        let path = pathPattern(node["path"])
        var query: [QueryParameter]?
        if let pairs = node["query"]?.mapping {
            query = pairs.compactMap { pair in
                guard let name = pair.key.scalarText, let template = pair.value.scalarText else { return nil }
                return QueryParameter(name: name, template: template)
            }
        }
        guard let kind = node["kind"]?.stringValue.flatMap(PaginationKind.init(rawValue:)) else { return nil }
        var pagination = Pagination(
            kind: kind, location: node.location, path: path, query: query, pageSize: node["pageSize"]?.intValue,
            firstPage: node["firstPage"]?.intValue ?? 1, perPage: keyPath(node["perPage"]), currentPage: keyPath(node["currentPage"]),
            pageCount: keyPath(node["pageCount"]), objectCount: keyPath(node["objectCount"]), cursor: keyPath(node["cursor"]),
            cursorHeader: node["cursorHeader"]?.scalarText, next: keyPath(node["next"]), maxPages: node["maxPages"]?.intValue)
        checkPaginationFields(node, &pagination)
        return pagination
    }

    /// Fields that mean nothing for the kind, and placeholders the kind never fills, are errors.
    private func checkPaginationFields(_ node: SchemaNode, _ pagination: inout Pagination) {
        let fieldsByKind: [PaginationKind: Set<String>] = [
            .page: ["firstPage", "perPage", "currentPage", "pageCount", "objectCount"],
            .offset: ["perPage", "objectCount", "pageCount"],
            .cursor: ["cursor", "cursorHeader"],
            .link: ["next"],
        ]
        let kindFields = Set(fieldsByKind.values.flatMap { $0 })
        for pair in node.mapping ?? [] {
            guard let key = pair.key.scalarText, kindFields.contains(key), fieldsByKind[pagination.kind]?.contains(key) != true else { continue }
            let kinds = PaginationKind.allCases.filter { fieldsByKind[$0]?.contains(key) == true }.map(\.rawValue)
            error("'\(key)' does not apply to pagination kind '\(pagination.kind.rawValue)' (it belongs to \(kinds.joined(separator: " and ")))", at: pair.key)
        }
        let placeholders: [PaginationKind: Set<String>] = [
            .page: ["currentPage", "perPage"], .offset: ["offset", "perPage"], .cursor: ["cursor", "perPage"], .link: ["perPage"],
        ]
        let allowed = placeholders[pagination.kind] ?? []
        for pair in node["query"]?.mapping ?? [] {
            guard let template = pair.value.scalarText else { continue }
            for name in QueryParameter(name: "", template: template).placeholders where !allowed.contains(name) {
                error("':\(name)' is not a placeholder of pagination kind '\(pagination.kind.rawValue)' (use \(allowed.sorted().map { ":" + $0 }.joined(separator: ", ")))", at: pair.value)
            }
        }
        if pagination.kind == .cursor, pagination.cursor == nil, pagination.cursorHeader == nil {
            error("pagination kind 'cursor' needs 'cursor' (a key path) or 'cursorHeader'", at: node)
        }
    }

    func readSecret(_ node: SchemaNode?) -> Secret? {
        guard let node else { return nil }
        if let text = node.scalarText { return .inline(text) }
        let sources = ["env", "file", "value"].filter { node[$0] != nil }
        guard sources.count == 1 else {
            error("a secret takes exactly one of env, file or value", at: node)
            return nil
        }
        let text = node[sources[0]]?.scalarText ?? ""
        switch sources[0] {
        case "env": return .environment(text)
        case "file": return .file(text)
        default: return .inline(text)
        }
    }

    func readAuth(_ node: SchemaNode?, routes: [NamedRoute]) -> Authentication? {
        guard let node, let pairs = node.mapping else { return nil }
        guard pairs.count == 1, let pair = pairs.first, let kind = pair.key.scalarText else {
            if pairs.count > 1 { error("auth takes one kind (bearer, basic, apiKey, session or oauth2), found \(pairs.count)", at: pairs[1].key) }
            return nil
        }
        let value = pair.value
        switch kind {
        case "bearer":
            return readSecret(value).map(Authentication.bearer)
        case "basic":
            guard let username = readSecret(value["username"]), let password = readSecret(value["password"]) else { return nil }
            return .basic(username: username, password: password)
        case "apiKey":
            guard let name = value["name"]?.scalarText, let secret = readSecret(value["value"]) else { return nil }
            let placement = value["in"]?.stringValue.flatMap(APIKeyPlacement.init(rawValue:)) ?? .header
            return .apiKey(name: name, placement: placement, value: secret)
        case "session":
            guard let routeNode = value["route"], let route = routeNode.scalarText, let token = keyPath(value["token"]) else { return nil }
            if !routes.contains(where: { $0.name == route }) {
                error("no route named '\(route)' for the login\(hint(for: route, in: "routes", routes.map(\.name)))", at: routeNode)
            }
            var credentials: [String: Secret] = [:]
            for field in value["credentials"]?.mapping ?? [] {
                if let name = field.key.scalarText, let secret = readSecret(field.value) { credentials[name] = secret }
            }
            return .session(SessionLogin(
                route: route, credentials: credentials, token: token, header: value["header"]?.scalarText ?? "Authorization",
                prefix: value["prefix"]?.scalarText ?? "Bearer ",
                format: value["format"]?.stringValue.flatMap(RequestFormat.init(rawValue:)) ?? .json))
        case "oauth2":
            return readOAuth2(value)
        default:
            return nil
        }
    }

    /// `auth: { oauth2: … }`; the structure (required keys, enumerations) is the grammar's.
    func readOAuth2(_ node: SchemaNode) -> Authentication? {
        guard let urlNode = node["tokenURL"], let tokenURL = urlNode.stringValue,
              let grant = node["grant"]?.stringValue.flatMap(OAuth2Grant.init(rawValue:)),
              let clientID = readSecret(node["clientID"]) else { return nil }
        var valid = true
        let url = URL(string: tokenURL)
        let absolute = url?.scheme.map { ["http", "https"].contains($0.lowercased()) } == true && url?.host != nil
        if !absolute, !tokenURL.hasPrefix("/") {
            error("tokenURL must be an absolute http(s) URL or a path starting with '/' (relative to baseURL), found '\(tokenURL)'", at: urlNode)
            valid = false
        }
        let clientSecret = node["clientSecret"].flatMap { readSecret($0) }
        let refreshToken = node["refreshToken"].flatMap { readSecret($0) }
        var tokenStore: String?
        if let storeNode = node["tokenStore"], let path = storeNode.stringValue {
            if path.isEmpty || path.hasSuffix("/") {
                error("tokenStore names a file, found '\(path)'", at: storeNode)
                valid = false
            } else if path.hasPrefix("/") || path.hasPrefix("~") || path.split(separator: "/").contains("..") {
                // The client writes this file: a schema may only name one in its own folder.
                error("tokenStore must be a path inside the schema's folder (relative, without '..'), found '\(path)'", at: storeNode)
                valid = false
            }
            tokenStore = path
        }
        switch grant {
        case .clientCredentials:
            if clientSecret == nil, node["clientSecret"] == nil {
                error("grant clientCredentials needs clientSecret", at: node)
                valid = false
            }
            for key in ["refreshToken", "tokenStore"] {
                if let extra = node.mapping?.first(where: { $0.key.scalarText == key }) {
                    error("'\(key)' belongs to grant refreshToken; clientCredentials needs no refresh token", at: extra.key)
                    valid = false
                }
            }
        case .refreshToken:
            if node["refreshToken"] == nil, node["tokenStore"] == nil {
                error("grant refreshToken needs refreshToken (the initial token), tokenStore, or both", at: node)
                valid = false
            }
        }
        var scopes: [String] = []
        for item in node["scopes"]?.sequence ?? [] {
            guard let scope = item.scalarText else { continue }
            if scope.isEmpty || scope.contains(where: { $0 == " " || $0 == "\"" || $0 == "\\" || !$0.isASCII || $0.asciiValue! < 0x21 }) {
                error("'\(scope)' is not an OAuth scope: printable ASCII without spaces, quotes or backslashes", at: item)
                valid = false
            }
            scopes.append(scope)
        }
        guard valid else { return nil }
        return .oauth2(OAuth2Settings(
            tokenURL: tokenURL, grant: grant, clientID: clientID, clientSecret: clientSecret,
            clientAuthentication: node["clientAuthentication"]?.stringValue.flatMap(OAuth2ClientAuthentication.init(rawValue:)) ?? .basic,
            scopes: scopes, refreshToken: refreshToken, tokenStore: tokenStore))
    }

    func readClient(_ node: SchemaNode?) -> ClientSettings {
        var settings = ClientSettings()
        guard let node, node.mapping != nil else { return settings }
        settings.connectTimeout = node["timeouts"]?["connect"]?.intValue
        settings.readTimeout = node["timeouts"]?["read"]?.intValue
        settings.requestTimeout = node["timeouts"]?["request"]?.intValue
        settings.retryAttempts = node["retry"]?["attempts"]?.intValue
        settings.retryDelayMilliseconds = node["retry"]?["delay"]?.intValue
        settings.retryMaxSeconds = node["retry"]?["maxSeconds"]?.intValue
        settings.retryAllMethods = node["retry"]?["allMethods"]?.boolValue ?? false
        settings.maxBodyBytes = node["maxBody"]?.intValue
        settings.maxHeaderBytes = node["maxHeaders"]?.intValue
        settings.cache = node["cache"]?.boolValue ?? true
        for item in node["trustedOrigins"]?.sequence ?? [] {
            guard let text = item.stringValue else { continue }
            let url = URL(string: text)
            guard let scheme = url?.scheme?.lowercased(), ["http", "https"].contains(scheme), url?.host != nil,
                  (url?.path ?? "").isEmpty || url?.path == "/", url?.query == nil else {
                error("a trusted origin is scheme://host[:port] with nothing after it, found '\(text)'", at: item)
                continue
            }
            settings.trustedOrigins.append(Located(text, at: item.textLocation))
        }
        if let limit = node["rateLimit"], let requests = limit["requests"]?.intValue, requests >= 1 {
            let per = limit["per"]?.intValue ?? 1
            let burst = limit["burst"]?.intValue
            if per >= 1, burst.map({ $0 >= 1 }) ?? true {
                settings.rateLimit = RateLimitSettings(requests: requests, per: per, burst: burst)
            }
        }
        return settings
    }

    // MARK: Entities

    func readEntity(_ pair: SchemaNode.Pair, plugins: Set<String>) -> Entity? {
        guard let name = pair.key.scalarText, pair.value.mapping != nil else { return nil }
        let node = pair.value
        var attributes: [Attribute] = []
        if let list = node["attributes"]?.sequence {
            for item in list {
                guard let text = item.scalarText,
                      let source = keyStyle == nil ? keyPath(item) : MappingKeyPath(keys: [sourceKey(for: text)]) else { continue }
                attributes.append(Attribute(name: text, location: item.location, source: source, type: .any,
                                            transforms: [], defaultValue: nil, isRequired: false))
            }
        } else {
            for attribute in node["attributes"]?.mapping ?? [] {
                if let parsed = readAttribute(attribute, plugins: plugins) { attributes.append(parsed) }
            }
        }
        var identifiedBy: [Located<String>] = []
        let explicit = node["identifiedBy"] != nil
        if let identification = node["identifiedBy"] {
            for item in identification.sequence ?? [identification] {
                if let text = item.scalarText, !item.isNull { identifiedBy.append(Located(text, at: item.textLocation)) }
            }
        } else {
            let candidates = ["id", "ID", "identifier", "url", "URL", "\(name)ID", "\(name)_id",
                              name.prefix(1).lowercased() + name.dropFirst() + "ID"]
            if let inferred = candidates.first(where: { candidate in attributes.contains { $0.name == candidate } }) {
                identifiedBy = [Located(inferred, at: node.location)]
            }
        }
        var relationships: [Relationship] = []
        for relationship in node["relationships"]?.mapping ?? [] {
            if let parsed = readRelationship(relationship) { relationships.append(parsed) }
        }
        var routes: [EntityRoute] = []
        for route in node["routes"]?.mapping ?? [] {
            guard let method = route.key.scalarText, let pattern = pathPattern(route.value) else { continue }
            routes.append(EntityRoute(method: method == "ANY" ? nil : method, pattern: pattern, location: route.value.location))
        }
        var entity = Entity(name: name, location: pair.key.location, identifiedBy: identifiedBy, identificationIsExplicit: explicit,
                            attributes: attributes, relationships: relationships, dynamic: readDynamic(node["dynamic"]), routes: routes)
        let defaults = root["defaults"]
        entity.assignsDefaultsForMissingAttributes = (node["missingAttributes"] ?? defaults?["missingAttributes"])?.stringValue == "default"
        entity.assignsNilForMissingRelationships = (node["missingRelationships"] ?? defaults?["missingRelationships"])?.stringValue == "clear"
        return entity
    }

    func readAttribute(_ pair: SchemaNode.Pair, plugins: Set<String>) -> Attribute? {
        guard let name = pair.key.scalarText else { return nil }
        let node = pair.value
        guard node.mapping != nil else {
            guard let source = keyPath(node) else { return nil }
            return Attribute(name: name, location: pair.key.location, source: source, type: .any,
                             transforms: [], defaultValue: nil, isRequired: false)
        }
        let source = node["from"].map { keyPath($0) } ?? MappingKeyPath(keys: [sourceKey(for: name)])
        guard let source else { return nil }
        let type = node["type"].flatMap(readType) ?? .any
        let transforms = readTransforms(node["transform"], plugins: plugins)
        if type.baseType == .date, !plugins.contains("dates"), transforms.isEmpty, let typeNode = node["type"] {
            warning("type 'date' reads strings with the dates plugin: add 'plugins: [dates]' (without it only Unix timestamps map)", at: typeNode)
        }
        if let value = node["default"], let text = value.scalarText, !value.isNull,
           [.integer, .number, .decimal].contains(type), SchemaNode.decimalNumber(text) == nil {
            // Mapping reads a number default as it reads a number string: all of it one decimal number.
            error("the default '\(text)' of a\(type == .integer ? "n" : "") \(type) attribute is not a number: write it in decimal digits (e.g. 16, -1.5, 2e3)", at: value)
        }
        return Attribute(name: name, location: pair.key.location, source: source, type: type, transforms: transforms,
                         defaultValue: node["default"], isRequired: node["required"]?.boolValue ?? false)
    }

    func readType(_ node: SchemaNode) -> AttributeType? {
        if let items = node.sequence {
            guard items.count == 1, let element = items[0].stringValue.flatMap(AttributeType.init(name:)) else { return nil }
            return .array(element)
        }
        return node.stringValue.flatMap(AttributeType.init(name:))
    }

    func readTransforms(_ node: SchemaNode?, plugins: Set<String>) -> [TransformStep] {
        guard let node else { return [] }
        var steps: [TransformStep] = []
        for item in node.sequence ?? [node] {
            let step: TransformStep
            if let name = item.stringValue {
                step = TransformStep(name: name, arguments: nil, location: item.textLocation)
            } else if let pairs = item.mapping, pairs.count == 1, let name = pairs[0].key.scalarText {
                step = TransformStep(name: name, arguments: pairs[0].value, location: pairs[0].key.location)
            } else {
                if item.mapping?.isEmpty == true {
                    error("a transform step needs a transformer name: 'name' or {name: {arguments}}", at: item)
                }
                continue
            }
            checkTransformer(step, plugins: plugins)
            steps.append(step)
        }
        return steps
    }

    func checkTransformer(_ step: TransformStep, plugins: Set<String>) {
        if let plugin = step.pluginName, !plugins.contains(plugin) {
            diagnostics.append(.error(
                "transformer '\(step.name)' comes from plugin '\(plugin)', which this schema does not load: add it to 'plugins:'",
                at: step.location))
            return
        }
        guard let catalog = options.transformers else { return }
        if let plugin = step.pluginName, !catalog.loadedPlugins.contains(plugin) { return }  // reported where plugins load
        guard let arguments = catalog.transformers[step.name] else {
            let names = { catalog.transformers.keys.filter { name in step.pluginName.map { name.hasPrefix($0 + ".") } ?? true }.sorted() }
            let owner = step.pluginName.map { "plugin '\($0)' has no transformer" } ?? "unknown transformer"
            diagnostics.append(.error("\(owner) '\(step.name)'\(hint(for: step.name, in: "transformers of \(step.pluginName ?? "")", names()))", at: step.location))
            return
        }
        guard let node = step.arguments, !node.isNull else {
            if let missing = arguments.first(where: \.isRequired) {
                diagnostics.append(.error("transformer '\(step.name)' needs argument '\(missing.name)'", at: step.location))
            }
            return
        }
        guard let pairs = node.mapping else {
            diagnostics.append(.error("arguments of '\(step.name)' must be a mapping of name: value", at: node.location))
            return
        }
        for pair in pairs {
            let key = pair.key.scalarText ?? ""
            guard let argument = arguments.first(where: { $0.name == key }) else {
                let known = arguments.isEmpty ? " (it takes no arguments)" : hint(for: key, arguments.map(\.name))
                diagnostics.append(.error("transformer '\(step.name)' has no argument '\(key)'\(known)", at: pair.key.location))
                continue
            }
            let value = pair.value
            let fits: Bool = switch argument.kind {
            case "string": value.scalarText != nil && !value.isNull
            case "strings": value.sequence?.allSatisfy { $0.scalarText != nil } ?? (value.scalarText != nil)
            case "integer": value.intValue != nil
            case "number": value.numberValue != nil
            case "boolean": value.boolValue != nil
            default: true
            }
            if !fits {
                diagnostics.append(.error("argument '\(key)' of '\(step.name)' must be \(argument.kind == "strings" ? "a list of strings" : "a \(argument.kind)"), found \(value.kindName)", at: value.location))
            }
        }
        let present = Set(pairs.compactMap(\.key.scalarText))
        for argument in arguments where argument.isRequired && !present.contains(argument.name) {
            diagnostics.append(.error("transformer '\(step.name)' needs argument '\(argument.name)'", at: step.location))
        }
    }

    func readRelationship(_ pair: SchemaNode.Pair) -> Relationship? {
        guard let name = pair.key.scalarText, let entityNode = pair.value["entity"], let entity = entityNode.stringValue else { return nil }
        let node = pair.value
        var connections: [(local: Located<String>, target: Located<String>)] = []
        for connection in node["connect"]?.mapping ?? [] {
            guard let local = connection.key.scalarText, let target = connection.value.stringValue else { continue }
            connections.append((Located(local, at: connection.key.location), Located(target, at: connection.value.textLocation)))
        }
        let source: MappingKeyPath? = if let from = node["from"] { keyPath(from) } else if connections.isEmpty, node["route"] == nil {
            MappingKeyPath(keys: [sourceKey(for: name)])
        } else { nil }
        return Relationship(
            name: name, location: pair.key.location, source: source, entity: Located(entity, at: entityNode.textLocation),
            isToMany: node["many"]?.boolValue ?? false,
            assignment: node["assign"]?.stringValue.flatMap(AssignmentPolicy.init(rawValue:)) ?? .set,
            connections: connections, route: node["route"].flatMap { route($0) }, keyedBy: keyedBy(node["keyedBy"]))
    }

    func readDynamic(_ node: SchemaNode?) -> DynamicEntity? {
        guard let node, node.mapping != nil else { return nil }
        var matchers: [DynamicMatcher] = []
        let byNode = node["by"], casesNode = node["cases"]
        if let match = node["match"] {
            if let other = byNode ?? casesNode {
                error("give either 'match' or 'by' with 'cases', not both", at: other)
            }
            matchers = (match.sequence ?? []).compactMap(readMatcher)
        } else if byNode == nil || casesNode == nil {
            error("a dynamic entity needs 'match' (a list of matchers), or 'by' with 'cases'", at: node)
        } else if let by = keyPath(byNode) {
            matchers = (casesNode?.mapping ?? []).compactMap { pair in
                guard let value = pair.key.scalarText, let entity = pair.value.stringValue else { return nil }
                let condition = DynamicCondition(keyPath: by, test: .equals([value]), location: pair.key.location)
                return DynamicMatcher(conditions: [condition], entity: Located(entity, at: pair.value.textLocation),
                                      location: pair.key.location, caseValue: value)
            }
        }
        let otherwise: DynamicFallback = switch node["otherwise"]?.stringValue {
        case nil, "skip": .skip
        case "error": .error
        case let name?: .entity(Located(name, at: node["otherwise"]!.textLocation))  // Total: the case read its string.
        }
        return DynamicEntity(matchers: matchers, otherwise: otherwise)
    }

    /// One `match:` item: `{when: {keyPath: condition, …}, entity: Name}`.
    func readMatcher(_ node: SchemaNode) -> DynamicMatcher? {
        guard node.mapping != nil, let entityNode = node["entity"], let entity = entityNode.stringValue else { return nil }
        var conditions: [DynamicCondition] = []
        for pair in node["when"]?.mapping ?? [] {
            guard let path = keyPath(pair.key) else { continue }
            let value = pair.value
            if value.mapping != nil {
                let tests = [value["equals"].map(equalsTest), value["present"]?.boolValue.map(DynamicCondition.Test.present),
                             value["type"]?.stringValue.flatMap(DynamicCondition.JSONType.init(rawValue:)).map(DynamicCondition.Test.type)]
                    .compactMap { $0 }
                if value.mapping?.isEmpty == true { error("a condition needs 'equals', 'present' or 'type'", at: value) }
                conditions += tests.map { DynamicCondition(keyPath: path, test: $0, location: pair.key.location) }
            } else {
                conditions.append(DynamicCondition(keyPath: path, test: equalsTest(value), location: pair.key.location))
            }
        }
        return DynamicMatcher(conditions: conditions, entity: Located(entity, at: entityNode.textLocation),
                              location: node.location, caseValue: nil)
    }

    /// `equals`: one value or a list of values, compared as text (`nil` is null).
    func equalsTest(_ node: SchemaNode) -> DynamicCondition.Test {
        let items = node.sequence ?? [node]
        return .equals(items.compactMap { item in
            if item.isNull { return .some(nil) }
            guard let text = item.scalarText else {
                error("a value to compare with must be a scalar, found \(item.kindName)", at: item)
                return nil
            }
            return .some(text)
        })
    }

    /// `keyedBy: name` or `keyedBy: [level1, level2]`.
    func keyedBy(_ node: SchemaNode?) -> [Located<String>] {
        guard let node else { return [] }
        return (node.sequence ?? [node]).compactMap { item in item.scalarText.map { Located($0, at: item.textLocation) } }
    }

    // MARK: Descriptors and routes

    func readResponse(_ node: SchemaNode) -> ResponseDescriptor? {
        guard node.mapping != nil, let entityNode = node["entity"], let entity = entityNode.stringValue else { return nil }
        return ResponseDescriptor(
            location: node.location, method: method(node["method"]), path: pathPattern(node["path"]),
            keyPath: keyPath(node["keyPath"]), status: status(node["status"], default: .successful),
            entity: Located(entity, at: entityNode.textLocation),
            keyedBy: keyedBy(node["keyedBy"]))
    }

    func readError(_ node: SchemaNode) -> ErrorDescriptor? {
        guard node.mapping != nil, let message = keyPath(node["message"]) else { return nil }
        return ErrorDescriptor(location: node.location, status: status(node["status"], default: .failures),
                               keyPath: keyPath(node["keyPath"]), message: message, code: keyPath(node["code"]))
    }

    func readNamedRoute(_ pair: SchemaNode.Pair) -> NamedRoute? {
        guard let name = pair.key.scalarText else { return nil }
        if pair.value.mapping != nil {
            guard let pattern = pathPattern(pair.value["path"]) else { return nil }
            return NamedRoute(name: name, location: pair.key.location, method: pair.value["method"]?.stringValue ?? "GET", pattern: pattern,
                              pagination: readPagination(pair.value["pagination"]))
        }
        guard let spec = route(pair.value) else { return nil }
        return NamedRoute(name: name, location: pair.key.location, method: spec.method ?? "GET", pattern: spec.pattern, pagination: nil)
    }

    func readSyncResource(_ pair: SchemaNode.Pair) -> SyncResource? {
        let node = pair.value
        guard let name = pair.key.scalarText, let routeNode = node["route"], let route = routeNode.stringValue,
              let entityNode = node["entity"], let entity = entityNode.stringValue else { return nil }
        if ["status", "reset"].contains(name) {
            error("'\(name)' cannot name a sync resource: restmap sync \(name) is a subcommand", at: pair.key)
        }
        var parent: SyncParent?
        if let parentNode = node["parent"], let parentEntity = parentNode["entity"], let parentName = parentEntity.stringValue {
            var parameters: [String: Located<String>] = [:]
            for item in parentNode["parameters"]?.mapping ?? [] {
                guard let parameter = item.key.scalarText, let attribute = item.value.stringValue else { continue }
                parameters[parameter] = Located(attribute, at: item.value.textLocation)
            }
            parent = SyncParent(entity: Located(parentName, at: parentEntity.textLocation), parameters: parameters,
                                depth: parentNode["depth"]?.intValue)
        }
        var cursor: SyncCursor?
        if let cursorNode = node["cursor"], cursorNode.mapping != nil {
            let attributeNode = cursorNode["attribute"]
            let token = keyPath(cursorNode["token"])
            if (attributeNode == nil) == (cursorNode["token"] == nil) {
                error("a cursor reads either 'attribute' (of the records) or 'token' (handed back by the API)", at: cursorNode)
            }
            if let tokenNode = cursorNode["token"] {
                for key in ["window", "ordered", "lookback", "start"] where cursorNode[key] != nil {
                    error("'\(key)' does not apply to a token the API hands back", at: tokenNode)
                }
                if cursorNode["filter"]?.stringValue == "client" {
                    error("a token the API hands back is sent to the API: it cannot go with filter: client", at: tokenNode)
                }
            }
            let filter = cursorNode["filter"]?.stringValue.flatMap(SyncCursor.Filter.init(rawValue:)) ?? .server
            let parameter = cursorNode["parameter"]?.scalarText
            if filter == .server, parameter == nil {
                error("a cursor filtered by the server needs 'parameter' (the query parameter carrying the state), or filter: client", at: cursorNode)
            }
            cursor = SyncCursor(attribute: attributeNode.flatMap { node in node.stringValue.map { Located($0, at: node.textLocation) } },
                                token: token, parameter: parameter,
                                start: cursorNode["start"]?.scalarText, lookback: cursorNode["lookback"]?.intValue ?? 0,
                                filter: filter, ordered: cursorNode["ordered"]?.boolValue ?? false,
                                window: cursorNode["window"]?.intValue, endParameter: cursorNode["endParameter"]?.scalarText)
            if let windowNode = cursorNode["window"] {
                if cursorNode["endParameter"] == nil {
                    error("date windows need 'endParameter' (the query parameter carrying each window's end)", at: windowNode)
                } else if filter == .client {
                    error("date windows ask the server for each range: they cannot go with filter: client", at: windowNode)
                } else if cursorNode["start"] == nil {
                    error("date windows need a 'start' (the date the first window begins)", at: windowNode)
                }
            }
        }
        return SyncResource(name: name, location: pair.key.location, route: Located(route, at: routeNode.textLocation),
                            entity: Located(entity, at: entityNode.textLocation), parent: parent, cursor: cursor)
    }

    func readRequest(_ node: SchemaNode) -> RequestDescriptor? {
        guard node.mapping != nil, let entityNode = node["entity"], let entity = entityNode.stringValue else { return nil }
        var attributes: [(bodyKey: String, attribute: Located<String>)]?
        if let list = node["attributes"]?.sequence {
            attributes = list.compactMap { item in item.scalarText.map { ($0, Located($0, at: item.textLocation)) } }
        } else if let pairs = node["attributes"]?.mapping {
            attributes = pairs.compactMap { pair in
                guard let key = pair.key.scalarText, let attribute = pair.value.stringValue else { return nil }
                return (key, Located(attribute, at: pair.value.textLocation))
            }
        }
        return RequestDescriptor(
            location: node.location, entity: Located(entity, at: entityNode.textLocation), method: method(node["method"]),
            rootKeyPath: node["rootKeyPath"]?.scalarText, attributes: attributes,
            format: node["format"]?.stringValue.flatMap(RequestFormat.init(rawValue:)) ?? .json, keyedBy: keyedBy(node["keyedBy"]))
    }
}

extension AttributeType {
    /// The element type of an array type, else the type itself.
    public var baseType: AttributeType {
        if case .array(let element) = self { return element.baseType }
        return self
    }
}
