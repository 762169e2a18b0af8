import Foundation

/// The store on PostgreSQL, for one node or many on the same database: a pool of libpq connections,
/// each on its own thread; every request takes one for its transaction and gives it back.
///
/// ```swift
/// let store = try PostgresStore(url: "postgresql://tern:secret@db.internal/tern?sslmode=verify-full")
/// let projects = try await store.read { try $0.projects() }
/// ```
///
/// Opening brings the schema to the newest version under an advisory lock, so of several nodes
/// starting together one migrates and the others wait, then find it done. A node older than the
/// schema it finds refuses to start.
public actor PostgresStore: Store {
    /// Which projects' webhooks want which events, read by this store's writers.
    public nonisolated let webhookDirectory = WebhookDirectory()
    public nonisolated let triggerDirectory = TriggerDirectory()
    /// The lock key nodes migrate under (any constant every node agrees on: "tern" in ASCII).
    static let migrationLock: Int64 = 0x7465_726E
    /// The lock bootstrap's first write takes ("tern" and 1).
    static let bootstrapLock: Int64 = 0x7465_726E_01
    /// The first key of the two-key transaction locks on a new profile's key
    /// (``PostgresTransaction/lockProfileKey(dbId:name:value:)``).
    static let profileKeyLocks: Int32 = 0x7465_7201

    private let sessions: [PostgresSession]
    /// A connection beside the pool for ``refreshStatistics()`` and ``recheckTokenMarks()``: its
    /// `ANALYZE` of a large table takes a few hundred milliseconds, which on a pooled connection the
    /// writes queued behind it waited out (subscribe's p99 went from 13–18 ms to 515–606 ms). Its
    /// round trips are not the node's (`stats`), so that either look can tell a node that did
    /// nothing since the last one, the other's statements aside.
    private let upkeep: PostgresSession
    /// Operations sent to each session and not yet answered.
    private var load: [Int]
    private var closed = false
    /// Operations that found every connection busy and queued behind another.
    private var waits: UInt64 = 0
    /// The session of each affinity with writes waiting or running, and how many
    /// (``write(affinity:_:)``).
    private var affinities: [String: (session: Int, writes: Int)] = [:]
    nonisolated let stats = PostgresStats()
    /// Keeping the tables' statistics up with their growth (``refreshStatistics()``): a look running
    /// now, the round trips counted when the last one ended, and the deliveries this node's fan-outs
    /// wrote since (``deliveriesWritten(_:)``).
    private var refreshing = false
    private var roundTripsAtRefresh: UInt64?
    private var deliveriesSinceRefresh = 0
    /// A ``recheckTokenMarks()`` look running now, the round trips counted when the last one ended,
    /// and whether it left marks not yet due.
    private var rechecking = false
    private var roundTripsAtRecheck: UInt64?
    private var rechecksPending = false
    /// A table smaller than this is left to autovacuum: a plan that scans it whole costs little.
    static let analysisFloor = 1_000
    /// How many deliveries a fan-out writes before it looks again, beside the server's periodic look.
    static let deliveriesPerRefresh = 10_000
    /// The URL with the password removed, for logs and messages.
    nonisolated let displayURL: String

    /// Connects, migrates, and keeps up to `poolSize` connections (opened as they are first needed).
    /// Writes to a busy connection are group-committed as on SQLite (`groupCommit`).
    /// Throws a `StoreError.backend` with libpq's reason when the database cannot be reached (a
    /// wrong host, password or database name), and when its schema is newer than this build knows.
    public init(url: String, poolSize: Int = 8, groupCommit: GroupCommitConfiguration = .init()) throws {
        displayURL = Self.redacted(url)
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(url: url)
        } catch {
            throw StoreError.backend("cannot connect to PostgreSQL at \(Self.redacted(url)): \(error.message)")
        }
        try Self.migrate(connection)
        let stats = stats
        sessions = (0..<max(1, poolSize)).map {
            PostgresSession(url: url, index: $0, stats: stats, groupCommit: groupCommit)
        }
        load = Array(repeating: 0, count: sessions.count)
        upkeep = PostgresSession(url: url, index: sessions.count, stats: PostgresStats(), groupCommit: groupCommit)
    }

    /// The schema version the database is at.
    func schemaVersion() async throws -> Int {
        try await withSession { session in
            try await session.run { Int(try $0.queryFirst("SELECT version FROM tern_schema")?.int(0) ?? 0) }
        }
    }

    /// Affinities with writes waiting or running now (tests).
    var affinitiesInFlight: Int { affinities.count }

    /// Connections busy, the pool's size, operations queued behind a busy connection now and so far.
    func poolUse() -> (inUse: Int, size: Int, waiting: Int, waits: UInt64) {
        (load.filter { $0 > 0 }.count, sessions.count, load.reduce(0) { $0 + max(0, $1 - 1) }, waits)
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try await withSession { session in try await session.write(body) }
    }

    /// On the session where a write of the same affinity is waiting or running, else the least busy
    /// one: the writes one device or person sends at the same time meet in one connection's batches
    /// (one transaction, in order) instead of waiting on each other's row locks from two. Writes
    /// with nothing in flight spread as any other (a session picked by hashing the affinity instead
    /// left some sessions' queues longer: new devices' subscribes' p99 rose from 57–64 to 79–81 ms).
    /// Measured with 50 connections updating 200 subscriptions' tokens (`bench/server/run.sh`): the
    /// least busy session's way waited out lock timeouts, a p99 of 310–320 ms.
    public func write<T: Sendable>(
        affinity: String, _ body: @escaping @Sendable (any StoreTransaction) throws -> T
    ) async throws -> T {
        let index = affinities[affinity]?.session ?? leastBusy()
        affinities[affinity] = (index, (affinities[affinity]?.writes ?? 0) + 1)
        defer {
            let writes = affinities[affinity]?.writes ?? 1
            affinities[affinity] = writes > 1 ? (index, writes - 1) : nil
        }
        return try await withSession(at: index) { session in try await session.write(body) }
    }

    public func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        let stats = stats
        return try await withSession { session in
            try await session.read { try body(PostgresTransaction(database: $0, writable: false, stats: stats)) }
        }
    }

    public func isHealthy() async -> Bool {
        let answer = try? await withSession { session in
            try await session.run { try $0.queryFirst("SELECT 1")?.int(0) }
        }
        return answer == 1
    }

    public func close() async {
        closed = true
        for session in sessions { await session.close() }
        await upkeep.close()
    }

    /// Keeps PostgreSQL's table statistics up with the tables' growth. PostgreSQL keeps a statement's
    /// plan on its connection (a prepared statement's, a foreign key check's) until the table is next
    /// analyzed, and autovacuum analyzes a table once a tenth of it changed, looking once a minute. A
    /// plan chosen while a table was small scans it whole as it grows: a server whose `profiles`
    /// autovacuum had analyzed at 200 rows took subscribes at 1,050–1,350/s instead of 3,600, each
    /// insert's foreign key check reading the growing table row by row (docs/scaling.md), and the
    /// outcome update's plan on `deliveries` did the same through a large campaign's start
    /// (bench/server/plans.sh). So every table of the schema that holds at least `analysisFloor` rows
    /// and more than twice what its statistics say is analyzed now, and every connection plans its
    /// statements on it again: a plan is at most one doubling out of date. The row counts are
    /// PostgreSQL's own (each connection reports its changes about once a second), so one look sees
    /// what every node wrote. The server looks every two seconds (``TernServerApp``) and a fan-out
    /// after its chunks (``deliveriesWritten(_:)``); a look finds nothing to do when no statement ran
    /// since the last one. A table a vacuum holds is skipped until the next look, and an analysis
    /// that fails is tried again then: a store that cannot analyze still serves.
    public func refreshStatistics() async {
        guard !refreshing, !closed, roundTripsAtRefresh != stats.roundTripCount else { return }
        refreshing = true
        defer {
            refreshing = false
            roundTripsAtRefresh = stats.roundTripCount
        }
        do {
            let analyzed = try await upkeep.run { connection in
                let grown = try connection.query(Self.grownTables, [Int64(Self.analysisFloor)]).compactMap {
                    $0.string(0).map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
                }
                if !grown.isEmpty {
                    try connection.execute("ANALYZE (SKIP_LOCKED) " + grown.joined(separator: ", "))
                }
                return grown.count
            }
            if analyzed > 0 { stats.recordTablesAnalyzed(analyzed) }
        } catch {
            // The next look tries again.
        }
    }

    /// A token mark (`markTokenInvalid`) and a write of one of its token's subscriptions on another
    /// connection can each miss the other: the mark's update does not see a subscription not yet
    /// committed, and that write's `pushable` did not see the mark, so the subscription stays
    /// counted in its audience (the fan-out still skips it). Each mark leaves a row in
    /// `token_mark_rechecks`; the first look that finds it notes the first transaction id not yet
    /// given out, and a later look, once no transaction before that id is running (so every write
    /// that could have crossed the mark has committed or rolled back), sets `pushable` to 0 on the
    /// token's subscriptions written up to the mark, as the mark did, and removes the row. Each look
    /// is three statements on the upkeep connection, made only when this node ran a statement since
    /// the last look or that look left marks not yet due; one that fails is tried again at the next.
    /// (A write whose statement began before the mark committed and took its transaction id only
    /// after a look noted the next one, seconds later, would still be missed.)
    public func recheckTokenMarks() async {
        guard !closed, !rechecking, rechecksPending || roundTripsAtRecheck != stats.roundTripCount else { return }
        rechecking = true
        defer {
            rechecking = false
            roundTripsAtRecheck = stats.roundTripCount
        }
        do {
            let (rechecked, pending) = try await upkeep.run { connection in
                try connection.run(Self.noteRecheckHorizon)
                let rechecked = try connection.run(Self.dueRechecks)
                let pending = try connection.queryFirst("SELECT EXISTS (SELECT 1 FROM token_mark_rechecks)")?.bool(0)
                return (rechecked, pending ?? true)
            }
            rechecksPending = pending
            if rechecked > 0 { stats.recordTokenMarksRechecked(rechecked) }
        } catch {
            rechecksPending = true  // the next look tries again
        }
    }

    /// Notes, on the marks not looked at yet, the first transaction id not given out yet.
    static let noteRecheckHorizon = """
        UPDATE token_mark_rechecks SET after_xid = txid_snapshot_xmax(txid_current_snapshot())
        WHERE after_xid IS NULL
        """

    /// The marks no running transaction could have crossed: their subscriptions written up to the
    /// mark lose `pushable`, as ``SQLTransaction/unpushableUpToMark`` does; how many changed.
    static let dueRechecks = """
        WITH due AS (
            DELETE FROM token_mark_rechecks WHERE after_xid <= txid_snapshot_xmin(txid_current_snapshot())
            RETURNING provider, token, marked_at)
        UPDATE subscriptions s SET pushable = 0 FROM due
        WHERE s.provider = due.provider AND s.token = due.token AND s.updated_at <= due.marked_at
            AND s.pushable = 1
        """

    /// The schema's tables that hold at least `$1` rows and more than twice their statistics' count.
    static let grownTables = """
        SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
        WHERE s.schemaname = current_schema() AND s.n_live_tup >= ?
            AND s.n_live_tup > 2 * GREATEST(c.reltuples, 0)
        ORDER BY s.relname
        """

    /// Told by a fan-out how many deliveries its chunk wrote: tens of thousands a second grow
    /// `deliveries` faster than the server's periodic look follows, so every `deliveriesPerRefresh`
    /// of them it looks at once.
    public func deliveriesWritten(_ count: Int) async {
        deliveriesSinceRefresh += count
        guard deliveriesSinceRefresh >= Self.deliveriesPerRefresh else { return }
        deliveriesSinceRefresh = 0
        await refreshStatistics()
    }

    /// Runs `body` on the least busy connection.
    private func withSession<T: Sendable>(_ body: (PostgresSession) async throws -> T) async throws -> T {
        try await withSession(at: leastBusy(), body)
    }

    private func leastBusy() -> Int {
        var index = 0
        for candidate in load.indices where load[candidate] < load[index] { index = candidate }
        return index
    }

    /// Runs `body` on the connection at `index`.
    private func withSession<T: Sendable>(
        at index: Int, _ body: (PostgresSession) async throws -> T
    ) async throws -> T {
        guard !closed else { throw StoreError.closed }
        if load[index] > 0 { waits += 1 }
        load[index] += 1
        defer { load[index] -= 1 }
        return try await body(sessions[index])
    }

    /// Brings the schema to the newest version in one transaction under ``migrationLock``.
    static func migrate(_ connection: PostgresConnection) throws(StoreError) {
        do {
            try connection.execute("BEGIN")
            try migrateInTransaction(connection)
            try connection.execute("COMMIT")
        } catch let error as StoreError {
            try? connection.execute("ROLLBACK")
            throw error
        } catch let error as PostgresError {
            try? connection.execute("ROLLBACK")
            throw error.storeError
        } catch {
            throw .backend("\(error)")
        }
    }

    /// ``migrate(_:)``'s work inside a transaction the caller opened and ends: takes
    /// ``migrationLock`` (held to the transaction's end), applies what is missing, and returns the
    /// version the schema is at. `tern store copy` runs it in the transaction it copies in, so a copy
    /// that fails leaves no schema behind either. Throws ``StoreError/backend(_:)`` for a schema newer
    /// than this build knows (the caller rolls back).
    @discardableResult
    static func migrateInTransaction(_ connection: PostgresConnection) throws -> Int {
        _ = try connection.query("SELECT pg_advisory_xact_lock(?)", [migrationLock])
        try connection.execute(PostgresMigrations.versionTable)
        var version = Int(try connection.queryFirst("SELECT version FROM tern_schema")?.int(0) ?? -1)
        if version < 0 {
            try connection.run("INSERT INTO tern_schema (version) VALUES (0)")
            version = 0
        }
        let newest = PostgresMigrations.all.count
        if version > newest {
            throw StoreError.backend(
                "the database schema is at version \(version), newer than this tern knows (\(newest)): "
                    + "another node was upgraded; upgrade this one before starting it")
        }
        for migration in PostgresMigrations.all[version...] { try connection.execute(migration) }
        try connection.run("UPDATE tern_schema SET version = ?", [newest])
        return newest
    }

    /// `postgresql://user:secret@host/db` → `postgresql://user:***@host/db`.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(an unparsable URL)" }
        if components.password != nil { components.password = "***" }
        components.queryItems = components.queryItems?.map {
            $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0
        }
        return components.string ?? "(an unparsable URL)"
    }
}
