import HTTPTypes

// The client's public API speaks swift-http-types; the core's `Response` and async-http-client's
// requests speak name/value strings. These convert at that edge.
extension HTTPFields {
    /// Fields from name/value pairs in order; a name that is not an HTTP token cannot be a field
    /// and is left out.
    init(_ pairs: [(name: String, value: String)]) {
        self.init()
        for (name, value) in pairs {
            guard let fieldName = HTTPField.Name(name) else { continue }
            append(HTTPField(name: fieldName, value: value))
        }
    }

    /// The fields as a dictionary by name as given; a repeated name keeps its values joined by ", ".
    var dictionary: [String: String] {
        var result: [String: String] = [:]
        for field in self {
            let name = field.name.rawName
            result[name] = result[name].map { $0 + ", " + field.value } ?? field.value
        }
        return result
    }
}

extension HTTPField.Name {
    /// `Link` (RFC 8288), which swift-http-types does not name.
    static let link = HTTPField.Name("Link")!
}
