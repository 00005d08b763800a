import Foundation

/// Writing to the standard streams.
enum Terminal {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// Body files given on the command line.
enum BodyFile {
    /// The media type a body file's extension implies when no `Content-Type` is given:
    /// `.csv` files are `text/csv` (decoded by the csv plugin); everything else is read as JSON.
    static func impliedContentType(of path: String?) -> String? {
        path?.lowercased().hasSuffix(".csv") == true ? "text/csv" : nil
    }
}
