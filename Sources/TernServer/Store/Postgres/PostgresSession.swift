import Foundation

/// One pooled connection, owned by an actor on its own thread so libpq's blocking calls never hold
/// Swift's cooperative threads. It reconnects by itself when the server went away.
///
/// Writes sent to a session that is busy wait in `writeQueue` and go together into its next
/// transaction, each under its own savepoint (`GroupCommit`, as on SQLite): under load each
/// connection commits a batch instead of one write.
actor PostgresSession: GroupCommitWriter {
    private let executor: QueueExecutor
    private let slot: PostgresConnectionSlot
    private let stats: PostgresStats
    let groupCommit: GroupCommitConfiguration
    nonisolated let writeQueue = WriteQueue()

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(url: String, index: Int, stats: PostgresStats, groupCommit: GroupCommitConfiguration) {
        slot = PostgresConnectionSlot(url: url, stats: stats)
        self.stats = stats
        self.groupCommit = groupCommit
        executor = QueueExecutor(label: "tern.store.postgres.\(index)")
    }

    /// Queues `body` for this connection's next batch; answers after that batch committed.
    nonisolated func write<T: Sendable>(
        _ body: @escaping @Sendable (any StoreTransaction) throws -> T
    ) async throws -> T {
        try await enqueue(body)
    }

    func commit(_ batch: [any BatchedWrite]) {
        do {
            GroupCommit.apply(batch, on: try PostgresBatching(slot: slot, stats: stats))
        } catch {
            for write in batch { write.fail(Self.unavailable(error)) }
        }
    }

    /// Runs `body` in one read-only transaction (a consistent snapshot), its `BEGIN` sent with the
    /// first statement. One that failed because the connection was lost (a database restart) runs
    /// once more on a fresh connection.
    func read<T: Sendable>(_ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                let connection = try slot.connected()
                do {
                    connection.discardHeld()
                    connection.holdUntilNext("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    let result = try body(connection)
                    try connection.execute("COMMIT")
                    return result
                } catch {
                    if connection.isOpen { try? connection.execute("ROLLBACK") } else { slot.drop() }
                    throw error
                }
            } catch let error as PostgresError {
                if error.isUnavailable || error.isRetryable, attempt < 3 { continue }
                throw Self.unavailable(error)
            }
        }
    }

    /// Runs `body` outside a transaction (health checks).
    func run<T: Sendable>(_ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            let connection = try slot.connected()
            do {
                return try body(connection)
            } catch {
                if !connection.isOpen { slot.drop() }
                throw error
            }
        } catch let error as PostgresError {
            throw Self.unavailable(error)
        }
    }

    /// Finishes the writes already accepted, then closes the connection.
    func close() {
        let batch = writeQueue.takeAll()
        if !batch.isEmpty { commit(batch) }
        slot.drop()
    }

    private static func unavailable(_ error: any Error) -> any Error {
        guard let error = error as? PostgresError else { return error }
        return error.storeError
    }
}
