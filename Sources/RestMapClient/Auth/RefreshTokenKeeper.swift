/// Where a client keeps the latest OAuth 2.0 refresh token (grant `refreshToken`), and the lock
/// under which it reads that token, asks the token endpoint and keeps the rotated one: processes
/// sharing a keeper take turns, so none sends a token another one already spent.
///
/// The schema's `tokenStore` file is a keeper for the processes of one machine.
/// `ClientConfiguration.refreshTokenKeeper` replaces it, for instance by a store's
/// (`StoreTokenKeeper` in RestMapSync) shared by machines writing one PostgreSQL database.
public protocol RefreshTokenKeeper: Sendable {
    /// Where the token is kept, for messages (never the token itself).
    var location: String { get }

    /// Takes the keeper's lock for one client, waiting while another holder has it.
    /// - Parameters:
    ///   - tokenURL: the absolute token endpoint.
    ///   - clientID: the client identifier, which may be confidential: a key of the token, never printed.
    func lock(tokenURL: String, clientID: String) async throws -> any RefreshTokenLease
}

/// A keeper's lock, held: the kept token can be read and replaced until `release()`.
public protocol RefreshTokenLease: Sendable {
    /// The kept refresh token; `nil` when none is kept yet.
    func storedToken() async throws -> String?
    /// Keeps a rotated refresh token, durably, before it returns.
    func keep(_ token: String) async throws
    /// Gives the lock up.
    func release() async
}
