import Foundation
import TernProtocol
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// What a new device's subscribe writes to the indexes: no index of its own for a token's
/// subscriptions on a resource (the token index answers that lookup), and profile ids that sort by
/// creation time, so that new profiles fill the last leaf of the `public_id` index.
@Suite struct WriteIndexTests {
    @Test func aTokensSubscriptionsOnAResourceAreReadThroughTheTokenIndex() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let store = try #require(server.store as? SQLiteStore)
        let plans = try await store.read { tx in
            let database = try #require(tx as? SQLiteTransaction).database
            return try [
                (SQLiteTransaction.tokenOnResourceQuery, [1, "p", "t"] as [any SQLiteBindable]),
                (SQLiteTransaction.tokenInDatabaseQuery, ["p", "t", 1]),
            ].map { query, parameters in
                try database.query("EXPLAIN QUERY PLAN " + query, parameters)
                    .map { $0.string(3) ?? "" }.joined(separator: "; ")
            }
        }
        for plan in plans {
            // Not subscriptions_push_by_resource: that walks every push subscription of the resource.
            #expect(plan.contains("USING INDEX subscriptions_token (provider=? AND token=?)"), "\(plan)")
        }
        let indexes = try await store.read { tx in
            try #require(tx as? SQLiteTransaction).database
                .query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'subscriptions'")
                .compactMap { $0.string(0) }
        }
        #expect(!indexes.contains("subscriptions_address"))
    }

    /// A resource's fan-out walks its pushable subscriptions by id in the segments' keyset index;
    /// the partial index it once read is gone, so a subscription's write keeps one index fewer.
    @Test func aResourcesFanOutWalksTheKeysetIndexAndItsOldIndexIsGone() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let store = try #require(server.store as? SQLiteStore)
        let (plan, indexes) = try await store.read { tx in
            let database = try #require(tx as? SQLiteTransaction).database
            let plan = try database.query(
                "EXPLAIN QUERY PLAN " + SQLiteTransaction.resourceCandidatesQuery(.all), [1, 0, 1000]
            ).map { $0.string(3) ?? "" }.joined(separator: "; ")
            let indexes = try database.query(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'subscriptions'"
            ).compactMap { $0.string(0) }
            return (plan, indexes)
        }
        #expect(
            plan.contains("USING INDEX subscriptions_audience_keyset (resource_id=? AND pushable=? AND id>?)"),
            "\(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
        #expect(!indexes.contains("subscriptions_push_by_resource"))
    }

    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aResourcesFanOutsGenericPlanOnAnEmptyPostgresWalksTheKeysetIndex() async throws {
        let connection = try PostgresConnection(url: try await PostgresConnection.migratedSchema())
        try connection.prepare("resource_candidates", SQLiteTransaction.resourceCandidatesQuery(.all))
        let plan = try connection.plan("resource_candidates", ["1", "0", "1000"])
        #expect(plan.contains("Index Scan using subscriptions_audience_keyset"), "\(plan)")
        #expect(!plan.contains("Sort") && !plan.contains("Seq Scan on subscriptions"), "\(plan)")
        let indexes = try connection.query(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'subscriptions'"
        )
        .compactMap { $0.string(0) }
        #expect(!indexes.isEmpty && !indexes.contains("subscriptions_push_by_resource"))
    }

    /// On PostgreSQL no new profile, subscription or push event locks the one row its project's
    /// database or its app's resource is (`PostgresMigrations.sharedParents`); the keys to the
    /// rows a device's own writes make (its profile) stay.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func postgresWritesOfEveryDeviceLockNoSharedParentRow() async throws {
        let connection = try PostgresConnection(url: try await PostgresConnection.migratedSchema())
        let keys = try connection.query(
            """
            SELECT conname FROM pg_constraint
            WHERE contype = 'f' AND connamespace = CAST(current_schema() AS regnamespace)
            """
        ).compactMap { $0.string(0) }
        for gone in ["profiles_db_id_fkey", "subscriptions_resource_id_fkey", "push_events_resource_id_fkey"] {
            #expect(!keys.contains(gone), "\(gone)")
        }
        for kept in ["subscriptions_profile_id_fkey", "push_events_profile_id_fkey", "profile_fields_profile_id_fkey"] {
            #expect(keys.contains(kept), "\(kept)")
        }
    }

    /// A device's update on PostgreSQL is one statement, without reading the row first, that
    /// writes the row once: an update whose indexed columns keep their values (custom fields,
    /// categories) adds no index entry (a HOT update), while one that unsubscribes (`pushable`)
    /// or moves the token adds them. Counted by the connection's statistics not yet reported
    /// (`pg_stat_xact_user_tables`), read before the update and with it.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aDevicesUpdateThatKeepsItsIndexedValuesAddsNoIndexEntryOnPostgres() async throws {
        let fixture = try await StoreFixture(.postgres)
        defer { Task { await fixture.finish() } }
        let stored = try #require(try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 1).first)
        func update(_ change: @escaping @Sendable (inout Subscription) -> Void) async throws -> [Int64] {
            try await fixture.store.write { tx in
                var subscription = stored
                change(&subscription)
                let connection = try #require(tx as? PostgresTransaction).database
                func counts() throws -> [Int64] {
                    let row = try #require(
                        try connection.queryFirst(
                            """
                            SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables
                            WHERE relname = 'subscriptions' AND schemaname = current_schema()
                            """))
                    return [row.int(0) ?? -1, row.int(1) ?? -1]
                }
                let before = try counts()
                try tx.updateSubscription(subscription, from: stored)
                let after = try counts()
                return [after[0] - before[0], after[1] - before[1]]
            }
        }
        #expect(try await update { $0.fields = ["plan": .string("pro")] } == [1, 1], "custom fields: HOT")
        #expect(
            try await update {
                $0.cats = ["news": false]
                $0.clientTime = 5
            } == [1, 1], "categories and the device's time: HOT")
        #expect(
            try await update { $0.status = .unsubscribed } == [1, 0],
            "unsubscribed: pushable is in the audience indexes")
        #expect(try await update { $0.token = "t-moved" } == [1, 0], "a new token: new index entries")
        let candidates = try await fixture.store.read {
            try $0.pushCandidates(resourceId: fixture.resource.id, after: 0, limit: 10, reading: .all)
        }
        #expect(candidates.map(\.subscription.token) == ["t-moved"], "the last update's token, pushable")
    }

    /// What PostgreSQL reads from an update's `SET` list: which indexes it leaves logically
    /// unchanged, whose entries for old versions it then clears before splitting a page. A device's
    /// new app version adds an entry to every index (the audience indexes change), and a write
    /// that names the token only when it differs from the caller's read (`from:`) keeps the token
    /// index at its size, where one that names it every time grows it with every version
    /// (autovacuum off, so only that clearing clears).
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func anUpdateThatNamesOnlyWhatItChangesKeepsPostgresIndexesFromGrowing() async throws {
        func tokenIndexPages(naming: Bool) async throws -> Int64 {
            let fixture = try await StoreFixture(.postgres)
            defer { Task { await fixture.finish() } }
            let subscriptions = try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 40)
            func size() async throws -> Int64 {
                try await fixture.store.write { tx in
                    let connection = try #require(tx as? PostgresTransaction).database
                    try connection.run("ALTER TABLE subscriptions SET (autovacuum_enabled = false)")
                    return try connection.queryFirst("SELECT pg_relation_size('subscriptions_token') / 8192")?
                        .int(0) ?? -1
                }
            }
            let before = try await size()
            for version in 1...150 {
                try await fixture.store.write { tx in
                    for read in subscriptions {
                        var changed = read
                        changed.fields = [BuiltInField.appVersion.key: .string("1.\(version)")]
                        try tx.updateSubscription(changed, from: naming ? nil : read)
                    }
                }
            }
            return try await size() - before
        }
        // Old versions are cleared only once no transaction can see them: another test's
        // transaction open meanwhile (they share the cluster: a bulk insert of a few hundred
        // milliseconds) keeps them, and the index grows a page or two. Measured again then, up
        // to three times; a write that names the token every time grows it by dozens each time.
        var kept = Int64.max
        for _ in 0..<3 where kept > 1 { kept = try await tokenIndexPages(naming: false) }
        let grown = try await tokenIndexPages(naming: true)
        #expect(kept <= 1, "pages the token index grew by, not named (150 versions of 40 rows)")
        #expect(grown > kept + 4, "pages the token index grew by, named every time (\(kept) not named)")
    }

    /// PostgreSQL chooses a prepared statement's generic plan after a few calls and keeps it on that
    /// connection: on a new deployment, while the tables are empty. The token lookups' plans, chosen
    /// then, must still read the token index, not walk a resource's or a table's subscriptions.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func theTokenLookupsGenericPlansOnAnEmptyPostgresReadTheTokenIndex() async throws {
        let connection = try PostgresConnection(url: try await PostgresConnection.migratedSchema())
        for (name, query, arguments) in [
            ("on_resource", SQLiteTransaction.tokenOnResourceQuery, ["1", "'p'", "'t'"]),
            ("in_database", SQLiteTransaction.tokenInDatabaseQuery, ["'p'", "'t'", "1"]),
        ] {
            try connection.prepare(name, query)
            let plan = try connection.plan(name, arguments)
            #expect(plan.contains("Index Scan using subscriptions_token"), "\(name): \(plan)")
            #expect(plan.contains("Index Cond: ((provider = $"), "\(name): \(plan)")
            #expect(!plan.contains("subscriptions_push_by_resource"), "\(name): \(plan)")
        }
    }

    /// A connection keeps running the token lookup's generic plan while the tables' statistics arrive
    /// one table at a time, as they do when the store or autovacuum analyzes a growing deployment's
    /// tables one after the other. Left to PostgreSQL's choice, the generic plan made between the
    /// two analyses (`profiles` known, `subscriptions` not: dozens of subscriptions guessed for the
    /// profile, which the statement's subquery reads) looked dearer than the custom plans so far,
    /// and the connection planned the lookup for each call's values from then on, long after both
    /// tables had statistics.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aConnectionKeepsTheTokenLookupsGenericPlanWhileStatisticsArriveOneTableAtATime() async throws {
        let url = try await PostgresConnection.migratedSchema()
        let writer = try PostgresConnection(url: url)
        // Only this test analyzes the tables.
        try writer.execute("ALTER TABLE profiles SET (autovacuum_enabled = false)")
        try writer.execute("ALTER TABLE subscriptions SET (autovacuum_enabled = false)")
        let connection = try PostgresConnection(url: url)  // as the store opens its connections
        func lookUp(_ token: String) throws {
            _ = try connection.query(SQLiteTransaction.tokenOnResourceQuery, [Int64(1), "ios-apns", token])
        }
        for call in 0..<6 { try lookUp("new-\(call)") }
        try await offThePool {
            let filler = try PostgresConnection(url: url)
            try filler.addProfiles(1...10_000)
            try filler.execute(
                """
                SET session_replication_role = replica;
                INSERT INTO subscriptions (profile_id, resource_id, channel, provider, token, status, hash_id,
                    fields, cats, client_time, created_at, updated_at)
                    SELECT n, 1, 'push', 'ios-apns', 't' || n, 'subscribed', 'h' || n, '{}', '{}', 0, 0, 0
                    FROM generate_series(1, 10000) AS n;
                ANALYZE profiles
                """)
        }
        try lookUp("between")
        try writer.execute("ANALYZE subscriptions")
        for call in 0..<20 { try lookUp("t\(call + 1)") }
        let counts = try #require(
            try connection.queryFirst(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE ?",
                ["%+s.resource_id = $1%"]))
        #expect(counts.int(0) == 27 && counts.int(1) == 0, "generic, custom: \(counts.values)")
    }

    /// A statement run once (an audience filter, a deliveries page) is planned for its values, and
    /// the prepared statements of its transaction after it keep their generic plans, as they do
    /// once the transaction ends: committed, rolled back, or rolled back to a savepoint after the
    /// statement failed.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aStatementRunOnceIsPlannedForItsValuesAndTheRestGenerically() async throws {
        let connection = try PostgresConnection(url: try await PostgresConnection.migratedSchema())
        func mode(once: Bool) throws -> String? {
            let setting = "SELECT current_setting('plan_cache_mode')"
            return try (once ? connection.queryOnce(setting) : connection.query(setting)).first?.string(0)
        }
        #expect(try mode(once: false) == "force_generic_plan")
        for end in ["COMMIT", "ROLLBACK"] {
            try connection.execute("BEGIN")
            #expect(try mode(once: true) == "force_custom_plan")
            #expect(try mode(once: false) == "force_generic_plan")
            #expect(try mode(once: true) == "force_custom_plan")
            try connection.execute(end)
            #expect(try mode(once: false) == "force_generic_plan", "after \(end)")
        }
        try connection.execute("BEGIN")
        try connection.execute("SAVEPOINT tern_write")
        #expect(throws: PostgresError.self) { try connection.queryOnce("SELECT CAST(? AS BIGINT)", ["not a number"]) }
        try connection.execute("ROLLBACK TO tern_write")
        #expect(try mode(once: false) == "force_generic_plan")
        try connection.execute("COMMIT")
    }

    /// The delivery engine's final outcomes, planned generically on an empty queue (as a node that
    /// started before the first campaign plans it): each delivery's queue entry is found by its id.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func theOutcomesGenericPlanOnAnEmptyPostgresFindsEachQueueEntryByItsId() async throws {
        let connection = try PostgresConnection(url: try await PostgresConnection.migratedSchema())
        try connection.prepare("outcomes", PostgresTransaction.leaveQueueSQL(rows: 2))
        let plan = try connection.plan("outcomes", Self.outcomeArguments(rows: 2))
        #expect(plan.contains("Index Scan using delivery_queue_pkey"), "\(plan)")
        #expect(!plan.contains("Seq Scan on delivery_queue"), "\(plan)")
    }

    /// A plan kept from an empty queue may read the whole queue for each 64 outcomes, until it is
    /// analyzed (the kept plan's scan after the rows arrive is not checked here: tests running
    /// migrations beside it can make PostgreSQL drop every plan). Once the fan-outs have written
    /// `deliveriesPerRefresh` deliveries, the store analyzes the tables that outgrew their statistics
    /// (the deliveries and their queue), and a connection's kept plan finds each entry by its key.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func theFanOutsGrowthMakesPostgresPlanTheOutcomesAgain() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        let store = try PostgresStore(url: url, poolSize: 1)
        // Autovacuum kept off the tables, so that only the store analyzes them (before any plan: the
        // change itself makes connections plan again).
        let writer = try PostgresConnection(url: url)
        try writer.execute("ALTER TABLE deliveries SET (autovacuum_enabled = false)")
        try writer.execute("ALTER TABLE delivery_queue SET (autovacuum_enabled = false)")
        let connection = try PostgresConnection(url: url)
        try connection.prepare("outcomes", PostgresTransaction.leaveQueueSQL(rows: 64))
        func plan() throws -> String { try connection.plan("outcomes", Self.outcomeArguments(rows: 64)) }
        _ = try plan()
        // 30,000 queued deliveries of one message, written past the foreign key, on a connection of
        // their own (changing session_replication_role drops a connection's plans) and off Swift's
        // cooperative pool (the insert blocks for a while).
        try await offThePool {
            try PostgresConnection(url: url).execute(
                """
                SELECT pg_stat_force_next_flush();
                SET session_replication_role = replica;
                INSERT INTO deliveries (message_id, subscription_id, provider, token, created_at)
                    SELECT 1, n, 'ios-apns', 't' || n, 0 FROM generate_series(1, 30000) AS n;
                INSERT INTO delivery_queue (delivery_id, message_id, status, attempts, due_at, updated_at)
                    SELECT id, 1, 'sending', 1, 0, 0 FROM deliveries
                """)
        }
        // The table's size as PostgreSQL's statistics know it: only an analysis changes it here.
        #expect(try writer.estimatedRows("deliveries") == 0)
        await store.deliveriesWritten(5_000)
        #expect(store.stats.tablesAnalyzedCount == 0)
        await store.deliveriesWritten(25_000)
        #expect(store.stats.tablesAnalyzedCount == 2)
        #expect(try writer.estimatedRows("deliveries") > 25_000)
        #expect(try writer.estimatedRows("delivery_queue") > 25_000)
        let analyzed = try plan()
        #expect(analyzed.contains("Index Scan using delivery_queue_pkey"), "\(analyzed)")
        #expect(!analyzed.contains("Seq Scan on delivery_queue"), "\(analyzed)")
        await store.close()
    }

    /// A table analyzed while small is analyzed again once it holds more than twice as many rows,
    /// and connections plan their statements on it for its size: autovacuum's analysis of `profiles`
    /// at 200 rows left every subscribe's foreign key check (the statement planned here) reading the
    /// whole growing table. A table that has not doubled since is left alone.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aTableThatOutgrewItsStatisticsIsAnalyzedAndItsLookupsPlannedForItsSize() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        let store = try PostgresStore(url: url, poolSize: 1)
        let writer = try PostgresConnection(url: url)
        try writer.execute("ALTER TABLE profiles SET (autovacuum_enabled = false)")
        try writer.addProfiles(1...200)
        try writer.execute("ANALYZE profiles")
        let planner = try PostgresConnection(url: url)
        try planner.prepare("key_check", "SELECT 1 FROM ONLY profiles x WHERE id = ? FOR KEY SHARE OF x")
        let small = try planner.plan("key_check", ["1"])
        #expect(small.contains("Seq Scan on profiles"), "planned for 200 rows: \(small)")

        try writer.addProfiles(201...5_000)
        await store.refreshStatistics()
        #expect(store.stats.tablesAnalyzedCount == 1)
        #expect(try writer.estimatedRows("profiles") > 4_000)
        let grown = try planner.plan("key_check", ["1"])
        #expect(grown.contains("Index Scan using profiles_pkey"), "\(grown)")
        #expect(!grown.contains("Seq Scan"), "\(grown)")

        // 6,000 rows against statistics of 5,000: left alone; 12,000: analyzed again.
        try writer.addProfiles(5_001...6_000)
        _ = try await store.read { try $0.projects() }
        await store.refreshStatistics()
        #expect(store.stats.tablesAnalyzedCount == 1)
        try writer.addProfiles(6_001...12_000)
        _ = try await store.read { try $0.projects() }
        await store.refreshStatistics()
        #expect(store.stats.tablesAnalyzedCount == 2)
        #expect(try writer.estimatedRows("profiles") > 10_000)
        await store.close()
    }

    /// A lapsed lease's deliveries without an outcome are found among the chunk's own outcomes and
    /// runs of sent ones, however many the tables hold, planned for its values and generically:
    /// planned for its values, the statement without the chunk's range in its subqueries hashed
    /// every outcome of the table.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aLapsedLeaseReadsItsChunksOutcomesOnly() async throws {
        let url = try await PostgresConnection.migratedSchema()
        try await offThePool {
            try PostgresConnection(url: url).execute(
                """
                SELECT pg_stat_force_next_flush();
                SET session_replication_role = replica;
                INSERT INTO deliveries (message_id, subscription_id, provider, token, created_at)
                    SELECT 1, n, 'ios-apns', 't' || n, 0 FROM generate_series(1, 30000) AS n;
                INSERT INTO delivery_outcomes (delivery_id, attempt, message_id, status, at)
                    SELECT id, 1, 1, 'sent', 0 FROM deliveries WHERE id <= 15000;
                INSERT INTO delivery_sent_runs (message_id, last_id, first_id, at)
                    SELECT 1, n * 10, n * 10 - 9, 0 FROM generate_series(1501, 3000) AS n;
                ANALYZE deliveries, delivery_outcomes, delivery_sent_runs
                """)
        }
        let connection = try PostgresConnection(url: url)
        let arguments = [0, 0, 1, 20_001, 21_000, 20_001, 21_000, 20_001, 21_000, 20_001, 21_000]
        let planned = try connection.queryOnce(
            "EXPLAIN " + PostgresConnection.numbered(PostgresTransaction.queueLapsedLeaseSQL), arguments
        ).compactMap { $0.string(0) }.joined(separator: "\n")
        // The store runs it prepared: its generic plan, as the connection keeps it.
        try connection.prepare("lapsed", PostgresTransaction.queueLapsedLeaseSQL)
        let generic = try connection.plan("lapsed", arguments.map(String.init))
        for plan in [planned, generic] {
            #expect(plan.contains("delivery_outcomes_pkey"), "\(plan)")
            #expect(!plan.contains("Seq Scan on delivery_outcomes"), "\(plan)")
            #expect(plan.contains("delivery_sent_runs_pkey"), "\(plan)")
            #expect(!plan.contains("Seq Scan on delivery_sent_runs"), "\(plan)")
        }
    }

    /// PostgreSQL's fan-out insert tells a device that has the message apart by probing the
    /// token's subscriptions and each one's delivery of the message by key, in its generic plans
    /// (empty, and with statistics of a few deliveries a message): it never walks or hashes the
    /// message's deliveries.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aFanOutsInsertsGenericPlanOnPostgresProbesTheTokensSubscriptionsAndTheirDeliveries() async throws {
        let url = try await PostgresConnection.migratedSchema()
        // A whole group of targets, as a fan-out writes them: with two, the join was not chosen.
        let arguments = (1...64).flatMap { ["\($0)", "'ios-apns'", "'t\($0)'"] } + ["1", "0", "1"]
        func plan() throws -> String {
            // A connection of its own each time: changing the tables drops a connection's plans.
            let connection = try PostgresConnection(url: url)
            try connection.prepare("fan_out", DeliveryTexts.insertLeased[.postgres][64])
            return try connection.plan("fan_out", arguments)
        }
        let empty = try plan()
        try await offThePool { try PostgresConnection(url: url).addAnalyzedDeliveries(messages: 3_000) }
        // Ten deliveries a message, as the statistics say when a send starts: the join PostgreSQL
        // then made read every delivery of the message for each statement.
        for plan in [empty, try plan()] {
            #expect(plan.contains("Index Scan using subscriptions_token"), "\(plan)")
            #expect(plan.contains(#"Index Cond: ((provider = "*VALUES*".column2) AND (token = "*VALUES*".column3))"#))
            #expect(plan.contains("Index Cond: ((message_id = $"), "\(plan)")
            #expect(plan.contains("(subscription_id = s.id))"), "\(plan)")
            #expect(!plan.contains("Seq Scan on deliveries") && !plan.contains("Hash"), "\(plan)")
        }
    }

    /// On PostgreSQL a delivery's key is its message and its id, and it has no other index but the
    /// fan-out's probe (`PostgresMigrations.deliveryKeys`): a send writes two index entries a
    /// delivery, not three. Every statement that reads deliveries by id reads them by that key, in
    /// its generic plan, empty and with statistics of thousands of deliveries a message: a claim's
    /// addresses and a device's report of a push (which names the message by its public id).
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func postgresReadsADeliveryByItsMessageAndIdAndKeepsTwoIndexes() async throws {
        let url = try await PostgresConnection.migratedSchema()
        func plans() throws -> [String] {
            let connection = try PostgresConnection(url: url)
            try connection.prepare("addresses", SQLiteTransaction.addressesQuery(ids: 2))
            try connection.prepare("report", SQLiteTransaction.pushEventOfRecipientSQL(nil))
            return [
                try connection.plan("addresses", ["1", "10", "11"]),
                try connection.plan("report", ["'m.10'", "'open'", "0", "0", "10", "'m'", "1", "1", "NULL", "NULL"]),
            ]
        }
        let empty = try plans()
        try await offThePool { try PostgresConnection(url: url).addAnalyzedDeliveries(messages: 3) }
        for plan in empty + (try plans()) {
            #expect(plan.contains("Index Scan using deliveries_pkey on deliveries"), "\(plan)")
            #expect(plan.contains("Index Cond: ((message_id = "), "\(plan)")
            #expect(!plan.contains("Seq Scan on deliveries") && !plan.contains("Bitmap"), "\(plan)")
        }
        let indexes = try PostgresConnection(url: url).query(
            """
            SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'deliveries'
            ORDER BY indexname
            """
        ).compactMap { $0.string(0) }
        #expect(indexes == ["deliveries_pkey", "deliveries_subscription"])
    }

    /// Statements a send and a new device's subscribe run on every call are planned a few times and
    /// then keep their generic plan on the connection, as the plan tests above assume: the fan-out's
    /// insert for a message the statistics have not seen (they hold an older message's deliveries,
    /// as a server's do when a campaign starts), and a block of reserved ids. Each looked cheaper
    /// planned for its values (a new message has no deliveries; 32 rows against a guessed
    /// thousand), so PostgreSQL planned it again on every call. Checked under PostgreSQL's own
    /// choice (`auto`), not the generic plans tern's connections set (``PostgresConnection/genericPlans``):
    /// the statements' texts keep a connection without that setting on generic plans too.
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aFanOutsInsertAndAReservedIdBlockKeepTheirGenericPlansOnPostgres() async throws {
        let url = try await PostgresConnection.migratedSchema()
        let plans = try await offThePool {
            let connection = try PostgresConnection(url: url)
            try connection.execute(
                """
                SET plan_cache_mode = auto;
                SET session_replication_role = replica;
                INSERT INTO deliveries (message_id, subscription_id, provider, token, created_at)
                    SELECT 1, n, 'ios-apns', 't' || n, 0 FROM generate_series(1, 30000) AS n;
                ANALYZE deliveries
                """)
            connection.reservedIdsLifetime = .zero
            for run in 0..<8 {
                let targets = (0..<64).flatMap { row -> [any SQLiteBindable] in
                    [Int64(100_000 + run * 64 + row), "ios-apns", "new-\(run)-\(row)"]
                }
                let written = try connection.query(
                    DeliveryTexts.insertLeased[.postgres][64], targets + [Int64(2), Int64(0), Int64(2)])
                #expect(written.count == 64)
                _ = try connection.reservedId("profiles")
            }
            return try connection.query("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
                .map { (statement: $0.string(0) ?? "", generic: $0.int(1) ?? 0, custom: $0.int(2) ?? 0) }
        }
        for needle in ["INSERT INTO deliveries", "generate_series"] {
            let statement = try #require(plans.first { $0.statement.contains(needle) }, "\(plans)")
            #expect(statement.generic >= 3 && statement.custom <= 5, "\(needle): \(statement)")
        }
    }

    /// The final outcomes' arguments for `rows` outcomes (SQL literals): id, message, attempt.
    private static func outcomeArguments(rows: Int) -> [String] {
        Array(repeating: ["1", "1", "1"], count: rows).flatMap { $0 }
    }

    @Test func profileIdsSortByTheirCreationTime() throws {
        let times: [Int64] = [1_700_000_000_000, 1_700_000_000_001, 1_700_000_060_000, 1_800_000_000_000]
        let ids = times.map { Profile.newPublicId(now: $0) }
        #expect(ids == ids.sorted())
        #expect(ids.allSatisfy { $0.count == 24 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
        #expect(ids[0].hasPrefix(String(1_700_000_000_000, radix: 16).leftPadded(to: 12)))
        // The same millisecond: the random half tells them apart.
        let sameTime = Set((0..<1000).map { _ in Profile.newPublicId(now: times[0]) })
        #expect(sameTime.count == 1000)
    }

    @Test func aNewDevicesProfileIdStartsWithItsCreationTime() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let before = ServerClock.milliseconds()
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "t-1"))
        try #require(reply.status == 200, "subscribe: \(reply.errorText)")
        let after = ServerClock.milliseconds()
        let id = try #require(reply.profile?.id)
        let made = try #require(Int64(id.prefix(12), radix: 16))
        #expect((before...after).contains(made), "\(id)")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
