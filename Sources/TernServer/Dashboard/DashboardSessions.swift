import Foundation
import TernCrypto

/// The dashboard's signed-in browsers: a random session id (the cookie) names the key that signed
/// in and the session's CSRF token. Kept in memory only: a restart signs everyone out.
actor DashboardSessions {
    /// One signed-in browser.
    struct Session: Sendable, Equatable {
        /// The key the browser signed in with; requests made with the session carry it.
        let key: String
        /// The key's id (what the logs name).
        let keyId: Int64
        /// The key's project, which the pages show alone; nil for a server key (every project).
        let projectId: Int64?
        /// The key's role: a `read` session gets no compose page.
        let role: KeyRole
        let csrfToken: String
        /// Milliseconds since 1970 after which the session is gone (idle or absolute, whichever first).
        var expiresAt: Int64
        let absoluteEnd: Int64
    }

    /// Sessions end after this long without a request...
    let idle: Int64
    /// ...and this long after sign-in, whatever happens.
    let lifetime: Int64
    let clock: @Sendable () -> Int64
    private var sessions: [String: Session] = [:]
    static let limit = 10_000

    /// `idle` and `lifetime` in milliseconds (30 minutes and 12 hours unless told).
    init(
        idle: Int64 = 30 * 60_000, lifetime: Int64 = 12 * 3_600_000,
        clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds
    ) {
        self.idle = idle
        self.lifetime = lifetime
        self.clock = clock
    }

    /// Starts a session for `key` (whose id, project and role are given); returns the cookie's value
    /// and the session.
    func create(key: String, keyId: Int64, projectId: Int64?, role: KeyRole) -> (id: String, session: Session) {
        let now = clock()
        if sessions.count >= Self.limit { sessions = sessions.filter { $0.value.expiresAt > now } }
        if sessions.count >= Self.limit, let oldest = sessions.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
            sessions[oldest.key] = nil
        }
        let id = Digest.randomHex(bytes: 32)
        let session = Session(
            key: key, keyId: keyId, projectId: projectId, role: role, csrfToken: Digest.randomHex(bytes: 32),
            expiresAt: min(now + idle, now + lifetime),
            absoluteEnd: now + lifetime)
        sessions[Self.slot(id)] = session
        return (id, session)
    }

    /// The live session for a cookie's value, its idle time restarted; nil when unknown or expired.
    func use(_ id: String) -> Session? {
        let slot = Self.slot(id)
        let now = clock()
        guard var session = sessions[slot] else { return nil }
        guard session.expiresAt > now else {
            sessions[slot] = nil
            return nil
        }
        session.expiresAt = min(now + idle, session.absoluteEnd)
        sessions[slot] = session
        return session
    }

    /// Signs a browser out.
    func remove(_ id: String) {
        sessions[Self.slot(id)] = nil
    }

    /// Sessions are kept under a digest of their id, so the table never holds a usable cookie.
    static func slot(_ id: String) -> String { Digest.sha256Hex(id) }
}
