/// `application/x-www-form-urlencoded` text, as in query strings and form bodies.
enum FormEncoding {
    /// The name/value pairs in order; `+` is a space and `%XX` escapes are decoded (an invalid
    /// escape is kept as written).
    static func pairs(_ text: Substring) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// Decodes one component; in a path segment (`plusIsSpace` false) `+` stays itself.
    static func decode(_ text: Substring, plusIsSpace: Bool = true) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                if iterator.count >= 2, let high = hexValue(iterator[iterator.startIndex]),
                   let low = hexValue(iterator[iterator.startIndex + 1]) {
                    bytes.append(high << 4 | low)
                    iterator.removeFirst(2)
                } else {
                    bytes.append(byte)
                }
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Encodes one component: everything but unreserved characters is percent-escaped.
    static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return result
    }

    /// Joins pairs into form text.
    static func join(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&")
    }

    /// A form body as a JSON object, Rails style: `task[name]=x` nests as `{"task": {"name": "x"}}`.
    /// Every value is a string; a name repeated keeps its last value.
    static func object(_ text: Substring) -> JSONValue {
        var root = JSONValue.object([])
        for (name, value) in pairs(text) {
            if let open = name.firstIndex(of: "["), name.hasSuffix("]") {
                let outer = String(name[..<open])
                let inner = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
                var nested = root[outer] ?? .object([])
                if case .object = nested {} else { nested = .object([]) }
                nested.set(inner, .string(value))
                root.set(outer, nested)
            } else {
                root.set(name, .string(value))
            }
        }
        return root
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
