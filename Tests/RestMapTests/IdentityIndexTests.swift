@testable import RestMap
import RestMapPluginKit
import Testing

/// The identity index gives what a dictionary of identifications gives, for whole numbers (in its
/// own table), other values and composite keys alike.
@Suite struct IdentityIndexTests {
    @Test func behavesAsADictionary() {
        var index = IdentityIndex()
        var model: [IdentityKey: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        // Numbers alike in their low bits or their high bits, small ones, negative ones, strings, pairs.
        let keys: [IdentityKey] = (0..<3000).map { .single(.integer(Int64($0) << 40)) }
            + (0..<3000).map { .single(.integer(Int64($0))) }
            + (0..<500).map { .single(.integer(-Int64($0) * 1_000_003)) }
            + (0..<500).map { .single(.string("login-\($0)")) }
            + (0..<200).map { .composite([.integer(Int64($0)), .string("x")]) }
        for position in 0..<20_000 {
            let key = keys[Int.random(in: keys.indices, using: &generator)]
            let expected = model[key]
            if expected == nil { model[key] = position }
            #expect(index.positionOrInsert(key, position) == expected)
        }
        #expect(index.count == model.count)
        #expect(Self.entries(of: index) == model)
        index.removeAll()
        #expect(index.isEmpty && Self.entries(of: index).isEmpty)
        #expect(index.positionOrInsert(keys[0], 7) == nil)
        #expect(index.positionOrInsert(keys[0], 8) == 7)
    }

    static func entries(of index: IdentityIndex) -> [IdentityKey: Int] {
        var entries: [IdentityKey: Int] = [:]
        index.forEach { key, position in
            #expect(entries.updateValue(position, forKey: key) == nil, "\(key) given twice")
        }
        return entries
    }

    @Test func reservingKeepsWhatIsStored() {
        var index = IdentityIndex()
        for number in 0..<100 { _ = index.positionOrInsert(.single(.integer(Int64(number) * 7)), number) }
        index.reserveCapacity(100_000)
        #expect((0..<100).allSatisfy { index.positionOrInsert(.single(.integer(Int64($0) * 7)), -5) == $0 })
        #expect(index.count == 100)
    }
}
