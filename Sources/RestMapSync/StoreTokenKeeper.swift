import RestMapClient
import RestMapStore

/// Keeps a client's OAuth 2.0 refresh token in a store, so that processes on several machines
/// writing one PostgreSQL store share the latest one (`restmap sync --token-in-store`).
///
/// The token is the checkpoint `oauth2/<token URL>#<hash of the client id>`, read, refreshed and
/// replaced under the store's lock of the same name (`RecordStore.lock`); it is written in a
/// transaction of its own, committed before the new access token is used. Whoever may read the
/// store's `rm_checkpoints` table may read the token: grant that table to the syncing role alone.
public struct StoreTokenKeeper: RefreshTokenKeeper {
    public let store: RecordStore

    public init(store: RecordStore) {
        self.store = store
    }

    public var location: String { "the store \(store.path)" }

    public func lock(tokenURL: String, clientID: String) async throws -> any RefreshTokenLease {
        let key = "oauth2/\(tokenURL)#\(String(StoreLocking.stableHash(clientID), radix: 16))"
        return Lease(store: store, key: key, lock: try await store.lock(key))
    }

    struct Lease: RefreshTokenLease {
        let store: RecordStore
        let key: String
        let lock: StoreLock

        func storedToken() async throws -> String? {
            try await store.checkpoint(forKey: key)?.value
        }

        func keep(_ token: String) async throws {
            try await store.setCheckpoints([StoreCheckpoint(key: key, value: token)])
        }

        func release() async {
            await lock.release()
        }
    }
}
