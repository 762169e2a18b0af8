import Foundation

/// An OAuth access token, fetched once and shared by every request until it expires (FCM's and
/// HMS's tokens live an hour). Concurrent callers wait for one fetch; a token the provider
/// refused is dropped with ``invalidate(_:)`` so the next caller fetches a new one.
actor AccessTokenCache {
    struct Token: Sendable, Equatable {
        let value: String
        let expiresAt: Date
    }

    private let fetch: @Sendable () async throws -> Token
    private let clock: @Sendable () -> Date
    /// Seconds before the expiry when the token is no longer handed out.
    private let margin: TimeInterval
    private var current: Token?
    private var inFlight: Task<Token, any Error>?
    /// How many times a token was fetched (for tests and metrics).
    private(set) var fetches = 0

    init(
        margin: TimeInterval = 60, clock: @escaping @Sendable () -> Date = Date.init,
        fetch: @escaping @Sendable () async throws -> Token
    ) {
        self.fetch = fetch
        self.clock = clock
        self.margin = margin
    }

    /// The cached token while it is valid, otherwise a fresh one.
    func token() async throws -> String {
        if let current, current.expiresAt.timeIntervalSince(clock()) > margin { return current.value }
        if let inFlight { return try await inFlight.value.value }
        let task = Task { [fetch] in try await fetch() }
        inFlight = task
        fetches += 1
        defer { inFlight = nil }
        let token = try await task.value
        current = token
        return token.value
    }

    /// Forgets `value` if it is still the cached token (the provider said it expired or is unknown).
    func invalidate(_ value: String) {
        if current?.value == value { current = nil }
    }
}
