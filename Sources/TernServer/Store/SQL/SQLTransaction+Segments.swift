import Foundation
import TernProtocol
import TernSQLite

extension SQLTransaction {
    private static var segmentColumns: String {
        "id, project_id, resource_id, name, filter, created_at, updated_at"
    }

    func insertSegment(_ segment: SegmentRecord) throws -> SegmentRecord {
        var stored = segment
        stored.id = try insert(
            """
            INSERT INTO segments (project_id, resource_id, name, filter, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [segment.projectId, segment.resourceId, segment.name, segment.filter, segment.createdAt, segment.updatedAt])
        return stored
    }

    func segment(id: Int64) throws -> SegmentRecord? {
        try database.queryFirst("SELECT \(Self.segmentColumns) FROM segments WHERE id = ?", [id]).map(Self.segment)
    }

    func segments(projectId: Int64?) throws -> [SegmentRecord] {
        if let projectId {
            return try database.query(
                "SELECT \(Self.segmentColumns) FROM segments WHERE project_id = ? ORDER BY name, id", [projectId]
            ).map(Self.segment)
        }
        return try database.query("SELECT \(Self.segmentColumns) FROM segments ORDER BY project_id, name, id", [])
            .map(Self.segment)
    }

    func updateSegment(_ segment: SegmentRecord) throws {
        try database.run(
            "UPDATE segments SET resource_id = ?, name = ?, filter = ?, updated_at = ? WHERE id = ?",
            [segment.resourceId, segment.name, segment.filter, segment.updatedAt, segment.id])
    }

    func deleteSegment(id: Int64) throws -> Bool {
        try database.run("DELETE FROM segments WHERE id = ?", [id]) > 0
    }

    private static func segment(_ row: Connection.Row) -> SegmentRecord {
        SegmentRecord(
            id: row.requiredInt(0), projectId: row.requiredInt(1), resourceId: row.int(2), name: row.requiredString(3),
            filter: row.requiredString(4), createdAt: row.requiredInt(5), updatedAt: row.requiredInt(6))
    }

    /// The push rules (`pushable`), the scope and the filter, as one condition on `subscriptions s`:
    /// with a filter on built-in fields, all of it is read from the `subscriptions_audience` indexes.
    private func audienceWhere(
        _ scope: AudienceScope, _ filter: AudienceExpression?, now: Int64, tags: FilterSQL.TagLookup
    ) -> FilterSQL {
        var (sql, parameters) = Self.scopeSQL(scope, table: "s")
        sql += " AND s.pushable = 1"
        if let filter {
            let compiled = FilterSQL.compile(filter, dialect: Self.dialect, now: now, tags: tags)
            sql += " AND " + compiled.sql
            parameters += compiled.parameters
        }
        return FilterSQL(sql: sql, parameters: parameters)
    }

    /// The scope's resources as a condition on `table.resource_id`.
    private static func scopeSQL(_ scope: AudienceScope, table: String) -> (String, [any SQLiteBindable]) {
        if let resourceId = scope.resourceId { return ("\(table).resource_id = ?", [resourceId]) }
        return ("\(table).resource_id IN (SELECT sr.id FROM resources sr WHERE sr.project_id = ?)", [scope.projectId])
    }

    /// How many pushable subscriptions of the scope the filter admits. A filter on grouped
    /// built-in fields only (``FilterSQL/countsByGroup(_:)``, or none) sums the matching groups of
    /// `audience_counts` (kept by triggers on every write of a subscription, so it is the count of
    /// the rows); a tag condition, alone or beside conditions on built-in fields
    /// (`FilterSQL.tagRows(_:dialect:now:)`), counts the tag's rows in their index, which carry
    /// their subscription's resource, push rules and built-in fields; any other reads the rows'
    /// index, with each tag's subscriptions listed once.
    func audienceCount(_ scope: AudienceScope, filter: AudienceExpression?, now: Int64) throws -> Int64 {
        if filter.map(FilterSQL.countsByGroup) ?? true {
            var (sql, parameters) = Self.scopeSQL(scope, table: "r")
            if let filter {
                let compiled = FilterSQL.compile(filter, dialect: Self.dialect, now: now, table: "r")
                sql += " AND " + compiled.sql
                parameters += compiled.parameters
            }
            return try database.queryOnce(
                "SELECT CAST(COALESCE(SUM(r.n), 0) AS BIGINT) FROM audience_counts r WHERE \(sql)", parameters
            ).first?.int(0) ?? 0
        }
        if let filter, let tag = FilterSQL.tagRows(filter, dialect: Self.dialect, now: now) {
            let (sql, parameters) = Self.scopeSQL(scope, table: "t")
            return try database.queryOnce(
                "SELECT COUNT(*) FROM subscription_tags t WHERE \(tag.sql) AND \(sql) AND t.pushable = 1",
                tag.parameters + parameters
            ).first?.int(0) ?? 0
        }
        let condition = audienceWhere(scope, filter, now: now, tags: .list)
        return try database.queryOnce(
            "SELECT COUNT(*) FROM subscriptions s WHERE \(condition.sql)", condition.parameters
        )
        .first?.int(0) ?? 0
    }

    /// Up to `limit` of the subscriptions the filter admits; the scan stops at the limit: a tag
    /// condition (alone or beside built-in fields) takes the first of the tag's own rows that
    /// match, any other filter walks the rows' index
    /// probing tags per subscription looked at (never listing every tagged subscription first).
    func audienceSample(_ scope: AudienceScope, filter: AudienceExpression?, now: Int64, limit: Int) throws
        -> [Subscription]
    {
        if let filter, let tag = FilterSQL.tagRows(filter, dialect: Self.dialect, now: now) {
            let (sql, parameters) = Self.scopeSQL(scope, table: "t")
            return try database.queryOnce(
                """
                SELECT \(Self.subscriptionColumns) FROM subscriptions s WHERE s.id IN (SELECT t.subscription_id
                    FROM subscription_tags t WHERE \(tag.sql) AND \(sql) AND t.pushable = 1 LIMIT ?)
                """, tag.parameters + parameters + [limit]
            ).map(Self.subscription)
        }
        let condition = audienceWhere(scope, filter, now: now, tags: .probe)
        return try database.queryOnce(
            """
            SELECT \(Self.subscriptionColumns) FROM subscriptions s
            WHERE s.id IN (SELECT s.id FROM subscriptions s WHERE \(condition.sql) LIMIT ?)
            """,
            condition.parameters + [limit]
        ).map(Self.subscription)
    }

    /// The next chunk in id order, with keyset pagination: each resource's arm walks
    /// `subscriptions_audience_keyset` (its pushable subscriptions by id, with their built-in
    /// fields) from the cursor and stops at the chunk's size, so a fan-out reads each entry of the
    /// resource once in all, whatever the segment's size, instead of reading and sorting the
    /// segment's whole slice for each chunk. A project's resources are merged by id.
    func pushCandidates(
        _ scope: AudienceScope, filter: AudienceExpression?, now: Int64, after cursor: Int64, limit: Int,
        reading: CandidateDetail
    )
        throws -> [AudienceCandidate]
    {
        let resources =
            if let resourceId = scope.resourceId {
                [resourceId]
            } else {
                try database.query("SELECT id FROM resources WHERE project_id = ? ORDER BY id", [scope.projectId])
                    .map { $0.requiredInt(0) }
            }
        guard !resources.isEmpty else { return [] }
        var arms: [String] = []
        var parameters: [any SQLiteBindable] = []
        for resourceId in resources {
            let condition = audienceWhere(
                AudienceScope(projectId: scope.projectId, resourceId: resourceId), filter, now: now, tags: .probe)
            arms.append(
                "SELECT a.id FROM (SELECT s.id FROM subscriptions s WHERE \(condition.sql) AND s.id > ? "
                    + "ORDER BY s.id LIMIT ?) a")
            parameters += condition.parameters + [cursor, limit]
        }
        // The chunk's ids first, from the covering index alone, then their rows: never a read of
        // the rows of the matches after the chunk.
        let ids = arms.count == 1 ? arms[0] : arms.joined(separator: " UNION ALL ") + " ORDER BY 1 LIMIT ?"
        if arms.count > 1 { parameters.append(limit) }
        return try database.queryOnce(
            "SELECT \(Self.subscriptionColumns(reading)) FROM subscriptions s WHERE s.id IN (\(ids)) ORDER BY s.id",
            parameters
        ).map { AudienceCandidate(subscription: try Self.subscription($0), invalidMarkedAt: nil) }
    }

    func keepAudienceLists(messageId: Int64, filter: AudienceExpression, now: Int64) throws {
        for list in EngagementLists(filter, sending: messageId, now: now).lists {
            // The casts type the two values on PostgreSQL, where a parameter in a select list is text.
            try database.run(
                """
                INSERT INTO audience_lists (message_id, list, profile_id)
                SELECT DISTINCT CAST(? AS BIGINT), CAST(? AS BIGINT), l.profile_id FROM (\(list.profiles.sql)) l
                WHERE l.profile_id IS NOT NULL
                ON CONFLICT DO NOTHING
                """, [messageId, Int64(list.number)] + list.profiles.parameters)
        }
    }

    func forgetAudienceLists(messageId: Int64) throws {
        try database.run("DELETE FROM audience_lists WHERE message_id = ?", [messageId])
    }

    func setSubscriptionFields(id: Int64, fields: [String: JSONValue]) throws {
        try database.run(
            """
            UPDATE subscriptions SET fields = ?, app_version_key = ?, language = ?, first_session = ?,
                last_session = ?, session_count = ?, foreground_time = ?
            WHERE id = ?
            """, [Self.json(fields)] + BuiltInColumns(fields).values + [id])
    }
}
