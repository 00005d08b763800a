import Foundation
@testable import RestMapJSON
import Testing

/// A key set of many keys of one length (an entity of 100,000 attributes) is looked up through
/// its hash table, and finds what the few-key path finds.
@Suite struct JSONKeySetTests {
    @Test func manyKeysOfOneLengthAreEachFoundAtTheirIndex() throws {
        let count = 100_000
        // k00000 … k99999: every key six bytes long, far beyond the linear lookup limit.
        let keys = (0..<count).map { "k" + String(repeating: "0", count: 5 - String($0).count) + String($0) }
        let set = JSONKeySet(keys + ["k00042", "short"])
        var body = "{"
        // Members in reverse order, a duplicate of the first key, an escaped key, and keys not in the set.
        for index in (0..<count).reversed() { body += "\"\(keys[index])\": \(index), " }
        body += #""k00000": -1, "k0004\u0032": -2, "zzzzzz": 7, "short": "s"}"#
        let root = try JSONDocument(string: body).root
        var positions = [Int](repeating: 0, count: set.count)
        positions.withUnsafeMutableBufferPointer { root.findMembers(set, into: $0) }
        for index in [0, 1, 42, 12_345, 99_999] {
            #expect(root.member(atPosition: positions[index]).number?.int64 == Int64(index))
        }
        #expect((0..<count).allSatisfy { root.member(atPosition: positions[$0]).number?.int64 == Int64($0) })
        // A key given twice is found at its first index only.
        #expect(positions[count] == -1)
        #expect(root.member(atPosition: positions[count + 1]).stringValue == "s")
    }
}
