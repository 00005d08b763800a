import FoundationEssentials
import Glibc
import RestMapSchema
import Synchronization

/// The identifications of every element streamed so far: an element holding a record that
/// differs from one with the same identification in an earlier element is left out, with an
/// error saying so (mapping the whole body would have merged them into something else).
///
/// Every identified record of every element is entered, those of an element left out included:
/// whole-body mapping would merge a later record with it too. So whether a record conflicts
/// depends only on the records with its identification before it, and the ledger is cut into
/// shards by identification, each checked in input order on its own. The mapping threads check
/// their own batches (`submit`): a thread that finds a shard's earlier batches checked goes on
/// with its own and with every later batch already waiting there, and otherwise leaves its part
/// for the thread that checks the batch before it. No thread waits for a shard, and the calling
/// thread only waits for a batch's verdict (`LedgerVerdict.conflicts`) when it takes the batch.
final class IdentityLedger: Sendable {
    /// Enough shards that threads rarely want the same one at once; few enough that a batch's
    /// parts stay cheap to hand over.
    static let shardCount = 64
    private let shards = (0..<IdentityLedger.shardCount).map { _ in LedgerShard() }

    /// Checks the identifications of batch `sequence` (batches are numbered from 0, each
    /// submitted once, in any order) against those of the batches before it and of the earlier
    /// elements of its own, and enters them.
    func submit(_ batch: MappedBatch, sequence: Int) -> LedgerVerdict {
        var parts = Array(repeating: [LedgerShard.Claim](), count: Self.shardCount)
        for (element, mapped) in batch.elements.enumerated() {
            for (position, claim) in mapped.identities.enumerated() {
                parts[Self.shard(of: claim.ledgerKey)].append(
                    LedgerShard.Claim(element: element, position: position, key: claim.ledgerKey, fingerprint: claim.fingerprint))
            }
        }
        let verdict = LedgerVerdict(shards: parts.count { !$0.isEmpty })
        for (shard, part) in parts.enumerated() {
            shards[shard].submit(LedgerShard.Part(claims: part, verdict: verdict), sequence: sequence)
        }
        return verdict
    }

    /// The top bits of the key: the table inside the shard places keys by their low bits.
    private static func shard(of key: Int) -> Int {
        Int(UInt(bitPattern: key) >> (UInt.bitWidth - 6)) & (shardCount - 1)
    }
}

/// What checking one batch's identifications found: the claims that conflict with earlier ones.
final class LedgerVerdict: Sendable {
    /// Each conflicting claim as (element in the batch, claim in the element).
    private let state: Monitor<(remaining: Int, conflicts: [(element: Int, position: Int)])>

    fileprivate init(shards: Int) {
        state = Monitor((shards, []))
    }

    fileprivate func shardChecked(conflicts: [(element: Int, position: Int)]) {
        // Only the last shard wakes the thread waiting for the verdict (up to 64 shards check a batch).
        state.updateAndWake { state in
            state.remaining -= 1
            state.conflicts += conflicts
            return state.remaining == 0 ? .all(0) : nil
        }
    }

    /// The conflicting claims once every shard has checked the batch, each element's in claim order.
    func conflicts(waited: ((Duration) -> Void)? = nil) -> [(element: Int, position: Int)] {
        state.wait(until: { $0.remaining == 0 ? $0.conflicts : nil }, waited: waited)
            .sorted { ($0.element, $0.position) < ($1.element, $1.position) }
    }
}

/// One shard of the ledger: its table, and the parts of batches waiting for the batches before them.
private final class LedgerShard: Sendable {
    struct Claim {
        var element: Int
        var position: Int
        var key: Int
        var fingerprint: Int
    }

    struct Part {
        var claims: [Claim]
        var verdict: LedgerVerdict
    }

    private struct State {
        /// Out while a thread checks parts against it (`submit`).
        var table: FingerprintTable? = FingerprintTable()
        /// The next batch to check.
        var next = 0
        var waiting: [Int: Part] = [:]
    }

    private let state = Mutex(State())

    /// Leaves the part of batch `sequence`, then checks every part whose batches before it are checked.
    func submit(_ part: Part, sequence: Int) {
        // The table is moved out of the state while this thread checks parts against it.
        var table: FingerprintTable?
        var part: Part? = part
        state.withLock { state in
            if sequence == state.next, let taken = state.table.take() {
                table = taken
            } else {
                state.waiting[sequence] = part.take()
            }
        }
        while table != nil, let current = part.take() {
            if !current.claims.isEmpty {
                var conflicts: [(element: Int, position: Int)] = []
                for claim in current.claims where !table!.insertOrCompare(key: claim.key, fingerprint: claim.fingerprint) {
                    conflicts.append((claim.element, claim.position))
                }
                current.verdict.shardChecked(conflicts: conflicts)
            }
            state.withLock { state in
                state.next += 1
                part = state.waiting.removeValue(forKey: state.next)
                if part == nil { state.table = table.take() }
            }
        }
    }
}

/// The ledger's table: fingerprints by a key that is already a hash (`IdentityClaim.ledgerKey`),
/// in open addressing with linear probing, so the key is not hashed again as `Dictionary` would;
/// each key sits next to its fingerprint, so a probe touches one cache line.
///
/// The slots are memory mapped on their own, not taken from the allocator: fresh mapped memory
/// reads as zeros (free slots) without being written, only the pages holding entries become
/// resident, and a table outgrown is given back to the kernel at once instead of staying in the
/// allocator's heap (64 shards growing one after another left up to half their size there).
/// A class: a table is moved between the threads that check a shard, never copied. One thread
/// uses it at a time, handed over under the shard's lock: that makes it `Sendable`.
final class FingerprintTable: @unchecked Sendable {
    /// `0` marks a free slot; a key equal to it is stored as `1` (like any two keys with one hash,
    /// the ledger takes them for one identification).
    private var slots: UnsafeMutablePointer<(key: Int, fingerprint: Int)>
    private var capacity: Int
    private var count = 0

    init() {
        capacity = 1024
        slots = Self.map(capacity)
    }

    deinit {
        Self.unmap(slots, capacity)
    }

    /// Stores `fingerprint` for `key` when the key is new (`true`); otherwise whether the stored
    /// fingerprint is this one.
    func insertOrCompare(key: Int, fingerprint: Int) -> Bool {
        if 2 * (count + 1) > capacity { grow() }
        let key = key == 0 ? 1 : key
        let mask = capacity - 1
        var slot = key & mask
        while true {
            let stored = slots[slot].key
            if stored == 0 {
                slots[slot] = (key, fingerprint)
                count += 1
                return true
            }
            if stored == key { return slots[slot].fingerprint == fingerprint }
            slot = (slot + 1) & mask
        }
    }

    private func grow() {
        let (old, oldCapacity) = (slots, capacity)
        capacity *= 2
        slots = Self.map(capacity)
        count = 0
        for slot in 0..<oldCapacity where old[slot].key != 0 {
            _ = insertOrCompare(key: old[slot].key, fingerprint: old[slot].fingerprint)
        }
        Self.unmap(old, oldCapacity)
    }

    private static func map(_ capacity: Int) -> UnsafeMutablePointer<(key: Int, fingerprint: Int)> {
        let bytes = capacity * MemoryLayout<(key: Int, fingerprint: Int)>.stride
        let start = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let start, start != MAP_FAILED else { fatalError("out of memory for the identity ledger (\(bytes) bytes)") }
        return start.bindMemory(to: (key: Int, fingerprint: Int).self, capacity: capacity)
    }

    private static func unmap(_ slots: UnsafeMutablePointer<(key: Int, fingerprint: Int)>, _ capacity: Int) {
        munmap(slots, capacity * MemoryLayout<(key: Int, fingerprint: Int)>.stride)
    }
}

/// A record with an identification seen in one element, to compare with other elements.
struct IdentityClaim: Sendable {
    var entity: Int
    var key: IdentityKey
    var fingerprint: Int
    /// A hash of entity and identification: the ledger's key, worked out on the mapping thread.
    var ledgerKey: Int

    init(entity: Int, key: IdentityKey, fingerprint: Int) {
        self.entity = entity
        self.key = key
        self.fingerprint = fingerprint
        var hasher = Hasher()
        hasher.combine(entity)
        hasher.combine(key)
        ledgerKey = hasher.finalize()
    }
}

extension MappedBatch {
    /// Leaves out the elements whose claims `conflicts` names, each with an error naming its
    /// first conflicting record.
    mutating func leaveOut(_ conflicts: [(element: Int, position: Int)], plan: MappingPlan) {
        for (element, position) in conflicts where !elements[element].isLeftOut {
            let conflict = elements[element].identities[position]
            let entity = plan.entities[conflict.entity].name
            elements[element].isLeftOut = true
            noteLeftOut()
            elements[element].errors.append(StreamedError(
                line: elements[element].line,
                message: "\(elements[element].place)a record of entity '\(entity)' with identification \(Self.describe(conflict.key)) differs "
                    + "from one with the same identification in an earlier element; mapping the whole body would merge "
                    + "them, so this element is left out: map the whole body (restmap map --no-stream) to merge them"))
        }
    }

    private static func describe(_ key: IdentityKey) -> String {
        switch key {
        case .single(let value): ValueText.short(value)
        case .composite(let values): "(" + values.map(ValueText.short).joined(separator: ", ") + ")"
        }
    }
}
