import Foundation
import TernProtocol
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// A message's deliveries page (`GET /messages/{id}/deliveries`) reads that message's rows in id
/// order from the cursor on: no sort of all its deliveries per page, no walk past other messages'.
@Suite struct DeliveryPageTests {
    /// Two messages' deliveries, interleaved as two fan-outs running together write them.
    static func interleavedDeliveries(_ fixture: StoreFixture) async throws -> (first: Int64, second: Int64) {
        let (projectId, resourceId) = (fixture.project.id, fixture.resource.id)
        return try await fixture.store.write { tx in
            let first = try tx.insertMessage(
                StoreSuiteDeliveryTests.message(projectId: projectId, resourceId: resourceId, publicId: "m-1"))
            let second = try tx.insertMessage(
                StoreSuiteDeliveryTests.message(projectId: projectId, resourceId: resourceId, publicId: "m-2"))
            for chunk in 0..<10 {
                for message in [first, second] {
                    let targets = (0..<50).map {
                        DeliveryTarget(
                            subscriptionId: Int64(chunk * 50 + $0), provider: .apns, token: "t\(chunk)-\($0)")
                    }
                    _ = try tx.insertDeliveries(messageId: message.id, targets: targets, now: 1)
                }
            }
            return (first.id, second.id)
        }
    }

    @Test(arguments: StoreFactory.all)
    func pagesWalkOneMessagesDeliveriesInIdOrder(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (first, second) = try await Self.interleavedDeliveries(fixture)
        var seen: [Int64] = []
        var cursor: Int64 = 0
        while true {
            let after = cursor
            let page = try await fixture.store.read { try $0.deliveries(messageId: first, afterId: after, limit: 64) }
            guard let last = page.last else { break }
            seen += page.map(\.id)
            cursor = last.id
        }
        let other = try await fixture.store.read { try $0.deliveries(messageId: second, afterId: 0, limit: 1_000) }
        #expect(seen.count == 500 && other.count == 500)
        #expect(seen == seen.sorted() && Set(seen).isDisjoint(with: other.map(\.id)))
    }

    /// Before the index, SQLite read every delivery of the message and sorted them for each page
    /// (without statistics), or walked the table by id from the cursor past every later message's
    /// deliveries (with them).
    @Test func sqliteReadsAPageThroughTheMessagesIndexWithAndWithoutStatistics() async throws {
        let fixture = try await StoreFixture(.sqlite)
        defer { Task { await fixture.finish() } }
        _ = try await Self.interleavedDeliveries(fixture)
        let store = try #require(fixture.store as? SQLiteStore)
        @Sendable func plan() async throws -> String {
            try await store.read { tx in
                try #require(tx as? SQLiteTransaction).database
                    .query("EXPLAIN QUERY PLAN " + SQLiteTransaction.deliveriesPageQuery, [1, 0, 64])
                    .map { $0.string(3) ?? "" }.joined(separator: "; ")
            }
        }
        let unanalyzed = try await plan()
        try await store.write { tx in try #require(tx as? SQLiteTransaction).database.execute("ANALYZE") }
        let analyzed = try await plan()
        for plan in [unanalyzed, analyzed] {
            // The page by the message's index; each row's queue entry, last outcome and run of sent
            // first attempts by their keys.
            #expect(
                plan == "SEARCH d USING INDEX deliveries_message_page (message_id=? AND rowid>?); "
                    + "SEARCH q USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN; "
                    + "SEARCH o USING PRIMARY KEY (delivery_id=? AND attempt=?) LEFT-JOIN; "
                    + "CORRELATED SCALAR SUBQUERY 1; SEARCH delivery_outcomes USING PRIMARY KEY (delivery_id=?); "
                    + "SEARCH r USING PRIMARY KEY (message_id=? AND last_id=?) LEFT-JOIN; "
                    + "CORRELATED SCALAR SUBQUERY 2; "
                    + "SEARCH delivery_sent_runs USING PRIMARY KEY (message_id=? AND last_id>?)")
        }
    }

    /// PostgreSQL, on a table whose statistics have an old message's deliveries followed by many of
    /// later messages: the statement as the store runs it (planned for its values) reads a range of
    /// the key (message, id), bounded by the message. While the key was the id alone, the plain
    /// `message_id = ? AND id > ? ORDER BY id` walked it from the cursor through every later
    /// delivery on the old message's last page.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func postgresReadsAnOldMessagesLastPageThroughItsKey() async throws {
        let url = try await PostgresConnection.migratedSchema()
        try await offThePool {
            // Past the foreign key (no messages rows): message 1's 3,000 deliveries, then 6,000 of
            // messages 2 and 3 interleaved.
            try PostgresConnection(url: url).execute(
                """
                SET session_replication_role = replica;
                INSERT INTO deliveries (message_id, subscription_id, provider, token, created_at)
                    SELECT CASE WHEN n <= 3000 THEN 1 ELSE 2 + n % 2 END, n, 'ios-apns', 't' || n, 0
                    FROM generate_series(1, 9000) AS n;
                INSERT INTO delivery_outcomes (delivery_id, attempt, message_id, status, at)
                    SELECT id, 1, message_id, 'sent', 0 FROM deliveries WHERE message_id <> 1 OR id <= 2975;
                INSERT INTO delivery_sent_runs (message_id, last_id, first_id, at)
                    SELECT message_id, MAX(id), MIN(id), 0 FROM deliveries
                    WHERE message_id <> 1 OR id > 2975 GROUP BY message_id, id / 10;
                ANALYZE deliveries, delivery_outcomes, delivery_sent_runs
                """)
        }
        let connection = try PostgresConnection(url: url)
        let plan = try connection.queryOnce(
            "EXPLAIN " + PostgresConnection.numbered(PostgresTransaction.deliveriesPageQuery), [1, 2950, 1, 100]
        ).compactMap { $0.string(0) }.joined(separator: "\n")
        #expect(plan.contains("Index Scan using deliveries_pkey on deliveries d"), "\(plan)")
        #expect(plan.contains("AND (message_id <= '1'::bigint))") && !plan.contains("Sort"), "\(plan)")
        #expect(plan.contains("delivery_sent_runs_pkey") && !plan.contains("Seq Scan"), "\(plan)")
        let store = try PostgresStore(url: url, poolSize: 1)
        let page = try await store.read { try $0.deliveries(messageId: 1, afterId: 2950, limit: 100) }
        #expect(page.map(\.id) == Array(2951...3000))
        #expect(page.allSatisfy { $0.status == .sent && $0.attempts == 1 })
        await store.close()
    }
}
