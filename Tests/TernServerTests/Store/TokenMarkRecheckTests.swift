import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// A token mark and a new subscription of that token written on two PostgreSQL connections at once
/// each miss the other; the store's later looks (`recheckTokenMarks`) take the subscription out of
/// its audience once no transaction that could have crossed the mark is still running.
@Suite(.enabled(if: PostgresTestDatabase.url != nil))
struct TokenMarkRecheckTests {
    @Test func aSubscriptionThatCrossedAMarkLeavesItsAudienceOnceNoEarlierTransactionRuns() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        let store = try PostgresStore(url: url, poolSize: 2)
        let (dbId, resourceId, profileId) = try await store.write { tx in
            let project = try tx.createProject(name: "app", audience: nil, now: 1)
            let database = try tx.createDatabase(projectId: project.id, name: "main", now: 1)
            let resource = try tx.createResource(
                projectId: project.id, dbId: database.id, name: "push", channels: [.push], rToken: "rt", now: 1)
            return (database.id, resource.id, try tx.createProfile(dbId: database.id, publicId: "p", now: 1).id)
        }
        let reader = try PostgresConnection(url: url)
        func counted() throws -> Int64? {
            try reader.queryFirst(
                "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM audience_counts WHERE resource_id = ?", [resourceId])?
                .int(0)
        }

        // A transaction with an id, running before either write and still running at the first look.
        let earlier = try PostgresConnection(url: url)
        try earlier.execute("BEGIN")
        _ = try earlier.query("SELECT txid_current()")

        // The device subscribes on one connection; before it commits, the provider's answer marks
        // its token on another, without a moment of its own (as FCM's and HMS's do).
        let device = try PostgresConnection(url: url)
        try device.execute("BEGIN")
        _ = try PostgresTransaction(database: device, writable: true, stats: PostgresStats()).insertSubscription(
            SubscriptionValues(
                profileId: profileId, resourceId: resourceId, channel: .push, provider: .firebase, token: "crossed",
                status: .subscribed, hashId: "h", clientTime: 1), now: 10)
        #expect(
            try await store.write {
                try $0.markTokenInvalid(
                    provider: .firebase, token: "crossed", reason: "UNREGISTERED", since: nil, now: 20)
            })
        try device.execute("COMMIT")
        #expect(try counted() == 1, "the mark's update missed the subscription, and its insert the mark")

        // The first look notes the horizon; the earlier transaction still runs, so it waits.
        await store.recheckTokenMarks()
        #expect(try counted() == 1)
        #expect(store.stats.tokenMarksRecheckedCount == 0)
        try earlier.execute("COMMIT")
        // Due now, unless another test's transaction on the cluster began before the horizon.
        let deadline = ContinuousClock.now + .seconds(20)
        while store.stats.tokenMarksRecheckedCount == 0, ContinuousClock.now < deadline {
            await store.recheckTokenMarks()
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try counted() == 0)
        #expect(store.stats.tokenMarksRecheckedCount == 1)
        #expect(await store.metricsText().contains("\ntern_db_token_marks_rechecked_total 1\n"))
        #expect(try reader.queryFirst("SELECT COUNT(*) FROM token_mark_rechecks")?.int(0) == 0)

        // The device writes again after the mark: counted again, and a later look leaves it.
        try await store.write { tx in
            let held = try #require(try tx.subscriptions(dbId: dbId, provider: .firebase, token: "crossed").first)
            var written = held
            written.updatedAt = 30
            try tx.updateSubscription(written, from: held)
        }
        #expect(try counted() == 1)
        await store.recheckTokenMarks()
        #expect(try counted() == 1)
        await store.close()
    }
}
