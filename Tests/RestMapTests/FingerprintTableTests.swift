@testable import RestMap
import Testing

/// The identity ledger's table: the first fingerprint of a key stays; later ones compare with it.
@Suite("The identity ledger's table")
struct FingerprintTableTests {
    @Test("New keys are stored, known keys compare, across growth and for every key value")
    func storesAndCompares() {
        let table = FingerprintTable()
        let keys: [Int] = (0..<50_000).map { $0 &* Int(bitPattern: 0x9E37_79B9_7F4A_7C15) } + [.min, .max, 0, -1]
        var stored = 0, same = 0, other = 0
        for key in keys where table.insertOrCompare(key: key, fingerprint: key ^ 7) { stored += 1 }
        for key in keys {
            if table.insertOrCompare(key: key, fingerprint: key ^ 7) { same += 1 }
            if !table.insertOrCompare(key: key, fingerprint: key ^ 8) { other += 1 }
        }
        #expect(stored == keys.count, "every new key is stored")
        #expect(same == keys.count, "the same fingerprint again compares equal")
        #expect(other == keys.count, "another fingerprint does not")
    }
}
