import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// What only the PostgreSQL backend has: its schema version shared by nodes, claims by several nodes
/// at once, and how it fails.
@Suite struct PostgresStoreTests {
    /// A project with its database and a push resource (rToken `rt`).
    static func pushResource(_ tx: any StoreTransaction) throws -> Resource {
        let project = try tx.createProject(name: "p", audience: nil, now: 1)
        let database = try tx.createDatabase(projectId: project.id, name: "main", now: 1)
        return try tx.createResource(
            projectId: project.id, dbId: database.id, name: "push", channels: [.push], rToken: "rt", now: 1)
    }

    @Test func postgresIsAvailableOrTheSkipIsSaid() {
        if PostgresTestDatabase.url == nil {
            if PostgresTestDatabase.required {
                Issue.record("CI must run the PostgreSQL store tests: TERN_TEST_POSTGRES_URL is not set")
            } else {
                print("PostgreSQL store tests skipped: TERN_TEST_POSTGRES_URL is not set (install postgresql)")
            }
        }
    }

    @Test func postgresHasEverySQLiteMigration() {
        #expect(PostgresMigrations.all.count >= SQLiteMigrations.all.count)
    }

    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func nodesStartingTogetherMigrateOnceAndANewerSchemaIsRefused() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<4 { group.addTask { try PostgresStore(url: url, poolSize: 1) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for store in stores {
            #expect(try await store.schemaVersion() == PostgresMigrations.all.count)
        }
        let newer = PostgresMigrations.all.count + 1
        let connection = try PostgresConnection(url: url)
        try connection.execute("UPDATE tern_schema SET version = \(newer)")
        let error = #expect(throws: StoreError.self) { try PostgresStore(url: url, poolSize: 1) }
        #expect(error?.description.contains("schema is at version \(newer), newer than this tern knows") == true)
        for store in stores { await store.close() }
    }

    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func wrongPasswordAndUnreachableServerSayWhy() throws {
        let url = try #require(PostgresTestDatabase.url)
        var wrong = try #require(URLComponents(string: url))
        wrong.password = "not-the-password"
        let badPassword = #expect(throws: StoreError.self) { try PostgresStore(url: wrong.string ?? "", poolSize: 1) }
        #expect(badPassword?.description.contains("password authentication failed") == true)
        #expect(badPassword?.description.contains("not-the-password") == false)
        wrong.password = nil
        wrong.port = 1
        let refused = #expect(throws: StoreError.self) { try PostgresStore(url: wrong.string ?? "", poolSize: 1) }
        #expect(refused?.description.contains("cannot connect to PostgreSQL") == true)
    }

    /// Two nodes claim from one outbox at the same time: every delivery goes to exactly one of them.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func claimsFromTwoNodesAtOnceNeverOverlap() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        let (first, second) = (try PostgresStore(url: url, poolSize: 4), try PostgresStore(url: url, poolSize: 4))
        let messageIds = try await first.write { tx in
            let resource = try Self.pushResource(tx)
            return try (0..<3).map { index in
                let message = try tx.insertMessage(
                    StoreSuiteDeliveryTests.message(
                        projectId: resource.projectId, resourceId: resource.id, publicId: "m\(index)"))
                let targets = (0..<400).map {
                    DeliveryTarget(subscriptionId: Int64($0), provider: .apns, token: "tok-\(index)-\($0)")
                }
                _ = try tx.insertDeliveries(messageId: message.id, targets: targets, now: 1)
                return message.id
            }
        }
        let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for store in [first, second, first, second] {
                group.addTask {
                    var mine: [Int64] = []
                    while true {
                        let batch = try await store.write {
                            try $0.claimDeliveries(limit: 50, now: 2, leaseUntil: 10_000)
                        }
                        if batch.isEmpty { break }
                        mine += batch.map(\.id)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(claimed.count == 1200)
        #expect(Set(claimed).count == 1200)
        for id in messageIds {
            #expect(try await second.read { try $0.deliveryCounts(messageId: id) } == [.sending: 400])
        }
        await first.close()
        await second.close()
    }
    /// A write of a batch waits at most `PostgresBatching.lockTimeout` for a row another
    /// transaction holds (then it runs again alone, as after a deadlock, which PostgreSQL would find
    /// only after a second), except for the bootstrap's lock, which another node may hold longer.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func batchesWaitForLocksBrieflyButTheBootstrapWaitsItOut() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        let store = try PostgresStore(url: url, poolSize: 1)
        let settings = try await store.write { tx in
            let transaction = try #require(tx as? PostgresTransaction)
            let batch = try transaction.database.queryFirst("SHOW lock_timeout")?.values.first ?? nil
            try transaction.lockForBootstrap()
            let bootstrap = try transaction.database.queryFirst("SHOW lock_timeout")?.values.first ?? nil
            return [batch, bootstrap]
        }
        #expect(settings == [PostgresBatching.lockTimeout, "0"])
        let later = try await store.read { tx in
            try (tx as? PostgresTransaction)?.database.queryFirst("SHOW lock_timeout")?.values.first ?? nil
        }
        #expect(later != PostgresBatching.lockTimeout, "SET LOCAL: only the batch's transaction")
        await store.close()
    }

    /// Two connections subscribe devices of the same audience group (app version, language,
    /// sessions) at once: the second's write does not wait for the first's open transaction, as it
    /// did when the group's count was one row (its lock held until the first batch committed),
    /// and the count is both.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func subscribesOfOneAudienceGroupDoNotWaitForEachOther() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        let (first, second) = (try PostgresStore(url: url, poolSize: 1), try PostgresStore(url: url, poolSize: 1))
        let (resource, profiles) = try await first.write { tx in
            let resource = try Self.pushResource(tx)
            let profiles = try (0..<2).map { try tx.createProfile(dbId: resource.dbId, publicId: "p\($0)", now: 1).id }
            return (resource, profiles)
        }
        @Sendable func subscribe(_ tx: any StoreTransaction, _ index: Int) throws {
            _ = try tx.insertSubscription(
                SubscriptionValues(
                    profileId: profiles[index], resourceId: resource.id, channel: .push, provider: .apns,
                    token: "t\(index)", status: .subscribed, hashId: "h\(index)", clientTime: 1), now: 2)
        }
        let subscribed = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let held = Task {
            try await first.write { tx in
                try subscribe(tx, 0)
                subscribed.signal()
                _ = release.wait(timeout: .now() + 10)  // the transaction stays open meanwhile
            }
        }
        try await offThePool { subscribed.wait() }
        try await second.write { tx in try subscribe(tx, 1) }
        release.signal()
        try await held.value
        let scope = AudienceScope(projectId: resource.projectId, resourceId: resource.id)
        #expect(try await second.read { try $0.audienceCount(scope, filter: nil, now: 3) } == 2)
        await first.close()
        await second.close()
    }

    /// A node's fan-out holds its message's row (`FOR UPDATE SKIP LOCKED`) while it writes a chunk
    /// and then makes the message due in the turns; a claim holds the turns while it takes that
    /// message's deliveries and moves its counts. The claim must not wait for the message's row
    /// (a foreign key from the counts did, and the two transactions deadlocked: a second each).
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aClaimDoesNotWaitForTheFanOutsLockOnItsMessage() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        // Written through other connections, so that the claim's connection counts the message first.
        let setup = try PostgresStore(url: url, poolSize: 1)
        let messageId = try await setup.write { tx in
            let resource = try Self.pushResource(tx)
            let message = try tx.insertMessage(
                StoreSuiteDeliveryTests.message(projectId: resource.projectId, resourceId: resource.id, publicId: "m"))
            let targets = (0..<10).map { DeliveryTarget(subscriptionId: Int64($0), provider: .apns, token: "t\($0)") }
            _ = try tx.insertDeliveries(messageId: message.id, targets: targets, now: 1)
            return message.id
        }
        await setup.close()
        let store = try PostgresStore(url: url, poolSize: 2)
        // The fan-out's transaction, on a connection of its own, holds the message's row.
        let fanOut = try PostgresConnection(url: url)
        try fanOut.execute("BEGIN")
        _ = try fanOut.query("SELECT id FROM messages WHERE id = ? FOR UPDATE SKIP LOCKED", [messageId])
        let claim = Task { try await store.write { try $0.claimDeliveries(limit: 5, now: 2, leaseUntil: 10_000) } }
        // The claim commits while the fan-out still holds the message (ten seconds at most for a busy
        // machine; it waited for the fan-out's commit when it did wait).
        let deadline = ContinuousClock.now + .seconds(10)
        while try await store.read({ try $0.deliveryCounts(messageId: messageId) })[.sending] == nil,
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(
            try await store.read { try $0.deliveryCounts(messageId: messageId) } == [.queued: 5, .sending: 5],
            "the claim committed while the fan-out held its message")
        // The fan-out goes on: its message is due again in the turns the claim held.
        try fanOut.run(
            "INSERT INTO delivery_turns (message_id, next_due, turn) VALUES (?, 1, 0) ON CONFLICT (message_id) DO NOTHING",
            [messageId])
        try fanOut.execute("COMMIT")
        #expect(try await claim.value.count == 5)
        await store.close()
    }

    /// Two writes on two connections locking two rows in opposite orders deadlock; PostgreSQL
    /// fails one of them, which then runs again once the other committed: both are answered with
    /// success, and the later one's values stand.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func writesThatDeadlockRunAgainAndBothSucceed() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        let store = try PostgresStore(url: url, poolSize: 2)
        let (first, second) = try await store.write { tx in
            let project = try tx.createProject(name: "p", audience: nil, now: 1)
            let database = try tx.createDatabase(projectId: project.id, name: "main", now: 1)
            let first = try tx.createProfile(dbId: database.id, publicId: "a", now: 1).id
            let second = try tx.createProfile(dbId: database.id, publicId: "b", now: 1).id
            for id in [first, second] { try tx.setPreferences(profileId: id, ["push": ["news": true]], now: 1) }
            return (first, second)
        }
        @Sendable func crossing(_ order: [Int64], _ on: Bool) async throws {
            try await store.write { tx in
                try tx.setPreferences(profileId: order[0], ["push": ["news": on]], now: 2)
                usleep(300_000)  // the other connection takes its first row meanwhile
                try tx.setPreferences(profileId: order[1], ["push": ["news": on]], now: 2)
            }
        }
        async let one: Void = crossing([first, second], false)
        async let other: Void = crossing([second, first], false)
        try await one
        try await other
        for id in [first, second] {
            #expect(try await store.read { try $0.preferences(profileId: id) } == ["push": ["news": false]])
        }
        await store.close()
    }

    /// Writes queued behind a busy connection share its next transaction, each under a savepoint:
    /// one that breaks a rule fails alone, its batch-mates commit.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func writesOnABusyConnectionAreGroupCommittedAndABadOneFailsAlone() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        let store = try PostgresStore(
            url: url, poolSize: 1, groupCommit: GroupCommitConfiguration(maxWrites: 64, maxWait: .milliseconds(5)))
        let projectId = try await store.write { try $0.createProject(name: "p", audience: nil, now: 1).id }
        _ = try await store.write { try $0.createPixel(projectId: projectId, sid: "taken", name: "first", now: 1) }
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let sid = index == 17 ? "taken" : "s\(index)"
                    let written = try? await store.write {
                        try $0.createPixel(projectId: projectId, sid: sid, name: "n", now: 2)
                    }
                    return written != nil
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 39)
        let pixels = try await store.read { try $0.pixels(projectId: projectId) }
        #expect(pixels.count == 40)
        #expect(Set(pixels.map(\.sid)).count == 40)
        await store.close()
    }
}
