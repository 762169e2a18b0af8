import Foundation
import TernSQLite

/// The embedded store: one SQLite file in WAL mode; writes on one connection owned by an actor that
/// runs on its own thread, reads on a second, query-only connection with a thread of its own. Writes
/// are group-committed (see `GroupCommit`): writes that arrive while a batch runs wait in
/// `writeQueue` and go together into the next transaction, each under its own savepoint, so a
/// burst of SDK writes costs one commit instead of one each.
///
/// ```swift
/// let store = try SQLiteStore(path: dataDirectory + "/tern.sqlite")
/// let projects = try await store.read { try $0.projects() }
/// ```
public actor SQLiteStore: Store, GroupCommitWriter {
    /// Which projects' webhooks want which events, read by this store's writers.
    public nonisolated let webhookDirectory = WebhookDirectory()
    public nonisolated let triggerDirectory = TriggerDirectory()
    private let executor: QueueExecutor
    private var database: SQLiteDatabase?
    private let checkpointer: WALCheckpointer?
    private let reader: SQLiteReader
    let path: String
    let groupCommit: GroupCommitConfiguration
    nonisolated let writeQueue = WriteQueue()
    /// Batches applied and the writes in them, since the store opened (tests and diagnostics).
    private(set) var groupCommitStatistics = GroupCommitStatistics()

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating if needed) the file at `path` and brings its schema to the newest version.
    public init(path: String, groupCommit: GroupCommitConfiguration = .init()) throws {
        self.path = path
        self.groupCommit = groupCommit
        executor = QueueExecutor(label: "tern.store.sqlite")
        do {
            let database = try SQLiteDatabase(path: path)
            try database.migrate(SQLiteMigrations.all)
            try database.execute("PRAGMA wal_autocheckpoint = \(WALCheckpointer.writerThreshold)")
            // Each write of a batch runs under its own savepoint, and SQLite copies every page a
            // savepoint changes into a sub-journal first; past 64 KiB that journal is a temporary
            // file, so a subscribe (nine index pages and more) paid its pages as pwrite calls: half of
            // its insert's time. In memory the copies cost a memcpy and go at each RELEASE. Tern makes
            // no temporary tables; its large sorts go through SQLite's sorter, which spills by itself.
            try database.execute("PRAGMA temp_store = MEMORY")
            self.database = database
            checkpointer = try WALCheckpointer(path: path)
            reader = try SQLiteReader(path: path)
        } catch let error as SQLiteError {
            throw Self.storeError(error)
        }
    }

    deinit {
        checkpointer?.stop()
    }

    /// The kept statements SQLite had to compile again, with how many times (tests: the store's
    /// queries are planned once, see ``SQLiteDatabase/recompiledStatements``).
    func recompiledStatements() async throws -> [String: Int] {
        let written = try run { $0.recompiledStatements }
        return written.merging(try await reader.recompiledStatements()) { $0 + $1 }
    }

    /// The schema version of the open file.
    func schemaVersion() throws -> Int {
        try run { try $0.userVersion }
    }

    /// Queues `body` for the next batch and answers once that batch committed. Not isolated to the
    /// store: the write waits in a queue of its own, not on the writer's actor (a closed store
    /// answers it `StoreError.closed` from its batch).
    public nonisolated func write<T: Sendable>(
        _ body: @escaping @Sendable (any StoreTransaction) throws -> T
    ) async throws -> T {
        try await enqueue(body)
    }

    func commit(_ batch: [any BatchedWrite]) {
        guard let database else {
            for write in batch { write.fail(StoreError.closed) }
            return
        }
        GroupCommit.apply(batch, on: SQLiteBatching(database: database))
        groupCommitStatistics.batches += 1
        groupCommitStatistics.writes += batch.count
        groupCommitStatistics.largestBatch = max(groupCommitStatistics.largestBatch, batch.count)
    }

    /// Group commit's counters in Prometheus text, for `/metrics`: the mean batch says how many
    /// writes shared each commit (one: the writer keeps up with its callers one at a time).
    func metricsText() -> String {
        let statistics = groupCommitStatistics
        return """
            # HELP tern_store_write_batches_total Transactions the store's writer committed writes in.
            # TYPE tern_store_write_batches_total counter
            tern_store_write_batches_total \(statistics.batches)
            # HELP tern_store_writes_total Writes the store's writer applied, in those transactions.
            # TYPE tern_store_writes_total counter
            tern_store_writes_total \(statistics.writes)

            """
    }

    /// Reads go to a connection of their own, not through the writer's actor: they neither wait for a
    /// batch in progress nor hold up the batches behind it.
    public nonisolated func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> T) async throws
        -> T
    {
        try await reader.read(body)
    }

    public func isHealthy() async -> Bool {
        (try? run { try $0.queryFirst("SELECT 1")?.int(0) }) == 1
    }

    public func close() async {
        // Writes already accepted finish first (their callers are waiting for an answer); on a store
        // closed before, they are answered that it is closed.
        let batch = writeQueue.takeAll()
        if !batch.isEmpty { commit(batch) }
        checkpointer?.stop()
        await reader.close()
        if let database {
            try? database.execute("PRAGMA optimize")
        }
        database = nil
    }

    private func run<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        guard let database else { throw StoreError.closed }
        do {
            return try body(database)
        } catch let error as SQLiteError {
            throw Self.storeError(error)
        }
    }

    static func storeError(_ error: SQLiteError) -> StoreError {
        if error.isBusy { return .busy(error.message) }
        if error.isConstraint { return .conflict(error.message) }
        return .backend(error.description)
    }
}
