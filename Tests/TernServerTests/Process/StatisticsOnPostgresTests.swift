import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// A running `tern serve` on PostgreSQL keeps the tables' statistics up with their growth by itself:
/// the plans its connections keep for a small table would scan it whole once it is large, and
/// autovacuum analyzes a table only once a tenth of it changed, looking once a minute.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.url != nil)) struct StatisticsOnPostgresTests {
    @Test func theServerAnalyzesATableThatOutgrewItsStatisticsWithinSeconds() async throws {
        let database = try PostgresTestDatabase.freshSchemaURL()
        let server = try await ServerProcess.start(arguments: ["--database", database])
        defer { Task { await server.stop() } }
        // Autovacuum kept off the table, so that only the server analyzes it.
        let writer = try PostgresConnection(url: database)
        try writer.execute("ALTER TABLE profiles SET (autovacuum_enabled = false)")
        try writer.addProfiles(1...3_000)
        #expect(try writer.estimatedRows("profiles") == 0)
        // A request, so that the server's next look finds something ran since its last.
        let subscribed = try await JSONHTTPClient().post(
            server.url("push/subscribe"), json: ["time": 1, "provider": "ios-apns", "subscription_id": "t1"],
            headers: ["X-Tern-RToken": server.rToken])
        #expect(subscribed.status == 200, "\(subscribed.text)")
        let deadline = Date().addingTimeInterval(10)
        while try writer.estimatedRows("profiles") < 3_000, Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try writer.estimatedRows("profiles") >= 3_000, "the server looks every two seconds")
        let metrics = try await JSONHTTPClient().get(server.rootURL("/metrics")).text
        #expect(!metrics.contains("\ntern_db_tables_analyzed_total 0\n"), "\(metrics)")
        #expect(metrics.contains("\ntern_db_tables_analyzed_total "), "\(metrics)")
    }
}
