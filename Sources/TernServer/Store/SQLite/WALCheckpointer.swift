import Foundation
import Synchronization
import TernSQLite

/// Copies the write-ahead log back into the database file from a thread of its own, on its own
/// connection. SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold, on
/// the store's one writer, and its fsyncs stall every write queued behind it (the profile of
/// `push/subscribe` showed fdatasync and page writes as the writer's largest cost). A PASSIVE
/// checkpoint never blocks the writer; the writer's own automatic checkpoint stays on, at a
/// higher threshold, as the fallback when this thread cannot keep up.
final class WALCheckpointer: Sendable {
    /// Pages the WAL may hold before the writer checkpoints by itself.
    static let writerThreshold = 10_000

    private let state: Mutex<(database: SQLiteDatabase?, stopped: Bool)>

    init(path: String, interval: Duration = .milliseconds(250)) throws {
        state = Mutex((try SQLiteDatabase(path: path), false))
        let thread = Thread { [self] in run(interval: interval) }
        thread.name = "tern.store.checkpoint"
        thread.start()
    }

    /// Stops the thread and closes its connection (waits for a checkpoint in progress).
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.database = nil
        }
    }

    private func run(interval: Duration) {
        let microseconds = UInt32(
            interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        while true {
            usleep(microseconds)
            let stopped = state.withLock { state -> Bool in
                guard !state.stopped, let database = state.database else { return true }
                // Busy or failing: the next round (or the writer's own checkpoint) catches up.
                try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")
                return false
            }
            if stopped { return }
        }
    }
}
