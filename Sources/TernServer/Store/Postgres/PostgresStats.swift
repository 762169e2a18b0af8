import Foundation
import Synchronization

/// What `/metrics` shows about a PostgreSQL store: the pool's use and how long outbox claims take.
final class PostgresStats: Sendable {
    private struct State {
        var claimBuckets = [UInt64](repeating: 0, count: Metrics.buckets.count)
        var claimCount: UInt64 = 0
        var claimSeconds: Double = 0
        var claimed: UInt64 = 0
    }

    private let state = Mutex(State())
    private let roundTrips = Atomic<UInt64>(0)

    /// One connection waited once for the server.
    func recordRoundTrip() { roundTrips.add(1, ordering: .relaxed) }

    /// How many times the connections counted here waited for the server so far.
    var roundTripCount: UInt64 { roundTrips.load(ordering: .relaxed) }

    private let batchesRunAgain = Atomic<UInt64>(0)

    /// A batch of writes ran again with savepoints after one of its writes failed
    /// (``GroupCommit``): each such run repeats the batch's writes up to the failure.
    func recordBatchRunAgain() { batchesRunAgain.add(1, ordering: .relaxed) }

    /// Batches run again with savepoints so far.
    var batchesRunAgainCount: UInt64 { batchesRunAgain.load(ordering: .relaxed) }

    private let tablesAnalyzed = Atomic<UInt64>(0)

    /// ``PostgresStore/refreshStatistics()`` analyzed `count` tables that outgrew their statistics.
    func recordTablesAnalyzed(_ count: Int) { tablesAnalyzed.add(UInt64(count), ordering: .relaxed) }

    /// Tables analyzed for their growth so far.
    var tablesAnalyzedCount: UInt64 { tablesAnalyzed.load(ordering: .relaxed) }

    private let tokenMarksRechecked = Atomic<UInt64>(0)

    /// ``PostgresStore/recheckTokenMarks()`` took `count` subscriptions out of their audiences that
    /// a token mark had crossed.
    func recordTokenMarksRechecked(_ count: Int) { tokenMarksRechecked.add(UInt64(count), ordering: .relaxed) }

    /// Subscriptions taken out of their audiences by a second look at a token mark so far.
    var tokenMarksRecheckedCount: UInt64 { tokenMarksRechecked.load(ordering: .relaxed) }

    /// One claim transaction's statements, `seconds` long, that took `rows` deliveries.
    func recordClaim(seconds: Double, rows: Int) {
        state.withLock { state in
            if let index = Metrics.buckets.firstIndex(where: { seconds <= $0 }) { state.claimBuckets[index] += 1 }
            state.claimCount += 1
            state.claimSeconds += seconds
            state.claimed += UInt64(rows)
        }
    }

    /// Prometheus text: the pool gauges given, then the claim histogram.
    func render(inUse: Int, size: Int, waiting: Int, waits: UInt64) -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        out += "# HELP tern_db_pool_connections PostgreSQL connections of this node, by state.\n"
        out += "# TYPE tern_db_pool_connections gauge\n"
        out += "tern_db_pool_connections{state=\"in_use\"} \(inUse)\n"
        out += "tern_db_pool_connections{state=\"idle\"} \(size - inUse)\n"
        out += "# HELP tern_db_pool_waiting Transactions waiting for a free connection now.\n"
        out += "# TYPE tern_db_pool_waiting gauge\n"
        out += "tern_db_pool_waiting \(waiting)\n"
        out += "# HELP tern_db_pool_waits_total Transactions that had to wait for a connection.\n"
        out += "# TYPE tern_db_pool_waits_total counter\n"
        out += "tern_db_pool_waits_total \(waits)\n"
        out += "# HELP tern_db_round_trips_total Times this node's connections waited for PostgreSQL's answer.\n"
        out += "# TYPE tern_db_round_trips_total counter\n"
        out += "tern_db_round_trips_total \(roundTripCount)\n"
        out += "# HELP tern_db_batches_run_again_total Write batches run again with a savepoint per write"
        out += " after one of their writes failed.\n"
        out += "# TYPE tern_db_batches_run_again_total counter\n"
        out += "tern_db_batches_run_again_total \(batchesRunAgainCount)\n"
        out += "# HELP tern_db_tables_analyzed_total Tables this node analyzed because they held more than twice"
        out += " the rows their statistics said.\n"
        out += "# TYPE tern_db_tables_analyzed_total counter\n"
        out += "tern_db_tables_analyzed_total \(tablesAnalyzedCount)\n"
        out += "# HELP tern_db_token_marks_rechecked_total Subscriptions this node took out of their audiences"
        out += " on a second look at a token mark they had crossed.\n"
        out += "# TYPE tern_db_token_marks_rechecked_total counter\n"
        out += "tern_db_token_marks_rechecked_total \(tokenMarksRecheckedCount)\n"
        out += "# HELP tern_outbox_claim_seconds Time one outbox claim spends in the database.\n"
        out += "# TYPE tern_outbox_claim_seconds histogram\n"
        var cumulative: UInt64 = 0
        for (index, bound) in Metrics.buckets.enumerated() {
            cumulative += snapshot.claimBuckets[index]
            out += "tern_outbox_claim_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "tern_outbox_claim_seconds_bucket{le=\"+Inf\"} \(snapshot.claimCount)\n"
        out += "tern_outbox_claim_seconds_sum \(snapshot.claimSeconds)\n"
        out += "tern_outbox_claim_seconds_count \(snapshot.claimCount)\n"
        out += "# HELP tern_outbox_claimed_total Deliveries this node claimed from the outbox.\n"
        out += "# TYPE tern_outbox_claimed_total counter\n"
        out += "tern_outbox_claimed_total \(snapshot.claimed)\n"
        return out
    }
}

extension PostgresStore {
    /// The pool and claim metrics in Prometheus text, for `/metrics`.
    func metricsText() -> String {
        let use = poolUse()
        return stats.render(inUse: use.inUse, size: use.size, waiting: use.waiting, waits: use.waits)
    }
}
