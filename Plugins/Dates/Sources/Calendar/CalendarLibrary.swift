import FoundationEssentials
import Glibc
import RestMapPluginKit
import RestMapPluginLoader
import RestMapPlugins

/// Unicode date patterns and named time zones, from `librestmap-dates-calendar.so`.
///
/// They come from ICU through Foundation's `DateFormatter` and `TimeZone`, and loading Foundation
/// and ICU costs a process about 3 ms: so the `dates` plugin does not link them. The library that
/// does is opened the first time a transformer names a pattern or a zone other than UTC, from the
/// folder of the code of this module (the plugin's `librestmap-dates.so`, or a program that links
/// `RestMapDates`), after the checks a plugin passes (`PluginTrust`). Without it, those arguments
/// are refused with an error saying where it was looked for; every other date still reads.
enum CalendarLibrary {
    /// The library's file name.
    static let fileName = "librestmap-dates-calendar.so"

    fileprivate typealias Zone = @convention(c) (UnsafePointer<CChar>) -> UnsafeRawPointer?
    fileprivate typealias ZoneOffset = @convention(c) (UnsafeRawPointer, Double) -> Int32
    fileprivate typealias Parse = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafePointer<CChar>,
                                              UnsafePointer<CChar>, UnsafeMutablePointer<Double>) -> Bool
    fileprivate typealias Format = @convention(c) (UnsafePointer<CChar>, Double, UnsafePointer<CChar>,
                                               UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>?

    /// The library's functions (C function pointers into a library that is never closed).
    struct Functions: @unchecked Sendable {
        fileprivate let zone: Zone
        fileprivate let zoneOffset: ZoneOffset
        fileprivate let parse: Parse
        fileprivate let format: Format

        /// A handle of the zone `name`, valid for the life of the process; `nil` for an unknown zone.
        func zone(named name: String) -> UnsafeRawPointer? { zone(name) }

        /// The offset from UTC, in seconds, of the zone `handle` at `seconds` since 1970.
        func offset(ofZone handle: UnsafeRawPointer, at seconds: Double) -> Int { Int(zoneOffset(handle, seconds)) }

        /// The instant `text` names in `pattern`, read in the zone `zone` ("" for UTC) and `locale`.
        func seconds(from text: String, pattern: String, zone: String, locale: String) -> Double? {
            var seconds = 0.0
            return parse(pattern, text, zone, locale, &seconds) ? seconds : nil
        }

        /// The text of `seconds` since 1970 in `pattern`, in the zone `zone` ("" for UTC) and `locale`.
        func text(of seconds: Double, pattern: String, zone: String, locale: String) -> String? {
            guard let text = format(pattern, seconds, zone, locale) else { return nil }
            defer { free(text) }
            return String(cString: text)
        }
    }

    /// The library's functions, or why they are not available: opened once, on first use.
    private static let loaded: Result<Functions, TransformerError> = load()

    /// The library's functions, or an error naming `use` (what needs them) and where the library was looked for.
    static func functions(for use: String) throws(TransformerError) -> Functions {
        switch loaded {
        case .success(let functions): return functions
        case .failure(let error): throw TransformerError("\(use) needs \(error.message)")
        }
    }

    private static func load() -> Result<Functions, TransformerError> {
        guard let folder = folderOfThisCode() else {
            return .failure(TransformerError("\(fileName), and the folder of the dates plugin's code is unknown"))
        }
        let path = FilePaths.joining(folder, fileName)
        let remedy = "(it is built with `swift build` and installed beside librestmap-dates.so)"
        guard access(path, F_OK) == 0 else {
            return .failure(TransformerError("\(path), which is missing \(remedy)"))
        }
        let handle: UnsafeMutableRawPointer
        do {
            let verified = try PluginTrust.verifiedPath(of: path)
            guard let opened = dlopen(verified, RTLD_LAZY | RTLD_LOCAL) else {
                let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
                return .failure(TransformerError("\(path), which could not be opened: \(reason) \(remedy)"))
            }
            handle = opened
        } catch {
            return .failure(TransformerError("\(path), which was not opened: \(error)"))
        }
        guard let zone = dlsym(handle, "restmap_dates_calendar_zone"),
              let zoneOffset = dlsym(handle, "restmap_dates_calendar_zone_offset"),
              let parse = dlsym(handle, "restmap_dates_calendar_parse"),
              let format = dlsym(handle, "restmap_dates_calendar_format") else {
            return .failure(TransformerError("\(path), which lacks the calendar functions"))
        }
        return .success(Functions(zone: unsafeBitCast(zone, to: Zone.self),
                                  zoneOffset: unsafeBitCast(zoneOffset, to: ZoneOffset.self),
                                  parse: unsafeBitCast(parse, to: Parse.self),
                                  format: unsafeBitCast(format, to: Format.self)))
    }

    /// The folder of the file holding this module's code: the plugin library, or the program
    /// when the module is linked into it. The kernel's map of the process (`/proc/self/maps`)
    /// names the file each range of addresses comes from.
    private static func folderOfThisCode() -> String? {
        let anchor: @convention(c) () -> Void = {}
        let address = UInt(bitPattern: unsafeBitCast(anchor, to: UnsafeRawPointer.self))
        guard let maps = FileManager.default.contents(atPath: "/proc/self/maps") else { return nil }
        for line in maps.split(separator: UInt8(ascii: "\n")) {
            // start-end perms offset device inode path
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, let dash = fields[0].firstIndex(of: UInt8(ascii: "-")),
                  let start = UInt(String(decoding: fields[0][..<dash], as: UTF8.self), radix: 16),
                  let end = UInt(String(decoding: fields[0][(dash + 1)...], as: UTF8.self), radix: 16),
                  start <= address, address < end else { continue }
            let path = String(decoding: fields[5], as: UTF8.self).trimmingWhitespace()
            return path.hasPrefix("/") ? FilePaths.directory(of: path) : nil
        }
        return nil
    }
}
