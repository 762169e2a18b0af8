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
///
/// A pass that copies only part of the log leaves the pages it wrote to the database file unsynced
/// (SQLite syncs that file only when a checkpoint copied the whole log), so they piled up in the
/// page cache until the writer's checkpoint synced them all: under `push/subscribe` some 400 ms of
/// copies each time, 15–35 ms of `fdatasync` on the writer's thread every 400 ms, the requests'
/// p99. This thread syncs the file itself after its passes (``Pace/databaseSync``), so what the
/// writer's sync still finds is the last few milliseconds of copies.
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
        /// How long pages a pass copied may wait in the page cache before this thread syncs the
        /// database file (at most once per pass). Every 25 ms under `push/subscribe`, 1–4 ms each.
        var databaseSync: Duration = .milliseconds(25)

        func wait(after previous: Duration, logChanged: Bool) -> Duration {
            logChanged ? busy : min(idle, max(busy, previous * 2))
        }

        /// Whether to sync the database file after a pass: it holds copies no sync has covered
        /// (`copied`, the log's frames copied so far, moved since the last sync), and the last sync
        /// was `databaseSync` ago or longer. A pass cannot tell whether it copied the whole log
        /// (it reports the log as it found it, not what the writer added meanwhile), so after one
        /// that did, and SQLite synced the file itself, this sync finds little to write.
        func syncDatabase(copied: Int64, copiedAtLastSync: Int64, sinceLastSync: Duration) -> Bool {
            copied > 0 && copied != copiedAtLastSync && sinceLastSync >= databaseSync
        }
    }

    private struct State {
        var database: SQLiteDatabase?
        var stopped = false
        var databaseSyncs = 0
    }

    private let state: Mutex<State>

    init(path: String, pace: Pace = Pace()) throws {
        state = Mutex(State(database: try SQLiteDatabase(path: path)))
        let thread = Thread { [self] in run(pace: pace) }
        thread.name = "tern.store.checkpoint"
        thread.start()
    }

    /// How many times this thread synced the database file itself after a pass (tests).
    var databaseSyncs: Int { state.withLock { $0.databaseSyncs } }

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
        var copiedAtLastSync: Int64 = 0
        var lastSync = ContinuousClock.now
        while true {
            usleep(UInt32(wait.components.seconds * 1_000_000 + wait.components.attoseconds / 1_000_000_000_000))
            let round = state.withLock { state -> (stopped: Bool, log: Int64?) in
                guard !state.stopped, let database = state.database else { return (true, nil) }
                // One row: busy, frames in the log, frames copied. Busy or failing: no row, and the
                // next round (or the writer's own checkpoint) catches up.
                guard let row = try? database.queryFirst("PRAGMA wal_checkpoint(PASSIVE)"),
                    let log = row.int(1), let copied = row.int(2)
                else { return (false, nil) }
                let now = ContinuousClock.now
                if pace.syncDatabase(copied: copied, copiedAtLastSync: copiedAtLastSync, sinceLastSync: now - lastSync)
                {
                    // A failed sync is tried again after the next pass; the writer's checkpoint
                    // syncs the file before the log starts over in any case.
                    if (try? database.syncDatabaseFile()) != nil {
                        copiedAtLastSync = copied
                        lastSync = now
                        state.databaseSyncs += 1
                    }
                }
                return (false, log)
            }
            if round.stopped { return }
            wait = pace.wait(after: wait, logChanged: round.log != lastLog)
            lastLog = round.log ?? lastLog
        }
    }
}
