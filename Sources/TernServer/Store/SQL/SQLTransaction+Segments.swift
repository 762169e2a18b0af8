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
    /// the rows); a lone tag condition (``FilterSQL/tagRows(_:)``) counts the tag's rows in their
    /// index, which carry their subscription's resource and push rules; any other reads the rows'
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
        if let filter, let tag = FilterSQL.tagRows(filter) {
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

    /// Up to `limit` of the subscriptions the filter admits; the scan stops at the limit: a lone
    /// tag condition takes the first of the tag's own rows, any other filter walks the rows' index
    /// probing tags per subscription looked at (never listing every tagged subscription first).
    func audienceSample(_ scope: AudienceScope, filter: AudienceExpression?, now: Int64, limit: Int) throws
        -> [Subscription]
    {
        if let filter, let tag = FilterSQL.tagRows(filter) {
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

    func pushCandidates(
        _ scope: AudienceScope, filter: AudienceExpression?, now: Int64, after cursor: Int64, limit: Int
    )
        throws -> [AudienceCandidate]
    {
        let condition = audienceWhere(scope, filter, now: now, tags: .probe)
        // The chunk's ids first, from the covering indexes alone (sorted there), then their rows:
        // never a read of the rows of the matches after the chunk.
        return try database.queryOnce(
            """
            SELECT \(Self.subscriptionColumns) FROM subscriptions s
            WHERE s.id IN (SELECT s.id FROM subscriptions s WHERE \(condition.sql) AND s.id > ? ORDER BY s.id LIMIT ?)
            ORDER BY s.id
            """, condition.parameters + [cursor, limit]
        ).map { AudienceCandidate(subscription: try Self.subscription($0), invalidMarkedAt: nil) }
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
