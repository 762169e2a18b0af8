import Foundation
import Synchronization
import TernSQLite

/// Copies the write-ahead log back into the database file from a thread of its own, on its own
/// connection. SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold, on
/// the store's one writer, and its fsyncs stall every write queued behind it (the profile of
/// `push/subscribe` showed fdatasync and page writes as the writer's largest cost). A PASSIVE
/// checkpoint never blocks the writer; the writer's own automatic checkpoint stays on, at a
/// higher threshold, as the fallback when this thread cannot keep up.
///
/// The writer's checkpoint still runs whenever the log reaches its threshold: only a writer can
/// start the log again from its beginning, once every frame is copied, and under a steady load this
/// thread never finds the log without a frame it has not copied. What that checkpoint costs is the
/// frames written since this thread's last pass, so the thread keeps close behind the writer while
/// the log grows (``Pace``): every 250 ms, the writer's checkpoints copied up to a quarter of a
/// second of writes and took up to 40 ms, push/subscribe's p99 at 50 connections was 33–38 ms; every
/// 5 ms, 13–17 ms, at the same rate.
final class WALCheckpointer: Sendable {
    /// Pages the WAL may hold before the writer checkpoints by itself (64 MiB of 4 KiB pages).
    /// That checkpoint copies only what this thread has not yet, but it syncs the log and the
    /// database file on the writer's thread (5–25 ms, at times over 100 ms), and every write
    /// queued meanwhile waits for it. Under `event/push` the log grows by some 27,000 pages a
    /// second: at 4,000 pages the writer checkpointed every 150 ms, one batch in forty waited for
    /// it, and that wait was the writes' p99 (14–20 ms in the handler); at 16,000, every 600 ms and
    /// a p99 of 4–9 ms, at the same rate. A longer log costs a read one more hash lookup in the log's
    /// index for every 4,096 pages.
    static let writerThreshold = 16_000

    /// How long the thread waits before its next checkpoint: `busy` while the log grows, and, once
    /// it stops growing, twice as long each time up to `idle` (a server at rest wakes four times a
    /// second).
    struct Pace: Equatable {
        var busy: Duration = .milliseconds(5)
        var idle: Duration = .milliseconds(250)

        func wait(after previous: Duration, logChanged: Bool) -> Duration {
            logChanged ? busy : min(idle, max(busy, previous * 2))
        }
    }

    private let state: Mutex<(database: SQLiteDatabase?, stopped: Bool)>

    init(path: String, pace: Pace = Pace()) throws {
        state = Mutex((try SQLiteDatabase(path: path), false))
        let thread = Thread { [self] in run(pace: pace) }
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

    private func run(pace: Pace) {
        var wait = pace.busy
        var lastLog: Int64 = -1
        while true {
            usleep(UInt32(wait.components.seconds * 1_000_000 + wait.components.attoseconds / 1_000_000_000_000))
            let round = state.withLock { state -> (stopped: Bool, log: Int64?) in
                guard !state.stopped, let database = state.database else { return (true, nil) }
                // One row: busy, frames in the log, frames copied. Busy or failing: no row, and the
                // next round (or the writer's own checkpoint) catches up.
                return (false, try? database.queryFirst("PRAGMA wal_checkpoint(PASSIVE)")?.int(1))
            }
            if round.stopped { return }
            wait = pace.wait(after: wait, logChanged: round.log != lastLog)
            lastLog = round.log ?? lastLog
        }
    }
}
