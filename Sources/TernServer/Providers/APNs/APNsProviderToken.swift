import Foundation
import TernCrypto

/// The provider authentication token (an ES256 JWT with `kid` in the header and `iss`, `iat` in
/// the claims) that every request to APNs carries. One per credential, shared by every worker:
/// APNs refuses tokens older than an hour and answers `TooManyProviderTokenUpdates` to tokens
/// renewed more often than every 20 minutes, so it is renewed after ``refreshAfter`` (20 to 60
/// minutes), or earlier only when APNs says `ExpiredProviderToken`.
actor APNsProviderToken {
    static let allowedAge: ClosedRange<TimeInterval> = 20 * 60...60 * 60

    private let key: JWTSigningKey
    private let keyId: String
    private let teamId: String
    private let clock: @Sendable () -> Date
    let refreshAfter: TimeInterval
    private var current: (token: String, issuedAt: Date)?
    /// How many tokens were signed so far.
    private(set) var issued = 0

    /// - Parameter refreshAfter: seconds before a new token is made; clamped to 20...60 minutes.
    init(
        key: JWTSigningKey, keyId: String, teamId: String, refreshAfter: TimeInterval = 40 * 60,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.key = key
        self.keyId = keyId
        self.teamId = teamId
        self.clock = clock
        self.refreshAfter = min(max(refreshAfter, Self.allowedAge.lowerBound), Self.allowedAge.upperBound)
    }

    /// The token to send now: the current one until it is `refreshAfter` old, then a new one.
    func token() throws -> String {
        let now = clock()
        if let current, now.timeIntervalSince(current.issuedAt) < refreshAfter, current.issuedAt <= now {
            return current.token
        }
        return try make(now)
    }

    /// APNs said `stale` expired: a new token, unless another request already replaced it.
    func renew(replacing stale: String) throws -> String {
        if let current, current.token != stale { return current.token }
        return try make(clock())
    }

    private func make(_ now: Date) throws -> String {
        let claims = Data("{\"iss\":\"\(teamId)\",\"iat\":\(Int(now.timeIntervalSince1970))}".utf8)
        let token = try JWT.sign(claims: claims, key: key, algorithm: .es256, header: ["kid": keyId])
        current = (token, now)
        issued += 1
        return token
    }
}
