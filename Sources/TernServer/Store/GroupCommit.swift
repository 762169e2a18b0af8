import Foundation
import Synchronization

/// What a backend does for group commit: one transaction around a batch of writes, and a savepoint
/// around each write, so that one write's failure undoes only that write. SQLite answers it with
/// `BEGIN IMMEDIATE` / `SAVEPOINT` / `COMMIT`; PostgreSQL can answer it the same way on one
/// connection. Not `Sendable`: the writer that owns the connection calls it from one place.
protocol BatchingBackend {
    /// The queries, run on the batch's transaction.
    var transaction: any StoreTransaction { get }
    func beginBatch() throws
    func savepoint() throws
    func releaseSavepoint() throws
    /// Undoes what ran since `savepoint()` and leaves the savepoint (the batch goes on). Throws
    /// when the batch itself failed under the write (PostgreSQL: a held `SAVEPOINT` or `RELEASE`
    /// that went with the write's statement failed); the batch is then rolled back and its writes
    /// run alone.
    func rollbackToSavepoint() throws
    func commitBatch() throws
    /// Undoes the whole batch; never throws (a failed rollback leaves nothing to undo).
    func rollbackBatch()
    /// Maps a backend error (thrown by the calls above or by queries) to ``StoreError``.
    func storeError(_ error: any Error) -> any Error
    /// True for a backend error that says the write lost a race and may simply run again (a
    /// deadlock or serialization failure on PostgreSQL; SQLite has one writer and never says so).
    func mayRunAgain(_ error: any Error) -> Bool
    /// True when a batch should first run without savepoints, and only a batch in which a write
    /// failed runs again with one around each write (``GroupCommit``). Right where a failed
    /// statement aborts the whole transaction anyway and a savepoint is a subtransaction with a
    /// cost of its own: PostgreSQL. SQLite keeps what a failed write wrote before it failed, so
    /// its writes always need their savepoints.
    var savepointsOnlyAfterAFailure: Bool { get }
    /// A batch run without savepoints was rolled back for a write's failure and runs again with
    /// them (a count for `/metrics`).
    func willRunAgainWithSavepoints()
}

extension BatchingBackend {
    func mayRunAgain(_ error: any Error) -> Bool { false }
    var savepointsOnlyAfterAFailure: Bool { false }
    func willRunAgainWithSavepoints() {}
}

/// How writes are grouped: at most `maxWrites` in one transaction, and a writer that finds fewer
/// waiting may wait up to `maxWait` for more (zero: take what is there, so an idle server answers
/// at once; under load the queue fills while the previous batch runs).
public struct GroupCommitConfiguration: Sendable, Equatable {
    var maxWrites: Int
    var maxWait: Duration

    /// - Parameters:
    ///   - maxWrites: Writes at most in one transaction (at least 1); 256 by default.
    ///   - maxWait: How long a writer waits for more writes to join; zero (none) by default.
    public init(maxWrites: Int = 256, maxWait: Duration = .zero) {
        self.maxWrites = max(1, maxWrites)
        self.maxWait = maxWait
    }
}

/// How group commit went so far.
struct GroupCommitStatistics: Sendable, Equatable {
    var batches = 0
    var writes = 0
    var largestBatch = 0
}

/// One caller's write waiting for its batch: its body, and the continuation answered after the
/// batch committed (or failed).
protocol BatchedWrite: AnyObject, Sendable {
    /// Runs the body on `transaction` and keeps its value; throws what the body threw.
    func apply(_ transaction: any StoreTransaction) throws
    /// The batch committed: answer the kept value.
    func succeed()
    func fail(_ error: any Error)
}

final class PendingWrite<T: Sendable>: BatchedWrite {
    private let body: @Sendable (any StoreTransaction) throws -> T
    private let continuation: CheckedContinuation<T, any Error>
    /// Set and read by the writer only; behind a lock so that the write can be handed between threads.
    private let value = Mutex<T?>(nil)

    init(
        _ body: @escaping @Sendable (any StoreTransaction) throws -> T,
        _ continuation: CheckedContinuation<T, any Error>
    ) {
        self.body = body
        self.continuation = continuation
    }

    func apply(_ transaction: any StoreTransaction) throws {
        let result = try body(transaction)
        value.withLock { $0 = result }
    }

    func succeed() {
        guard let value = value.withLock({ $0 }) else {
            return fail(StoreError.backend("a batched write committed without a value"))
        }
        continuation.resume(returning: value)
    }

    func fail(_ error: any Error) {
        continuation.resume(throwing: error)
    }
}

/// The writes waiting for a writer's next batch, behind a lock rather than the writer's actor: a
/// caller adds its write without a hop onto the writer's queue, and, suspended outside the actor,
/// is resumed straight on its own executor when the batch committed (through the actor it took
/// two more jobs on the writer's serial queue per write, between the batches).
final class WriteQueue: Sendable {
    private struct State {
        var writes: [any BatchedWrite] = []
        /// True while a drain runs (it ends when nothing waits).
        var draining = false
    }

    private let state = Mutex(State())

    /// Adds `write`; true when no drain runs, so the caller must start one.
    func add(_ write: any BatchedWrite) -> Bool {
        state.withLock { state in
            state.writes.append(write)
            defer { state.draining = true }
            return !state.draining
        }
    }

    /// How many writes wait.
    var count: Int { state.withLock { $0.writes.count } }

    /// Up to `limit` waiting writes, oldest first; nil when none wait, and the drain has ended then
    /// (the next write added starts another).
    func next(_ limit: Int) -> [any BatchedWrite]? {
        state.withLock { state in
            guard !state.writes.isEmpty else {
                state.draining = false
                return nil
            }
            let count = min(state.writes.count, limit)
            defer { state.writes.removeFirst(count) }
            return Array(state.writes.prefix(count))
        }
    }

    /// Takes every waiting write (a writer closing finishes them first: their callers wait).
    func takeAll() -> [any BatchedWrite] {
        state.withLock { state in
            defer { state.writes = [] }
            return state.writes
        }
    }
}

/// A writer that group-commits: an actor owning one connection (the SQLite store, a PostgreSQL
/// session). Its callers' writes wait in `writeQueue`; while one batch runs, the next fills.
protocol GroupCommitWriter: Actor {
    var groupCommit: GroupCommitConfiguration { get }
    /// Writes waiting for the next batch, oldest first.
    nonisolated var writeQueue: WriteQueue { get }
    /// Applies one batch (`GroupCommit.apply` on the writer's connection).
    func commit(_ batch: [any BatchedWrite])
}

extension GroupCommitWriter {
    /// Queues `body` for the next batch; answers after that batch committed.
    nonisolated func enqueue<T: Sendable>(
        _ body: @escaping @Sendable (any StoreTransaction) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            if writeQueue.add(PendingWrite(body, continuation)) {
                Task { await drain() }
            }
        }
    }

    /// Applies what is waiting, batch after batch, until nothing is. Between batches it lets the
    /// actor's other jobs run (closing, a health check's query): writes arrive without the actor
    /// now, so under a steady load the queue would never be empty for them.
    private func drain() async {
        while true {
            if groupCommit.maxWait > .zero, writeQueue.count < groupCommit.maxWrites {
                try? await Task.sleep(for: groupCommit.maxWait)
            }
            guard let batch = writeQueue.next(groupCommit.maxWrites) else { return }
            commit(batch)
            await Task.yield()
        }
    }
}

/// Applies a batch of writes in one transaction. Each write runs under its own savepoint: a write
/// that throws is rolled back to its savepoint and answered with its error alone; the others commit
/// together and are answered only after the commit (an acknowledged write is durable). When the
/// batch itself cannot be committed (or a savepoint cannot be undone), it is rolled back and every
/// write that had succeeded runs again alone, in its own transaction, so no write fails for a
/// batch-mate's sake. A write that lost a race with another connection's transaction (a deadlock:
/// two batches locking the same rows in other orders) is not failed for it: it runs again alone
/// once its batch has committed and let go of its locks, up to ``attempts`` times in all.
///
/// On a backend whose savepoints cost more than a rare second run
/// (``BatchingBackend/savepointsOnlyAfterAFailure``), a batch first runs without them; only when a
/// write fails is it rolled back and run again, each write under its own savepoint as above.
enum GroupCommit {
    /// How many times a write that lost a race runs before its error is the answer.
    static let attempts = 4

    static func apply(_ batch: [any BatchedWrite], on backend: some BatchingBackend) {
        if batch.count == 1 {
            return applyAlone(batch[0], on: backend)
        }
        if backend.savepointsOnlyAfterAFailure {
            switch applyWithoutSavepoints(batch, on: backend) {
            case .committed:
                return batch.forEach { $0.succeed() }
            case .commitFailed:
                // As when a batch with savepoints cannot commit: each write runs alone.
                return batch.forEach { applyAlone($0, on: backend) }
            case .aWriteFailed:
                backend.willRunAgainWithSavepoints()  // rolled back: below, each under its savepoint
            }
        }
        applyWithSavepoints(batch, on: backend)
    }

    private enum Outcome {
        case committed, aWriteFailed, commitFailed
    }

    /// The batch in one transaction with no savepoint: the first write that throws rolls it all
    /// back (nothing is answered yet), for the caller to run it again with savepoints.
    private static func applyWithoutSavepoints(
        _ batch: [any BatchedWrite], on backend: some BatchingBackend
    ) -> Outcome {
        do {
            try backend.beginBatch()
            for write in batch {
                try write.apply(backend.transaction)
            }
        } catch {
            backend.rollbackBatch()
            return .aWriteFailed
        }
        do {
            try backend.commitBatch()
        } catch {
            backend.rollbackBatch()
            return .commitFailed
        }
        return .committed
    }

    private static func applyWithSavepoints(_ batch: [any BatchedWrite], on backend: some BatchingBackend) {
        var failures: [ObjectIdentifier: any Error] = [:]
        var again: Set<ObjectIdentifier> = []
        do {
            try backend.beginBatch()
            for write in batch {
                try backend.savepoint()
                do {
                    try write.apply(backend.transaction)
                } catch {
                    // First: when the batch itself failed under this write (PostgreSQL's held
                    // savepoint statements), this throws, and the write runs again alone.
                    try backend.rollbackToSavepoint()
                    if backend.mayRunAgain(error) {
                        again.insert(ObjectIdentifier(write))
                    } else {
                        failures[ObjectIdentifier(write)] = backend.storeError(error)
                    }
                    continue
                }
                try backend.releaseSavepoint()
            }
            try backend.commitBatch()
        } catch {
            // The batch as a whole failed: nothing of it is kept. Writes that had failed on their
            // own keep their answer; the rest run alone.
            backend.rollbackBatch()
            for write in batch {
                if let failure = failures[ObjectIdentifier(write)] {
                    write.fail(failure)
                } else {
                    applyAlone(write, on: backend, attempt: again.contains(ObjectIdentifier(write)) ? 2 : 1)
                }
            }
            return
        }
        for write in batch {
            if let failure = failures[ObjectIdentifier(write)] {
                write.fail(failure)
            } else if again.contains(ObjectIdentifier(write)) {
                applyAlone(write, on: backend, attempt: 2)
            } else {
                write.succeed()
            }
        }
    }

    /// A random pause, in microseconds, before a write that lost a race on its own runs again:
    /// up to 20 ms after the first run, doubling with each. Two writers that timed out waiting for
    /// each other did so at the same moment; run again at once, they would take their first rows
    /// at the same moment and meet again, every time. Apart, one finishes while the other waits.
    static func pauseBeforeRunningAgain(after attempt: Int) -> UInt32 {
        UInt32.random(in: 0...(20_000 << min(attempt - 1, 4)))
    }

    /// One write in its own transaction; `attempt` counts the runs so far, this one included.
    static func applyAlone(_ write: any BatchedWrite, on backend: some BatchingBackend, attempt: Int = 1) {
        do {
            try backend.beginBatch()
            do {
                try write.apply(backend.transaction)
                try backend.commitBatch()
            } catch {
                backend.rollbackBatch()
                throw error
            }
        } catch {
            if attempt < attempts, backend.mayRunAgain(error) {
                usleep(pauseBeforeRunningAgain(after: attempt))
                return applyAlone(write, on: backend, attempt: attempt + 1)
            }
            return write.fail(backend.storeError(error))
        }
        write.succeed()
    }
}
