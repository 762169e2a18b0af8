import Foundation
import Testing

@testable import TernServer

/// PostgreSQL's held statements: a batch's `SAVEPOINT` and `RELEASE` go in one round trip with the
/// next statement (libpq's pipeline mode), and one that fails is the batch's failure, never blamed
/// on the write that carried it.
@Suite(.enabled(if: PostgresTestDatabase.url != nil))
struct PostgresPipelineTests {
    /// The node's round trips so far, as `/metrics` shows them (`tern_db_round_trips_total`).
    static func roundTrips(_ store: PostgresStore) async throws -> Int {
        let line = try #require(
            await store.metricsText().split(separator: "\n").first { $0.hasPrefix("tern_db_round_trips_total ") })
        return try #require(Int(line.split(separator: " ")[1]))
    }

    @Test func heldStatementsGoWithTheNextOneInOrderInOneRoundTrip() throws {
        let stats = PostgresStats()
        let connection = try PostgresConnection(url: try PostgresTestDatabase.freshSchemaURL(), stats: stats)
        try connection.execute("BEGIN")
        _ = try connection.query("SELECT 1")  // prepared now, so the count below is the pipeline's
        let before = stats.roundTripCount
        connection.holdUntilNext("CREATE TEMPORARY TABLE held (x BIGINT)")
        connection.holdUntilNext("INSERT INTO held VALUES (1)")
        connection.holdUntilNext("INSERT INTO held VALUES (2)")
        let sum = try connection.queryFirst("SELECT CAST(SUM(x) AS BIGINT) FROM held WHERE x > ?", [0])
        #expect(sum?.int(0) == 3, "the held statements ran first, in order")
        // The new statement is prepared in the same pipeline, after what it reads is created.
        #expect(stats.roundTripCount - before == 1)
        let after = stats.roundTripCount
        connection.holdUntilNext("INSERT INTO held VALUES (4)")
        try connection.execute("DELETE FROM held WHERE x = 1")
        #expect(stats.roundTripCount - after == 1, "a statement without parameters carries them too")
        #expect(try connection.queryFirst("SELECT CAST(SUM(x) AS BIGINT) FROM held WHERE x > ?", [0])?.int(0) == 6)
        #expect(connection.takeHeldFailure() == nil)
        try connection.execute("ROLLBACK")
    }

    @Test func aHeldStatementThatFailsIsThrownByTheNextAndKeptForTheBatch() throws {
        let connection = try PostgresConnection(url: try PostgresTestDatabase.freshSchemaURL())
        try connection.execute("BEGIN")
        try connection.execute("CREATE TEMPORARY TABLE held (x BIGINT)")
        // A held statement that succeeds, then one that fails, then one that does not run.
        connection.holdUntilNext("INSERT INTO held VALUES (0)")
        connection.holdUntilNext("RELEASE no_such_savepoint")
        connection.holdUntilNext("INSERT INTO held VALUES (1)")
        #expect {
            try connection.run("INSERT INTO held VALUES (?)", [2])
        } throws: { error in
            (error as? PostgresError)?.sqlState == "3B001"
        }
        #expect(connection.takeHeldFailure()?.sqlState == "3B001", "kept once for the batch")
        #expect(connection.takeHeldFailure() == nil)
        try connection.execute("ROLLBACK")
        // The connection is usable after the rollback, and nothing held is left over.
        #expect(try connection.queryFirst("SELECT ?", [7])?.int(0) == 7)
    }

    /// A connection in a transaction with a table `answers` whose key `stored` has the value 7.
    static func transactionWithAStoredAnswer(stats: PostgresStats? = nil) throws -> PostgresConnection {
        let connection = try PostgresConnection(url: try PostgresTestDatabase.freshSchemaURL(), stats: stats)
        try connection.execute("BEGIN")
        try connection.execute("CREATE TEMPORARY TABLE answers (k TEXT PRIMARY KEY, v BIGINT)")
        try connection.execute("INSERT INTO answers VALUES ('stored', 7)")
        return connection
    }

    /// A read held for the next read (`readWithNextRead`: a write's idempotency key's lookup) goes
    /// with it in one round trip. When it answers no rows, the write goes on; when it answers rows,
    /// the read that carried it and every later statement throw until the rows are taken, so
    /// nothing runs but reads.
    @Test func aReadHeldForTheNextReadGoesWithItAndItsRowsStopTheWrite() throws {
        let stats = PostgresStats()
        let connection = try Self.transactionWithAStoredAnswer(stats: stats)
        let lookup = "SELECT v FROM answers WHERE k = ?"
        _ = try connection.query(lookup, ["warm"])
        _ = try connection.query("SELECT CAST(COUNT(*) AS BIGINT) FROM answers WHERE v > ?", [0])

        // No rows: the carrying read answers as usual, in the same round trip.
        var before = stats.roundTripCount
        try connection.readWithNextRead(lookup, ["new"])
        let count = try connection.queryFirst("SELECT CAST(COUNT(*) AS BIGINT) FROM answers WHERE v > ?", [0])
        #expect(count?.int(0) == 1)
        #expect(stats.roundTripCount - before == 1)
        #expect(try connection.takeReadAhead().isEmpty)
        try connection.run("INSERT INTO answers VALUES (?, ?)", ["new", 1])

        // Rows: the carrying read throws, and so do a write and a read after it, until taken.
        before = stats.roundTripCount
        try connection.readWithNextRead(lookup, ["stored"])
        #expect(throws: PostgresConnection.readAheadAnswered) {
            _ = try connection.query("SELECT CAST(COUNT(*) AS BIGINT) FROM answers WHERE v > ?", [0])
        }
        #expect(throws: PostgresConnection.readAheadAnswered) {
            try connection.run("INSERT INTO answers VALUES (?, ?)", ["late", 2])
        }
        #expect(throws: PostgresConnection.readAheadAnswered) { try connection.runBeforeNext(lookup, ["x"]) }
        #expect(stats.roundTripCount - before == 1, "nothing after the stop was sent")
        #expect(try connection.takeReadAhead().first?.int(0) == 7)
        #expect(try connection.queryFirst(lookup, ["late"]) == nil, "the write after the stop did not run")

        // A write first: the held read goes alone before it, and its rows stop the write unsent.
        try connection.readWithNextRead(lookup, ["stored"])
        #expect(throws: PostgresConnection.readAheadAnswered) {
            try connection.run("INSERT INTO answers VALUES (?, ?)", ["written", 3])
        }
        #expect(try connection.takeReadAhead().count == 1)
        #expect(try connection.queryFirst(lookup, ["written"]) == nil)

        // No statement at all: taking it sends it.
        try connection.readWithNextRead(lookup, ["stored"])
        #expect(try connection.takeReadAhead().first?.int(0) == 7)
        try connection.execute("ROLLBACK")
    }

    /// When the read that carried the held read fails, that failure is the write's: the held
    /// read's rows are dropped, so the write is not answered from them over its own error.
    @Test func aFailingCarrierIsTheWritesFailureAndDropsTheHeldReadsRows() throws {
        let connection = try Self.transactionWithAStoredAnswer()
        try connection.execute("SAVEPOINT tern_write")
        try connection.readWithNextRead("SELECT v FROM answers WHERE k = ?", ["stored"])
        #expect {
            _ = try connection.query("SELECT CAST(? AS BIGINT) / 0", [1])
        } throws: { error in
            (error as? PostgresError)?.sqlState == "22012"
        }
        #expect(try connection.takeReadAhead().isEmpty)
        try connection.execute("ROLLBACK TO tern_write")
        #expect(try connection.queryFirst("SELECT v FROM answers WHERE k = ?", ["stored"])?.int(0) == 7)
        try connection.execute("ROLLBACK")
    }

    /// A write's own held statement (`runBeforeNext`) that fails is thrown by that write's next
    /// statement and is that write's failure, not kept for the batch; held before a batch statement
    /// (its `RELEASE`), it is the batch's, as a held `RELEASE` is.
    @Test func aWritesOwnHeldStatementThatFailsIsItsNextStatementsErrorAndNotTheBatchs() throws {
        let connection = try PostgresConnection(url: try PostgresTestDatabase.freshSchemaURL())
        try connection.execute("BEGIN")
        try connection.execute("CREATE TEMPORARY TABLE held (x BIGINT PRIMARY KEY)")
        try connection.execute("SAVEPOINT tern_write")
        connection.holdUntilNext("INSERT INTO held VALUES (0)")
        try connection.runBeforeNext("INSERT INTO held VALUES (?)", [0])
        #expect {
            _ = try connection.query("SELECT x FROM held WHERE x > ?", [-1])
        } throws: { error in
            (error as? PostgresError)?.sqlState == "23505"
        }
        #expect(connection.takeHeldFailure() == nil, "the write's own: not kept for the batch")
        try connection.execute("ROLLBACK TO tern_write")

        try connection.runBeforeNext("INSERT INTO held VALUES (?)", [1])
        try connection.runBeforeNext("INSERT INTO held VALUES (?)", [1])
        connection.holdUntilNext("RELEASE tern_write")
        #expect(throws: PostgresError.self) { _ = try connection.query("SELECT ?", [2]) }
        #expect(connection.takeHeldFailure()?.sqlState == "23505", "before the RELEASE: the batch's")
        try connection.execute("ROLLBACK")
    }

    /// In a batch, a write whose held write fails (a profile field of a profile that does not exist)
    /// fails alone at its next statement: its batch-mates commit in the batch's run with savepoints
    /// (after the first run, without them, stopped at the failure), none of them alone.
    @Test func aWriteWhoseHeldWriteFailsFailsAloneAndItsBatchRunsOnce() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        await (try PostgresStore(url: url, poolSize: 1)).close()
        let backend = try PostgresBatching(slot: PostgresConnectionSlot(url: url), stats: PostgresStats())
        let first = GroupCommitTests.Probe { tx in _ = try tx.createProject(name: "first", audience: nil, now: 1) }
        let orphan = GroupCommitTests.Probe { tx in
            try tx.setProfileField(profileId: 987_654, name: "n", value: .string("v"))
            _ = try tx.profileFields(profileId: 987_654)
        }
        let last = GroupCommitTests.Probe { tx in _ = try tx.createProject(name: "last", audience: nil, now: 1) }
        GroupCommit.apply([first, orphan, last], on: backend)

        #expect(first.outcome == .succeeded && last.outcome == .succeeded)
        #expect(
            [first, orphan, last].map(\.runs) == [2, 2, 1],
            "up to the failure without savepoints, then each once with them: that run did not fail")
        guard case .failed(let reason) = orphan.outcome else {
            Issue.record("the orphan field's write was answered \(orphan.outcome)")
            return
        }
        #expect(reason.contains("conflict") || reason.contains("foreign"), "\(reason)")
        let names = try PostgresConnection(url: url).query("SELECT name FROM projects ORDER BY id").compactMap {
            $0.string(0)
        }
        #expect(names == ["first", "last"])
    }

    /// A batch of three writes of `k` statements each: `k` round trips a write (the batch's `BEGIN`
    /// rides along with the first, each write's `SAVEPOINT` and the one before's `RELEASE` with its
    /// own first), and `COMMIT` with the last `RELEASE`. Sent alone the savepoints took one round
    /// trip a write more, and `BEGIN` one a batch.
    @Test func aBatchOfWritesTakesTheWritesStatementsRoundTripsAndTwoMore() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        await (try PostgresStore(url: url, poolSize: 1)).close()
        let stats = PostgresStats()
        let slot = PostgresConnectionSlot(url: url, stats: stats)
        let backend = try PostgresBatching(slot: slot, stats: stats)
        let warmUp = (0..<2).map { index in
            GroupCommitTests.Probe { tx in _ = try tx.createProject(name: "warm-\(index)", audience: nil, now: 1) }
        }
        GroupCommit.apply(warmUp, on: backend)
        #expect(warmUp.allSatisfy { $0.outcome == .succeeded })

        // A write alone: its statements (BEGIN with the first), COMMIT.
        let alone = stats.roundTripCount
        let lone = GroupCommitTests.Probe { tx in _ = try tx.createProject(name: "alone", audience: nil, now: 1) }
        GroupCommit.apply([lone], on: backend)
        let statements = stats.roundTripCount - alone - 1
        #expect(statements == 2, "createProject: an insert and an update")
        let before = stats.roundTripCount
        let batch = (0..<3).map { index in
            GroupCommitTests.Probe { tx in _ = try tx.createProject(name: "app-\(index)", audience: nil, now: 2) }
        }
        GroupCommit.apply(batch, on: backend)
        #expect(batch.allSatisfy { $0.outcome == .succeeded })
        #expect(stats.roundTripCount - before == 3 * statements + 1)
        let names = try PostgresConnection(url: url).query("SELECT name FROM projects ORDER BY id").compactMap {
            $0.string(0)
        }
        #expect(names == ["warm-0", "warm-1", "alone", "app-0", "app-1", "app-2"])
    }

    /// A batch's `BEGIN` goes with its first statement, so a connection the server dropped while
    /// it was idle (a restart, an administrator) is found only there. The transaction never began,
    /// and the batch's writes run again on a new connection: none fails for it, none is applied
    /// twice. A write alone does the same.
    @Test func writesOnAConnectionTheServerDroppedRunAgainOnANewOne() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        await (try PostgresStore(url: url, poolSize: 1)).close()
        let slot = PostgresConnectionSlot(url: url)
        let admin = try PostgresConnection(url: url)
        func backendOfTheSlot() throws -> Int64 {
            let backend = try PostgresBatching(slot: slot, stats: PostgresStats())
            var pid: Int64 = 0
            let probe = GroupCommitTests.Probe { tx in
                let connection = try #require((tx as? PostgresTransaction)?.database)
                pid = try #require(
                    try connection.queryFirst("SELECT CAST(pg_backend_pid() AS BIGINT) + ?", [0])?.int(0))
            }
            GroupCommit.apply([probe], on: backend)
            #expect(probe.outcome == .succeeded)
            return pid
        }
        for (round, size) in [(0, 1), (1, 3)] {
            let dropped = try backendOfTheSlot()
            _ = try admin.query("SELECT pg_terminate_backend(CAST(? AS INTEGER))", [dropped])
            let writes = (0..<size).map { index in
                GroupCommitTests.Probe { tx in
                    _ = try tx.createProject(name: "r\(round)-\(index)", audience: nil, now: 1)
                }
            }
            GroupCommit.apply(writes, on: try PostgresBatching(slot: slot, stats: PostgresStats()))
            #expect(writes.allSatisfy { $0.outcome == .succeeded }, "\(writes.map(\.outcome))")
            #expect(try backendOfTheSlot() != dropped, "a new connection")
        }
        let names = try admin.query("SELECT name FROM projects ORDER BY id").compactMap { $0.string(0) }
        #expect(names == ["r0-0", "r1-0", "r1-1", "r1-2"])
    }

    /// A write that releases the batch's savepoint itself makes the next write's held `RELEASE`
    /// fail. That failure went with the next write's first statement, but it is the batch's: the
    /// batch is rolled back and each write runs again alone, where the good ones commit and the
    /// saboteur fails on its own.
    @Test func aHeldFailureRunsTheBatchAgainWriteByWriteInsteadOfFailingItsCarrier() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        await (try PostgresStore(url: url, poolSize: 1)).close()
        let backend = try PostgresBatching(slot: PostgresConnectionSlot(url: url), stats: PostgresStats())
        let first = GroupCommitTests.Probe { tx in _ = try tx.createProject(name: "first", audience: nil, now: 1) }
        let saboteur = GroupCommitTests.Probe { tx in
            let connection = try #require((tx as? PostgresTransaction)?.database)
            try connection.execute("RELEASE tern_write")
            _ = try tx.createProject(name: "saboteur", audience: nil, now: 1)
        }
        let carrier = GroupCommitTests.Probe { tx in _ = try tx.createProject(name: "carrier", audience: nil, now: 1) }
        GroupCommit.apply([first, saboteur, carrier], on: backend)

        #expect(first.outcome == .succeeded)
        #expect(carrier.outcome == .succeeded, "the held RELEASE's failure is not the carrier's")
        // first: the run without savepoints (stopped by the saboteur), the run with them, alone.
        #expect(carrier.runs == 2 && first.runs == 3, "the batch ran again write by write")
        guard case .failed = saboteur.outcome else {
            Issue.record("the saboteur was answered \(saboteur.outcome)")
            return
        }
        let names = try PostgresConnection(url: url).query("SELECT name FROM projects ORDER BY id").compactMap {
            $0.string(0)
        }
        #expect(names == ["first", "carrier"])
    }

    /// What the SDK's commonest writes cost in round trips on PostgreSQL, their statements prepared
    /// by a first call: the reads whose answers the write needs (`BEGIN` with the first), and
    /// `COMMIT`. The writes
    /// nobody reads a count of (the profile's fields, the subscription's update, the stored answer)
    /// go with the next statement, an rToken holder's profile comes with its subscription, and a
    /// profile the request made is not read back (its fields and statuses are known).
    @Test func aNewDevicesSubscribeAndATokenUpdateTakeTheRoundTripsOfTheirReadsOnly() async throws {
        // One connection: the warm-up's statements are prepared on the one the counted calls use.
        let server = try await InProcessServer(
            StoreFactory(name: "PostgreSQL, one connection") { _ in
                try PostgresStore(url: PostgresTestDatabase.freshSchemaURL(), poolSize: 1)
            })
        defer { Task { await server.finish() } }
        let store = try #require(server.store as? PostgresStore)
        // The fewest round trips of three calls: a call that met the refresh of the rToken's caller
        // (a read of its resource, project and database every five seconds, which a busy machine's
        // pauses can bring between two calls) costs five more.
        func fewestTrips(_ call: (Int) async throws -> Void) async throws -> Int {
            var fewest = Int.max
            for attempt in 0..<3 {
                let before = try await Self.roundTrips(store)
                try await call(attempt)
                fewest = min(fewest, try await Self.roundTrips(store) - before)
            }
            return fewest
        }
        func subscribe(_ token: String) async throws -> InProcessServer.Reply {
            try await server.sdk(
                .pushSubscribe,
                InProcessServer.subscription(token: token, extra: ["profile_fields": ["_fname": "Ada"]]),
                key: UUID().uuidString)
        }
        func update(_ token: String, version: String) async throws -> InProcessServer.Reply {
            try await server.sdk(
                .pushUpdate,
                [
                    "provider": "ios-apns", "old_subscription_id": token, "subscription_id": token,
                    "custom_fields": ["_app_version": version],
                ], key: UUID().uuidString)
        }
        _ = try await subscribe("token-warm")
        _ = try await update("token-warm", version: "1.0")

        // The stored answer's lookup with the token's holders (`unlessAnswered`) and the profile's
        // insert (its id is the fields' and the subscription's, whose inserts go with `COMMIT`, as
        // the stored answer's does); the resource's categories are kept from the warm-up's
        // subscribe (CategoryCache).
        var profiles: [String?] = []
        let subscribeTrips = try await fewestTrips { attempt in
            let subscribed = try await subscribe("token-new-\(attempt)")
            #expect(subscribed.status == 200)
            #expect(subscribed.profile?.status == "subscribed")
            #expect(subscribed.profile?.subscription?.subscriptionId == "token-new-\(attempt)")
            profiles.append(subscribed.profile?.id)
        }
        #expect(subscribeTrips == 1 + 2, "a new device's subscribe")

        // The stored answer's lookup with the holders and their profiles, the row's indexed
        // columns and the profile's statuses (the update's statement before it); the categories
        // are kept (CategoryCache).
        let updateTrips = try await fewestTrips { attempt in
            let updated = try await update("token-new-\(attempt)", version: "2.0")
            #expect(updated.status == 200)
            #expect(updated.profile?.id == profiles[attempt])
            #expect(updated.profile?.subscription?.fields?["_app_version"] == .string("2.0"))
        }
        #expect(updateTrips == 1 + 3, "an update of the token")
        let fields = try await store.read { tx in try tx.profileFields(profileId: 2) }
        #expect(fields["_fname"] == .string("Ada"), "the held insert of the fields was written")

        // A device's report of a delivery: the stored answer's lookup (alone: a write comes first)
        // and one insert that finds the delivery's recipient itself.
        let resourceId = server.bootstrap.resourceId
        let pushIds = try await store.write { tx in
            let subscriptions = try (0..<3).map { attempt in
                try #require(
                    try tx.subscriptions(
                        resourceId: resourceId, channel: .push, provider: .apns, token: "token-new-\(attempt)"
                    ).first)
            }
            let message = try tx.insertMessage(
                StoreSuiteDeliveryTests.message(projectId: 1, resourceId: resourceId, publicId: "m-trips"))
            _ = try tx.insertDeliveries(
                messageId: message.id, targets: StoreSuiteDeliveryTests.targets(subscriptions), now: 10)
            return try tx.deliveries(messageId: message.id, afterId: 0, limit: 3).map { "m-trips.\($0.id)" }
        }
        func report(_ pushId: String, _ type: String) async throws -> InProcessServer.Reply {
            try await server.sdk(
                .eventPush, ["events": [["message_id": pushId, "type": type, "time": 1]]], key: UUID().uuidString)
        }
        #expect(try await report(pushIds[0], "delivery").status == 200)
        let reportTrips = try await fewestTrips { attempt in
            let reply = try await report(pushIds[attempt], "open")
            #expect(reply.status == 200)
        }
        #expect(reportTrips == 1 + 2, "a device's report")
        let counted = try await store.read { tx in try tx.pushEvents(messageId: pushIds[0]) }.map(\.type)
        #expect(counted == [.delivery, .open])
    }

    /// `/metrics` counts the round trips of the node's connections: a write of one statement adds
    /// two alone (the statement, `BEGIN` with it, and `COMMIT`).
    @Test func theNodeCountsItsRoundTripsForMetrics() async throws {
        let store = try PostgresStore(url: try PostgresTestDatabase.freshSchemaURL(), poolSize: 1)
        // Its statement prepared on the connection first (a round trip of its own, once).
        _ = try await store.write { tx in try tx.project(id: 1) }
        let before = try await Self.roundTrips(store)
        #expect(before > 0)
        _ = try await store.write { tx in try tx.project(id: 1) }
        let after = try await Self.roundTrips(store)
        #expect(after - before == 2, "\(after - before) round trips")
        await store.close()
    }
}
