import Foundation
import TernProtocol
import TernSQLite

/// Delivery outcomes: which attempt still holds a delivery (its queue entry or its chunk's lease),
/// and what an outcome writes (`SQLTransaction+Delivery.swift` has the fan-out's writes and claims).
extension SQLTransaction {
    /// Writes outcomes without rewriting the delivery's row. Each is written only while the
    /// attempt it names still holds the delivery:
    ///
    /// - a delivery claimed from the queue is held by its queue entry (`sending`, that attempt,
    ///   that message): a final outcome deletes the entry, a retry queues it again;
    /// - a delivery a fan-out handed straight to its senders (first attempt, no entry) is held by
    ///   its chunk's lease (`delivery_leases`) until a claim finds the lease lapsed and queues what
    ///   is left of it; a retry then puts the delivery in the queue.
    ///
    /// Every outcome written is appended to `delivery_outcomes` (a retry's too, with its reason).
    ///
    /// Why the state is not in the delivery's row (issue 18, docs/scaling.md "The outbox's rows"):
    /// updating the row wrote a new version of it and of its index entries, which PostgreSQL later
    /// vacuums: 79–138 µs a delivery of the database's CPU in a harness of the engine's statements,
    /// against 62–67 for a row written once, a queue entry inserted and deleted, and an outcome
    /// appended; a lease a chunk instead of an entry a delivery leaves the insert and the delete to
    /// retries and lapsed leases.
    func updateDeliveries(_ updates: [DeliveryUpdate], now: Int64) throws -> Set<Int64> {
        guard !updates.isEmpty else { return [] }
        // The fan-out's leases first: most outcomes are of first attempts it handed out, and the
        // queue has no entry for them (asking it first cost a statement a batch for nothing).
        let leased = try leasedOutcomes(updates.filter { $0.attempt == 1 }, now: now)
        var held = Set(leased.map(\.id))
        let rest = updates.filter { !held.contains($0.id) }
        for rows in RowGroups(rest.filter { $0.status != .queued }) {
            var parameters: [any SQLiteBindable] = []
            parameters.reserveCapacity(rows.count * 3)
            for update in rows { parameters += [update.id, update.messageId, update.attempt] as [any SQLiteBindable] }
            held.formUnion(
                try database.query(Self.leaveQueueSQL(rows: rows.count), parameters).map { $0.requiredInt(0) })
        }
        for update in rest where update.status == .queued {
            let again = try database.run(
                """
                UPDATE delivery_queue SET status = 'queued', due_at = ?, updated_at = ?
                WHERE delivery_id = ? AND message_id = ? AND attempts = ? AND status = 'sending'
                """, [Self.dueAt(update, now: now), now, update.id, update.messageId, update.attempt])
            if again > 0 { held.insert(update.id) }
        }
        let fromQueue = rest.filter { held.contains($0.id) }
        for rows in RowGroups(fromQueue) {
            try database.runBeforeNext(DeliveryTexts.outcomes[rows.count], Self.outcomeValues(rows, now: now))
        }
        var moves = DeliveryCountMoves()
        for update in leased + fromQueue {
            // Only deliveries in `sending` are held, so each one moves from there.
            moves.move(messageId: update.messageId, from: .sending, to: update.status, count: 1)
            // Queued again (a retry): the message is due again then, maybe before its lease ran out.
            if let dueAt = Self.dueAt(update, now: now) { try dueAgain(messageId: update.messageId, at: dueAt) }
        }
        try count(moves)
        return held
    }

    /// Writes the first attempts' outcomes that a live lease of their message covers, once each (a
    /// repeated answer changes nothing), and queues the retries among them; returns those written.
    ///
    /// Those sent without an id of the provider's own (APNs: the `apns-id` Tern made) are written
    /// as runs of adjacent ids in one lease, a row a run in `delivery_sent_runs`, not a row each in
    /// `delivery_outcomes` (``SQLiteMigrations/sentRuns`` says why); the others are appended there.
    private func leasedOutcomes(_ updates: [DeliveryUpdate], now: Int64) throws -> [DeliveryUpdate] {
        guard !updates.isEmpty else { return [] }
        var fresh: [DeliveryUpdate] = []
        var runs: [SentRun] = []
        var inRuns: Set<Int64> = []
        for (messageId, group) in Dictionary(grouping: updates, by: \.messageId).sorted(by: { $0.key < $1.key }) {
            let ids = group.map(\.id)
            let (low, high) = (ids.min() ?? 0, ids.max() ?? 0)
            // The leases the ids fall in: the chunk's, and those written after it still running.
            let leases = try database.query(
                """
                SELECT first_id, last_id FROM delivery_leases WHERE message_id = ? AND last_id >= ? AND first_id <= ?
                ORDER BY last_id \(leaseLock)
                """, [messageId, low, high]
            ).map { $0.requiredInt(0)...$0.requiredInt(1) }
            guard let reach = leases.last?.upperBound else { continue }
            let answered = try answeredFirstAttempts(messageId: messageId, from: low, to: high, reach: reach)
            var seen: Set<Int64> = []
            var sent: [(id: Int64, lease: Int)] = []
            for update in group {
                guard let lease = leases.firstIndex(where: { $0.contains(update.id) }),
                    !answered.contains(where: { $0.contains(update.id) }), seen.insert(update.id).inserted
                else { continue }
                fresh.append(update)
                if update.status == .sent, update.reason == nil, update.providerMessageId == nil {
                    sent.append((update.id, lease))
                    inRuns.insert(update.id)
                }
            }
            runs += SentRun.runs(of: sent.sorted { $0.id < $1.id }, messageId: messageId, at: now)
        }
        var written = inRuns
        for rows in RowGroups(runs) {
            try database.runBeforeNext(DeliveryTexts.sentRuns[rows.count], rows.flatMap(\.values))
        }
        for rows in RowGroups(fresh.filter { !inRuns.contains($0.id) }) {
            written.formUnion(
                try database.query(
                    DeliveryTexts.leasedOutcomes[rows.count],
                    Self.outcomeValues(rows, now: now)
                ).map { $0.requiredInt(0) })
        }
        for update in fresh where update.status == .queued && written.contains(update.id) {
            try database.run(
                """
                INSERT INTO delivery_queue (delivery_id, message_id, status, attempts, due_at, updated_at)
                VALUES (?, ?, 'queued', ?, ?, ?)
                """, [update.id, update.messageId, update.attempt, Self.dueAt(update, now: now), now])
        }
        return fresh.filter { written.contains($0.id) }
    }

    /// The message's first attempts between `low` and `high` that have an outcome already: the
    /// runs that reach into that range (none goes past its lease, so none ends after `reach`, the
    /// last lease's end) and the outcomes appended for attempt 1.
    private func answeredFirstAttempts(messageId: Int64, from low: Int64, to high: Int64, reach: Int64) throws
        -> [ClosedRange<Int64>]
    {
        try database.query(
            """
            SELECT first_id, last_id FROM delivery_sent_runs
            WHERE message_id = ? AND last_id >= ? AND last_id <= ? AND first_id <= ?
            UNION ALL
            SELECT delivery_id, delivery_id FROM delivery_outcomes WHERE delivery_id >= ? AND delivery_id <= ? AND attempt = 1
            """, [messageId, low, reach, high, low, high]
        ).map { $0.requiredInt(0)...$0.requiredInt(1) }
    }

    /// Takes the deliveries whose final outcomes these are out of the queue, each only while its
    /// attempt holds it, and returns their ids. Binds per row: id, message, attempt (cast, so that
    /// PostgreSQL knows their types in the VALUES list).
    ///
    /// Each dialect in the form it plans as a lookup of each entry by its key: PostgreSQL joins the
    /// VALUES list (`USING`), which SQLite's `DELETE` does not have; SQLite answers a row value's
    /// `IN` alone by scanning the table, so the ids' own `IN` comes first, and PostgreSQL planned
    /// that form as a join of every outcome with every other (7.7–11.8 against 5.5–7.4 µs a row).
    static func leaveQueueSQL(rows: Int) -> String {
        let values = Array(
            repeating: "(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT))", count: rows
        ).joined(separator: ", ")
        return switch dialect {
        case .sqlite:
            """
            WITH outcome (id, message_id, attempts) AS (VALUES \(values))
            DELETE FROM delivery_queue
            WHERE delivery_id IN (SELECT id FROM outcome)
                AND (delivery_id, message_id, attempts) IN (SELECT id, message_id, attempts FROM outcome)
                AND status = 'sending'
            RETURNING delivery_id
            """
        case .postgres:
            """
            DELETE FROM delivery_queue q USING (VALUES \(values)) AS outcome (id, message_id, attempts)
            WHERE q.delivery_id = outcome.id AND q.message_id = outcome.message_id AND q.attempts = outcome.attempts
                AND q.status = 'sending'
            RETURNING q.delivery_id
            """
        }
    }

    /// The parameters of ``DeliveryTexts/outcomes`` for these rows.
    private static func outcomeValues(_ rows: ArraySlice<DeliveryUpdate>, now: Int64) -> [any SQLiteBindable] {
        var values: [any SQLiteBindable] = []
        values.reserveCapacity(rows.count * 7)
        // One append a value: an array literal a row was an allocation an outcome.
        for update in rows {
            values.append(update.id)
            values.append(update.attempt)
            values.append(update.messageId)
            values.append(update.status.rawValue)
            values.append(update.reason)
            values.append(update.providerMessageId)
            values.append(now)
        }
        return values
    }

    /// When an outcome's delivery is due again: a retry's time (now when it has none); nil otherwise.
    private static func dueAt(_ update: DeliveryUpdate, now: Int64) -> Int64? {
        update.status == .queued ? update.dueAt ?? now : nil
    }
}

/// Adjacent first attempts of one message and one lease, all sent without an id of the
/// provider's own: one row of `delivery_sent_runs`.
struct SentRun: Equatable {
    let messageId: Int64
    let first: Int64
    let last: Int64
    let at: Int64

    /// The runs of `sent`, in id order: a new run where an id is not the one after the last, or
    /// falls in another lease (a run never reaches past its lease, which the lapsed lease's
    /// recovery reads by).
    static func runs(of sent: [(id: Int64, lease: Int)], messageId: Int64, at: Int64) -> [SentRun] {
        var runs: [SentRun] = []
        var start = 0
        for index in sent.indices {
            let next = index + 1
            if next == sent.count || sent[next].id != sent[index].id + 1 || sent[next].lease != sent[index].lease {
                runs.append(SentRun(messageId: messageId, first: sent[start].id, last: sent[index].id, at: at))
                start = next
            }
        }
        return runs
    }

    /// Its parameters in ``DeliveryTexts/sentRuns``' order.
    var values: [any SQLiteBindable] { [messageId, last, first, at] }
}
