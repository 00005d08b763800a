#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Object keys looked up together, in one pass over an object's members (`JSONNode.findMembers`):
/// finding the dozen keys of a mapping one by one walks the members before each of them again.
///
/// Built once (per entity of a schema) and immutable; its tables live in memory it owns, read
/// through plain pointers.
package final class JSONKeySet: @unchecked Sendable {
    // Unchecked: the buffers are written in init only.

    /// The keys' UTF-8, back to back: key `i` is `text[starts[i]..<starts[i + 1]]`.
    private let text: UnsafeMutableBufferPointer<UInt8>
    private let starts: UnsafeMutableBufferPointer<Int>
    /// Key indices ordered by length: those of length `n` are `byLength[lengthStarts[n]..<lengthStarts[n + 1]]`.
    private let byLength: UnsafeMutableBufferPointer<Int>
    private let lengthStarts: UnsafeMutableBufferPointer<Int>
    /// An open-addressing hash table of key index + 1 (0: an empty slot), for lengths that more
    /// than `linearLookupLimit` keys share; empty when none do. Its size is a power of two.
    private let table: UnsafeMutableBufferPointer<Int>

    /// The most keys of one length compared one by one; more are looked up in `table`, so a set
    /// of many keys (an entity of 100,000 attributes) is searched in constant time, not linear.
    static let linearLookupLimit = 16

    /// The number of keys.
    package let count: Int

    /// A set of distinct keys; a key given twice is found at its first index only.
    package init(_ keys: [String]) {
        count = keys.count
        let utf8 = keys.map { Array($0.utf8) }
        let longest = utf8.map(\.count).max() ?? 0
        text = .allocate(capacity: max(1, utf8.reduce(0) { $0 + $1.count }))
        starts = .allocate(capacity: keys.count + 1)
        byLength = .allocate(capacity: max(1, keys.count))
        lengthStarts = .allocate(capacity: longest + 2)
        var offset = 0
        for (index, key) in utf8.enumerated() {
            starts[index] = offset
            for byte in key {
                text[offset] = byte
                offset += 1
            }
        }
        starts[keys.count] = offset
        let ordered = utf8.indices.sorted { (utf8[$0].count, $0) < (utf8[$1].count, $1) }
        for (position, index) in ordered.enumerated() { byLength[position] = index }
        var position = 0
        var largestShare = 0
        for length in 0...(longest + 1) {
            while position < ordered.count, utf8[ordered[position]].count < length { position += 1 }
            lengthStarts[length] = position
            if length > 0 { largestShare = max(largestShare, position - lengthStarts[length - 1]) }
        }
        if largestShare > Self.linearLookupLimit {
            var size = 16
            while size < 2 * keys.count { size <<= 1 }
            let slots = UnsafeMutableBufferPointer<Int>.allocate(capacity: size)
            slots.initialize(repeating: 0)
            for (index, key) in utf8.enumerated() {
                var slot = Self.hash(key) & (size - 1)
                // A key given twice keeps its first index.
                while slots[slot] != 0, utf8[slots[slot] - 1] != key { slot = (slot + 1) & (size - 1) }
                if slots[slot] == 0 { slots[slot] = index + 1 }
            }
            table = slots
        } else {
            table = .allocate(capacity: 0)
        }
    }

    deinit {
        text.deallocate()
        starts.deallocate()
        byLength.deallocate()
        lengthStarts.deallocate()
        table.deallocate()
    }

    /// FNV-1a of a key's bytes.
    @inline(__always)
    private static func hash(_ bytes: some Sequence<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }

    /// Whether key `key` is `candidate`.
    @inline(__always)
    private func key(_ key: Int, equals candidate: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = candidate.count
        guard starts[key + 1] - starts[key] == length else { return false }
        // Total: a key of `length` > 0 bytes has its bytes in `text`, and so has `candidate`.
        return length == 0 || memcmp(text.baseAddress! + starts[key], candidate.baseAddress!, length) == 0
    }

    /// The index of the first key equal to `candidate`, or `nil`.
    @inline(__always)
    func index(of candidate: UnsafeBufferPointer<UInt8>) -> Int? {
        let length = candidate.count
        guard length + 1 < lengthStarts.count else { return nil }
        if lengthStarts[length + 1] - lengthStarts[length] > Self.linearLookupLimit {
            let mask = table.count - 1
            var slot = Self.hash(candidate) & mask
            while table[slot] != 0 {
                if key(table[slot] - 1, equals: candidate) { return table[slot] - 1 }
                slot = (slot + 1) & mask
            }
            return nil
        }
        for position in lengthStarts[length]..<lengthStarts[length + 1] {
            let key = byLength[position]
            // Total: a key of `length` > 0 bytes has its bytes in `text`, and so has `candidate`.
            if length == 0 || (text[starts[key]] == candidate[0]
                               && memcmp(text.baseAddress! + starts[key], candidate.baseAddress!, length) == 0) {
                return key
            }
        }
        return nil
    }
}

extension JSONNode {
    /// Finds the members named by `keys` in one pass over an object: `positions[i]` becomes the
    /// tape position of the value of the first member named key `i` (read it with
    /// `member(atPosition:)`), or -1 when there is none or this is not an object. The walk stops
    /// once every key is found. `positions` holds at least `keys.count` elements.
    package func findMembers(_ keys: JSONKeySet, into positions: UnsafeMutableBufferPointer<Int>) {
        var missing = keys.count
        for index in 0..<missing { positions[index] = -1 }
        let container = entry
        guard container.tag == .object, missing > 0 else { return }
        let bytes = document.bytes
        let tape = document.tape
        var position = index + 1
        let end = Int(container.end)
        while position < end {
            let keyEntry = tape[position]
            let found: Int?
            if keyEntry.flag {
                var decoded = JSONStrings.unescape(UnsafeBufferPointer(rebasing: bytes[Int(keyEntry.start)..<Int(keyEntry.end)]))
                found = decoded.withUTF8 { keys.index(of: $0) }
            } else {
                found = keys.index(of: UnsafeBufferPointer(rebasing: bytes[Int(keyEntry.start)..<Int(keyEntry.end)]))
            }
            // Duplicate keys: the first member wins, as in `subscript(key:)`.
            if let found, positions[found] < 0 {
                positions[found] = position + 1
                missing -= 1
                if missing == 0 { return }
            }
            let value = tape[position + 1]
            position = value.isContainer ? Int(value.end) : position + 2
        }
    }

    /// The value at a tape position `findMembers` gave for this node's document.
    package func member(atPosition position: Int) -> JSONNode {
        JSONNode(document: document, index: position)
    }
}
