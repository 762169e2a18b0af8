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
            #expect(plan == "SEARCH deliveries USING INDEX deliveries_message_page (message_id=? AND rowid>?)")
        }
    }

    /// PostgreSQL's generic plan, chosen on an empty table as on a new deployment.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func postgresGenericPlanReadsAPageThroughTheMessagesIndex() async throws {
        let connection = try PostgresConnection.genericPlanner(url: try await PostgresConnection.migratedSchema())
        try connection.prepare("page", PostgresTransaction.deliveriesPageQuery)
        let plan = try connection.plan("page", ["1", "0", "64"])
        #expect(plan.contains("Index Scan using deliveries_message_page"), "\(plan)")
        #expect(plan.contains("Index Cond: ((message_id = $1) AND (id > $2))"), "\(plan)")
        #expect(!plan.contains("Sort"), "\(plan)")
    }
}
