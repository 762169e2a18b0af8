import Foundation
import TernProtocol
import TernSQLite

/// Who a push reaches: the candidates of a fan-out or a test send, their tokens' state, and the
/// marks that a provider's answer leaves on an invalid token.
extension SQLTransaction {
    func markTokenInvalid(provider: PushProvider, token: String, reason: String, since: Int64?, now: Int64) throws
        -> Bool
    {
        if let since {
            let newest = try database.queryFirst(
                "SELECT MAX(updated_at) FROM subscriptions WHERE provider = ? AND token = ? AND channel = 'push'",
                [provider.rawValue, token])?.int(0)
            if let newest, newest > since { return false }
        }
        // The mark holds for the writes up to the provider's moment, or up to now without one. At
        // now, a registration written after the provider's moment that committed after the read
        // above (another connection's, on PostgreSQL, or a request of the same batch that began
        // before this one) was taken for the token before its death. A mark already later stays.
        let markedAt = min(since ?? now, now)
        try database.run(
            """
            INSERT INTO invalid_tokens (provider, token, reason, marked_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (provider, token) DO UPDATE SET reason = excluded.reason,
                marked_at = \(Self.larger("invalid_tokens.marked_at", "excluded.marked_at"))
            """, [provider.rawValue, token, reason, markedAt])
        // Audiences count only pushable subscriptions: the mark holds for every write up to it.
        try database.run(Self.unpushableUpToMark, [provider.rawValue, token, markedAt])
        // On PostgreSQL a write of another connection that the update above could not see yet (a
        // new subscription, or one subscribed again, whose own check could not see this mark) keeps
        // its `pushable`: the subscriptions are looked at again once every transaction running at
        // this one's commit has ended (`PostgresStore.recheckTokenMarks`). SQLite's one writer
        // orders the two.
        if Self.dialect == .postgres {
            try database.runBeforeNext(
                "INSERT INTO token_mark_rechecks (provider, token, marked_at) VALUES (?, ?, ?)",
                [provider.rawValue, token, markedAt])
        }
        return true
    }

    /// Sets `pushable` to 0 on the token's subscriptions written up to the mark. Binds: provider,
    /// token, the mark's time.
    static var unpushableUpToMark: String {
        "UPDATE subscriptions SET pushable = 0 WHERE provider = ? AND token = ? AND updated_at <= ? AND pushable = 1"
    }

    func pushStates(subscriptionIds: [Int64]) throws -> [Int64: PushState] {
        var states: [Int64: PushState] = [:]
        for ids in RowGroups(Array(Set(subscriptionIds))) {
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            for row in try database.query(
                """
                SELECT s.status, s.provider, s.token, s.updated_at, i.marked_at, i.reason, s.apns_environment, s.id
                FROM subscriptions s LEFT JOIN invalid_tokens i ON i.provider = s.provider AND i.token = s.token
                WHERE s.id IN (\(marks))
                """, Array(ids))
            {
                states[row.requiredInt(7)] = PushState(
                    status: SubscriptionStatus(rawValue: row.requiredString(0)) ?? .unsubscribed,
                    provider: try PushProvider.storedPush(row.requiredString(1)), token: row.requiredString(2),
                    updatedAt: row.requiredInt(3),
                    invalidMarkedAt: row.int(4), invalidReason: row.string(5),
                    apnsEnvironment: row.string(6).flatMap(APNsEnvironment.init(rawValue:)))
            }
        }
        return states
    }

    func invalidTokenMark(provider: PushProvider, token: String) throws -> (markedAt: Int64, reason: String)? {
        try database.queryFirst(
            "SELECT marked_at, reason FROM invalid_tokens WHERE provider = ? AND token = ?", [provider.rawValue, token]
        ).map { ($0.requiredInt(0), $0.requiredString(1)) }
    }
}

extension SQLTransaction {
    /// A candidate's columns: ``subscriptionColumns`` with only the details `reading` asks for (a
    /// `NULL` in place of the others, which a subscription reads as empty), then its token's
    /// invalid mark (column ``subscriptionColumnCount``).
    static func candidateColumns(_ reading: CandidateDetail) -> String {
        subscriptionColumns(reading)
            + ", (SELECT i.marked_at FROM invalid_tokens i WHERE i.provider = s.provider AND i.token = s.token)"
    }

    func pushCandidates(resourceId: Int64, after cursor: Int64, limit: Int, reading: CandidateDetail) throws
        -> [AudienceCandidate]
    {
        try database.query(Self.resourceCandidatesQuery(reading), [resourceId, cursor, limit]).map(Self.candidate)
    }

    /// A resource's fan-out chunk: its pushable subscriptions (the push rules `AudienceFilter`
    /// checks again, kept in the `pushable` column) after the cursor, by id, through
    /// `subscriptions_audience_keyset` (resource, pushable, id, …), as a segment's fan-out walks it.
    /// A chunk reads no subscription that the rules refuse, and every subscription's write keeps
    /// one index fewer than when this read a partial index of its own (`resourceFanOut` migration).
    static func resourceCandidatesQuery(_ reading: CandidateDetail) -> String {
        """
        SELECT \(candidateColumns(reading)) FROM subscriptions s
        WHERE s.resource_id = ? AND s.pushable = 1 AND s.id > ? ORDER BY s.id LIMIT ?
        """
    }

    func pushCandidates(profileId: Int64, reading: CandidateDetail) throws -> [AudienceCandidate] {
        try database.query(
            """
            SELECT \(Self.candidateColumns(reading)) FROM subscriptions s
            WHERE s.profile_id = ? AND s.channel = 'push' ORDER BY s.id
            """, [profileId]
        ).map(Self.candidate)
    }

    func pushCandidates(projectId: Int64, provider: PushProvider, token: String, reading: CandidateDetail) throws
        -> [AudienceCandidate]
    {
        try database.query(
            """
            SELECT \(Self.candidateColumns(reading)) FROM subscriptions s JOIN resources r ON r.id = s.resource_id
            WHERE s.provider = ? AND s.token = ? AND s.channel = 'push' AND r.project_id = ? ORDER BY s.id
            """, [provider.rawValue, token, projectId]
        ).map(Self.candidate)
    }

    func testPushCandidates(projectId: Int64, resourceId: Int64?, limit: Int) throws -> [AudienceCandidate] {
        // Two arms, each on its partial index (subscriptions_test, profiles_test); `is_test` bare
        // reads as true in both dialects (an INTEGER 0/1 in SQLite, a BOOLEAN in PostgreSQL).
        let inResource = resourceId == nil ? "" : " AND s.resource_id = ?"
        let resource: [any SQLiteBindable] = resourceId.map { [$0] } ?? []
        return try database.query(
            """
            SELECT \(Self.candidateColumns(.all)) FROM subscriptions s JOIN resources r ON r.id = s.resource_id
            WHERE s.is_test AND s.channel = 'push' AND r.project_id = ?\(inResource)
            UNION
            SELECT \(Self.candidateColumns(.all)) FROM subscriptions s JOIN profiles p ON p.id = s.profile_id
            JOIN resources r ON r.id = s.resource_id
            WHERE p.is_test AND s.channel = 'push' AND r.project_id = ?\(inResource)
            ORDER BY 1 LIMIT ?
            """, [projectId] + resource + [projectId] + resource + [limit]
        ).map(Self.candidate)
    }

    static func candidate(_ row: Connection.Row) throws -> AudienceCandidate {
        AudienceCandidate(subscription: try subscription(row), invalidMarkedAt: row.int(subscriptionColumnCount))
    }
}
