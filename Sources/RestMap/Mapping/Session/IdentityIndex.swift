/// The positions of one entity's records by identification, for merging (`MappingSession.store`).
///
/// Identifications that are one whole number (`identifiedBy: id` with `id: 42`, the common case)
/// sit in an open-addressing table of their own, hashed by a few multiplies and shifts of the
/// number mixed with a per-process random seed, instead of by SipHash through `Hasher`: a lookup
/// there was most of the cost of storing a record. Every other identification sits in a
/// dictionary. A number whose probe runs past `maximumProbe` slots (many numbers hashing alike,
/// as a hostile body could try) also goes to the dictionary, so no lookup costs more than
/// `maximumProbe` slots and one dictionary lookup.
struct IdentityIndex {
    /// Whole-number identifications and their positions; `positions[slot] < 0` is an empty slot.
    private var numbers: [Int64] = []
    private var positions: [Int] = []
    private var numberCount = 0
    /// Identifications that are not one whole number, and numbers that probed too far.
    private var others: [IdentityKey: Int] = [:]

    static let maximumProbe = 32
    /// Mixed into every hash, so which numbers collide differs from process to process.
    private static let seed = UInt64.random(in: .min ... .max)

    /// The number of identifications.
    var count: Int { numberCount + others.count }
    var isEmpty: Bool { count == 0 }

    /// Makes room for `capacity` identifications in all.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity > numbers.count / 2 { resize(toHold: capacity) }
    }

    /// The position stored for `key`, if any; else stores `position` for it and returns `nil`.
    /// One lookup either way.
    mutating func positionOrInsert(_ key: IdentityKey, _ position: Int) -> Int? {
        guard case .single(.integer(let number)) = key else { return Self.positionOrInsert(key, position, in: &others) }
        if numberCount + 1 > numbers.count / 2 { resize(toHold: Swift.max(16, 2 * (numberCount + 1))) }
        let mask = numbers.count - 1
        var slot = Self.hash(number) & mask
        for _ in 0..<Self.maximumProbe {
            if positions[slot] < 0 {
                // Not in the table; a number that probed too far once may be in the dictionary.
                if !others.isEmpty, let existing = others[key] { return existing }
                numbers[slot] = number
                positions[slot] = position
                numberCount += 1
                return nil
            }
            if numbers[slot] == number { return positions[slot] }
            slot = (slot + 1) & mask
        }
        return Self.positionOrInsert(key, position, in: &others)
    }

    /// Calls `body` with every identification and its position, in no particular order.
    func forEach(_ body: (IdentityKey, Int) -> Void) {
        for (key, position) in others { body(key, position) }
        for slot in positions.indices where positions[slot] >= 0 { body(.single(.integer(numbers[slot])), positions[slot]) }
    }

    /// Forgets every identification, keeping the room.
    mutating func removeAll() {
        if numberCount > 0 {
            for slot in positions.indices { positions[slot] = -1 }
            numberCount = 0
        }
        others.removeAll(keepingCapacity: true)
    }

    private static func positionOrInsert(_ key: IdentityKey, _ position: Int, in dictionary: inout [IdentityKey: Int]) -> Int? {
        // A new key costs one lookup: stored at once, and put back when it was known.
        guard let existing = dictionary.updateValue(position, forKey: key) else { return nil }
        dictionary[key] = existing
        return existing
    }

    /// splitmix64's finalizer of the seeded number: every bit of the number reaches every bit
    /// of the slot.
    @inline(__always) private static func hash(_ number: Int64) -> Int {
        var mixed = UInt64(bitPattern: number) ^ seed
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 31))
    }

    /// A table of at least twice `capacity` slots (a power of two) holding the numbers so far.
    private mutating func resize(toHold capacity: Int) {
        var size = 16
        while size < 2 * capacity { size *= 2 }
        guard size > numbers.count else { return }
        let (oldNumbers, oldPositions) = (numbers, positions)
        numbers = Array(repeating: 0, count: size)
        positions = Array(repeating: -1, count: size)
        numberCount = 0
        for slot in oldPositions.indices where oldPositions[slot] >= 0 {
            _ = positionOrInsert(.single(.integer(oldNumbers[slot])), oldPositions[slot])
        }
    }
}
