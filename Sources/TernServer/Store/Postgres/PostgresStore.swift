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
    /// The lock key nodes migrate under (any constant every node agrees on: "tern" in ASCII).
    static let migrationLock: Int64 = 0x7465_726E
    /// The lock bootstrap's first write takes ("tern" and 1).
    static let bootstrapLock: Int64 = 0x7465_726E_01

    private let sessions: [PostgresSession]
    /// Operations sent to each session and not yet answered.
    private var load: [Int]
    private var closed = false
    /// Operations that found every connection busy and queued behind another.
    private var waits: UInt64 = 0
    /// The session of each affinity with writes waiting or running, and how many
    /// (``write(affinity:_:)``).
    private var affinities: [String: (session: Int, writes: Int)] = [:]
    let stats = PostgresStats()
    /// Deliveries this node's fan-outs wrote since `deliveries` was last analyzed, and the table's
    /// size then (see ``deliveriesWritten(_:)``).
    private var deliveriesSinceAnalysis = 0
    private var deliveriesAtAnalysis: Int?
    private var analyzing = false
    /// How many deliveries make the table worth analyzing again, at least.
    static let analysisFloor = 10_000
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
    }

    /// Keeps the statistics of `deliveries` up with the fan-outs. PostgreSQL keeps a prepared
    /// statement's plan on its connection until the table is next analyzed, and autovacuum analyzes a
    /// table once a tenth of it changed, looking once a minute; a fan-out writes tens of thousands of
    /// rows a second. The outcome update's plan chosen while the table was small (a sequential scan
    /// per 64 outcomes) stayed through a large campaign's start on a fresh cluster
    /// (bench/server/plans.sh, docs/scaling.md). So when this node's fan-outs have written as many
    /// deliveries as the table held at its last analysis (at least `analysisFloor`), it analyzes
    /// the table, and every connection plans its statements on `deliveries` again: a plan is at
    /// most one doubling out of date. An analysis that fails is tried again after the next chunk.
    public func deliveriesWritten(_ count: Int) async {
        deliveriesSinceAnalysis += count
        guard deliveriesSinceAnalysis >= Self.analysisFloor, !analyzing, !closed else { return }
        analyzing = true
        defer { analyzing = false }
        do {
            // The size at the last analysis: this node's own, or (before its first) the statistics'.
            let known: Int
            if let size = deliveriesAtAnalysis {
                known = size
            } else {
                known = try await withSession { session in try await session.run(Self.estimatedDeliveries) }
                deliveriesAtAnalysis = known
            }
            guard deliveriesSinceAnalysis >= known else { return }
            let written = deliveriesSinceAnalysis
            deliveriesAtAnalysis = try await withSession { session in
                try await session.run {
                    try $0.execute("ANALYZE deliveries, delivery_queue, delivery_outcomes, delivery_sent_runs")
                    return try Self.estimatedDeliveries($0)
                }
            }
            deliveriesSinceAnalysis -= written
            analyses += 1
        } catch {
            // The next chunk's call tries again; a store that cannot analyze still sends.
        }
    }

    /// The table's size as PostgreSQL last estimated it (its statistics' row count).
    static let deliveriesEstimate =
        "SELECT CAST(GREATEST(reltuples, 0) AS BIGINT) FROM pg_class WHERE oid = CAST('deliveries' AS regclass)"

    private static func estimatedDeliveries(_ connection: PostgresConnection) throws -> Int {
        Int(try connection.queryFirst(deliveriesEstimate)?.int(0) ?? 0)
    }

    /// Analyses of `deliveries` this store ran (tests).
    private(set) var analyses = 0

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
            _ = try connection.query("SELECT pg_advisory_xact_lock(?)", [migrationLock])
            try connection.execute(PostgresMigrations.versionTable)
            var version = Int(try connection.queryFirst("SELECT version FROM tern_schema")?.int(0) ?? -1)
            if version < 0 {
                try connection.run("INSERT INTO tern_schema (version) VALUES (0)")
                version = 0
            }
            let newest = PostgresMigrations.all.count
            if version > newest {
                try? connection.execute("ROLLBACK")
                throw StoreError.backend(
                    "the database schema is at version \(version), newer than this tern knows (\(newest)): "
                        + "another node was upgraded; upgrade this one before starting it")
            }
            for migration in PostgresMigrations.all[version...] { try connection.execute(migration) }
            try connection.run("UPDATE tern_schema SET version = ?", [newest])
            try connection.execute("COMMIT")
        } catch let error as StoreError {
            throw error
        } catch let error as PostgresError {
            try? connection.execute("ROLLBACK")
            throw error.storeError
        } catch {
            throw .backend("\(error)")
        }
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
