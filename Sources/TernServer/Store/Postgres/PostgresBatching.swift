import Foundation

/// Group commit on one pooled PostgreSQL connection, the same seam as SQLite's (``BatchingBackend``):
/// `BEGIN` once per batch, the writes, one `COMMIT`; a savepoint around each write only when the
/// batch runs again after one of its writes failed (``savepointsOnlyAfterAFailure``). A batch that
/// finds its connection gone (the server restarted since it was last used) runs its writes again on
/// a new connection, so nothing is lost to a stale connection.
///
/// Every statement is a round trip to the server, and on this path the round trips are the cost
/// (the profile of `push/subscribe` on PostgreSQL: the connection's send and its wait for the
/// answer, half of all samples). So a write's `SAVEPOINT` and `RELEASE` are not sent alone: the
/// connection holds them (``PostgresConnection/holdUntilNext(_:)``) and they go in one pipeline
/// with the write's first statement, with the next write's, or with the batch's `COMMIT`. A held
/// statement that fails is the batch's failure, not the write's that happened to carry it: the
/// batch is rolled back and runs again write by write, as when it was sent alone.
final class PostgresBatching: BatchingBackend {
    private let slot: PostgresConnectionSlot
    private let stats: PostgresStats
    private var connection: PostgresConnection

    init(slot: PostgresConnectionSlot, stats: PostgresStats) throws(PostgresError) {
        self.slot = slot
        self.stats = stats
        connection = try slot.connected()
    }

    var transaction: any StoreTransaction {
        PostgresTransaction(database: connection, writable: true, stats: stats)
    }

    /// How long a write of a batch waits for a row another connection's transaction holds before it
    /// gives up, rolls back to its savepoint and runs again alone once its batch has committed
    /// (``GroupCommit``). Two batches that take the same rows in other orders (SDK writes to the
    /// same subscriptions from many connections) wait for each other; PostgreSQL finds that only
    /// after `deadlock_timeout` (1 s by default, and only a superuser may lower it), which every
    /// such write then waited. A batch's own locks are held for milliseconds, so a longer wait is
    /// almost always such a cycle.
    static let lockTimeout = "200ms"

    /// Whether this batch's `COMMIT` was sent: a connection lost after it leaves the batch's fate
    /// unknown; lost before it, the server rolled the transaction back (``mayRunAgain(_:)``).
    private var committing = false

    /// `BEGIN` and the lock timeout are held to go with the batch's first statement: a round trip
    /// a batch fewer, which under light load (a batch of one write, an event report's) was a third
    /// of the write's. A connection found gone here is replaced first; one that turns out gone only
    /// when the first statement goes fails that statement, and the write runs again on a new one.
    func beginBatch() throws {
        connection.discardHeld()
        committing = false
        connection = try slot.connected()  // a new one when this one is known to be gone
        connection.holdUntilNext("BEGIN")
        connection.holdUntilNext("SET LOCAL lock_timeout = '\(Self.lockTimeout)'")
    }

    /// A savepoint is a subtransaction: two more statements a write, a transaction id of its own
    /// for each write that writes, and past 64 of those in one transaction every other session's
    /// snapshot has to look ids up in `pg_subtrans`. A failed statement aborts the whole
    /// transaction here, so what a failed write wrote goes with the batch's rollback; the batch
    /// runs again with savepoints only then.
    var savepointsOnlyAfterAFailure: Bool { true }

    func willRunAgainWithSavepoints() { stats.recordBatchRunAgain() }

    /// Savepoints taken by this connection's batches (tests: a batch without a failure takes none).
    private(set) var savepointsTaken = 0

    func savepoint() throws {
        savepointsTaken += 1
        connection.holdUntilNext("SAVEPOINT tern_write")
    }

    func releaseSavepoint() throws {
        try throwHeldFailure()
        connection.holdUntilNext("RELEASE tern_write")
    }

    func rollbackToSavepoint() throws {
        // The write's failure may have been a held statement's (its first statement carried them).
        try throwHeldFailure()
        try connection.execute("ROLLBACK TO tern_write")
        connection.holdUntilNext("RELEASE tern_write")
    }

    /// A held `SAVEPOINT` or `RELEASE` failed: the batch's transaction is not what its writes think.
    private func throwHeldFailure() throws {
        if let failure = connection.takeHeldFailure() { throw failure }
    }

    func commitBatch() throws {
        committing = true
        do {
            try throwHeldFailure()
            try connection.execute("COMMIT")
        } catch {
            if !connection.isOpen { slot.drop() }
            throw error
        }
    }

    func rollbackBatch() {
        connection.discardHeld()
        guard connection.isOpen else { return slot.drop() }
        do {
            try connection.execute("ROLLBACK")
        } catch {
            slot.drop()
        }
    }

    func storeError(_ error: any Error) -> any Error {
        (error as? PostgresError)?.storeError ?? error
    }

    /// A lost race (a deadlock, the lock timeout), or a connection that went away before the
    /// batch's `COMMIT` was sent: PostgreSQL rolls back the transaction of a connection that
    /// went, so nothing of it was kept and it may run again on a new connection (a database
    /// restart, found by the first statement of a batch). After `COMMIT` was sent, whether it
    /// committed is unknown, and the write is not run again.
    func mayRunAgain(_ error: any Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        return error.isRetryable || (error.isUnavailable && !committing)
    }
}

/// A session's connection, opened when first needed and again after the server went away. Owned
/// by one ``PostgresSession`` and used only on its thread.
final class PostgresConnectionSlot {
    private let url: String
    private let stats: PostgresStats?
    private var connection: PostgresConnection?

    init(url: String, stats: PostgresStats? = nil) {
        self.url = url
        self.stats = stats
    }

    /// The open connection, connecting when there is none or it was lost.
    func connected() throws(PostgresError) -> PostgresConnection {
        if let connection, connection.isOpen { return connection }
        let fresh = try PostgresConnection(url: url, stats: stats)
        connection = fresh
        return fresh
    }

    func drop() { connection = nil }
}
