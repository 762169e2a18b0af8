import Foundation

/// Group commit on one pooled PostgreSQL connection, the same seam as SQLite's (``BatchingBackend``):
/// `BEGIN` once per batch, a savepoint around each write, one `COMMIT`. A batch that finds its
/// connection gone (the server restarted since it was last used) reconnects before `BEGIN`, so
/// nothing is lost to a stale connection.
///
/// Every statement is a round trip to the server, and on this path the round trips are the cost
/// (the profile of `push/subscribe` on PostgreSQL: the connection's send and its wait for the
/// answer, half of all samples). So a write's `RELEASE` is not sent alone: it goes in one query
/// string with the next write's `SAVEPOINT`, or with the batch's `COMMIT` (one round trip a write
/// fewer). A `RELEASE` that fails fails that string, and the batch runs again write by write, as
/// when it was sent alone.
final class PostgresBatching: BatchingBackend {
    private let slot: PostgresConnectionSlot
    private let stats: PostgresStats
    private var connection: PostgresConnection
    /// The last write's savepoint, released with the next statement this sends.
    private var releasePending = false

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
    private static let begin = "BEGIN; SET LOCAL lock_timeout = '\(lockTimeout)'"

    func beginBatch() throws {
        releasePending = false
        do {
            try connection.execute(Self.begin)
        } catch let error where error.isUnavailable {
            // Nothing ran yet: a fresh connection may begin it.
            slot.drop()
            connection = try slot.connected()
            try connection.execute(Self.begin)
        }
    }

    func savepoint() throws {
        try connection.execute(releasing("SAVEPOINT tern_write"))
    }

    func releaseSavepoint() throws { releasePending = true }

    /// `statement`, after the pending `RELEASE` if there is one.
    private func releasing(_ statement: String) -> String {
        defer { releasePending = false }
        return releasePending ? "RELEASE tern_write; " + statement : statement
    }

    func rollbackToSavepoint() throws {
        try connection.execute("ROLLBACK TO tern_write")
        try connection.execute("RELEASE tern_write")
    }

    func commitBatch() throws {
        do {
            try connection.execute(releasing("COMMIT"))
        } catch {
            if !connection.isOpen { slot.drop() }
            throw error
        }
    }

    func rollbackBatch() {
        releasePending = false
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

    func mayRunAgain(_ error: any Error) -> Bool {
        (error as? PostgresError)?.isRetryable ?? false
    }
}

/// A session's connection, opened when first needed and again after the server went away. Owned
/// by one ``PostgresSession`` and used only on its thread.
final class PostgresConnectionSlot {
    private let url: String
    private var connection: PostgresConnection?

    init(url: String) { self.url = url }

    /// The open connection, connecting when there is none or it was lost.
    func connected() throws(PostgresError) -> PostgresConnection {
        if let connection, connection.isOpen { return connection }
        let fresh = try PostgresConnection(url: url)
        connection = fresh
        return fresh
    }

    func drop() { connection = nil }
}
