import Foundation
import TernProtocol
import TernSQLite

extension SQLTransaction {
    /// Messages due take turns: the least recently served first, each up to an equal share of
    /// `limit`, then the share of those that ran dry goes to the others; within a message, oldest
    /// due first. The messages served go to the back of the round.
    func claimInTurns(limit: Int, now: Int64, leaseUntil: Int64) throws -> [ClaimedDelivery] {
        let due = try database.query(
            """
            SELECT message_id FROM delivery_turns WHERE next_due <= ? ORDER BY turn, message_id LIMIT 64
            \(claimLocks.turns)
            """, [now]
        ).map { $0.requiredInt(0) }
        guard !due.isEmpty, limit > 0 else { return [] }
        var claimed: [ClaimedDelivery] = []
        var hungry = due
        while claimed.count < limit, !hungry.isEmpty {
            let share = max(1, (limit - claimed.count) / hungry.count)
            var stillHungry: [Int64] = []
            for messageId in hungry where claimed.count < limit {
                let want = min(share, limit - claimed.count)
                let rows = try claim(messageId: messageId, limit: want, now: now, leaseUntil: leaseUntil)
                claimed += rows
                if rows.count == want { stillHungry.append(messageId) }
            }
            hungry = stillHungry
        }
        let last = try database.queryFirst("SELECT MAX(turn) FROM delivery_turns", [])?.int(0) ?? 0
        for (offset, messageId) in due.enumerated() {
            try served(messageId: messageId, turn: last + 1 + Int64(offset))
        }
        return claimed.sorted { $0.id < $1.id }
    }

    /// Queued deliveries first, then those whose lease ran out: each statement knows the status it
    /// takes its rows from, so the message's counts move with them.
    private func claim(messageId: Int64, limit: Int, now: Int64, leaseUntil: Int64) throws -> [ClaimedDelivery] {
        var claimed: [ClaimedDelivery] = []
        for status in [DeliveryStatus.queued, .sending] where claimed.count < limit {
            // `status IN (…)` lets SQLite see that the partial index `deliveries_message_due` holds the
            // rows; the status is written into the text, not bound, as SQLite prepares a statement again
            // for each new value of a parameter that decides whether a partial index can be used.
            let rows = try database.query(
                """
                UPDATE deliveries SET status = 'sending', attempts = attempts + 1, due_at = ?, updated_at = ?
                WHERE id IN (
                    SELECT id FROM deliveries
                    WHERE message_id = ? AND status IN ('queued', 'sending') AND status = '\(status.rawValue)'
                        AND due_at <= ?
                    ORDER BY due_at, id LIMIT ? \(claimLocks.deliveries))
                RETURNING id, message_id, subscription_id, provider, token, attempts
                """, [leaseUntil, now, messageId, now, limit - claimed.count]
            ).map { row in
                ClaimedDelivery(
                    id: row.requiredInt(0), messageId: row.requiredInt(1), subscriptionId: row.requiredInt(2),
                    provider: try PushProvider.storedPush(row.requiredString(3)), token: row.requiredString(4),
                    attempt: Int(row.requiredInt(5)))
            }
            if status == .queued {
                try count(
                    DeliveryCountMoves(messageId: messageId, from: .queued, to: .sending, count: Int64(rows.count)))
            }
            claimed += rows
        }
        return claimed
    }

    /// After a claim: the message moves to the back of the round, due again when its earliest
    /// queued or leased delivery is; with none left it leaves the turns.
    private func served(messageId: Int64, turn: Int64) throws {
        let next = try database.queryFirst(
            "SELECT MIN(due_at) FROM deliveries WHERE message_id = ? AND status IN ('queued', 'sending')",
            [messageId])?.int(0)
        if let next {
            try database.run(
                "UPDATE delivery_turns SET next_due = ?, turn = ? WHERE message_id = ?", [next, turn, messageId])
        } else {
            try database.run("DELETE FROM delivery_turns WHERE message_id = ?", [messageId])
        }
    }

    func insertDeliveries(messageId: Int64, targets: [DeliveryTarget], now: Int64) throws -> Int {
        var inserted = 0
        for rows in RowGroups(targets) {
            inserted += try database.run(
                Self.insertDeliveriesSQL(rows: rows.count, status: .queued, attempts: 0),
                rows.flatMap { target -> [any SQLiteBindable] in
                    [messageId, target.subscriptionId, target.provider.rawValue, target.token, now, now]
                })
        }
        if inserted > 0 {
            try count(DeliveryCountMoves(messageId: messageId, from: nil, to: .queued, count: Int64(inserted)))
            try dueAgain(messageId: messageId, at: now)
        }
        return inserted
    }

    func insertLeasedDeliveries(messageId: Int64, targets: [DeliveryTarget], now: Int64, leaseUntil: Int64) throws
        -> [ClaimedDelivery]
    {
        var inserted: [ClaimedDelivery] = []
        for rows in RowGroups(targets) {
            inserted += try database.query(
                Self.insertDeliveriesSQL(rows: rows.count, status: .sending, attempts: 1)
                    + " RETURNING id, subscription_id, provider, token",
                rows.flatMap { target -> [any SQLiteBindable] in
                    [messageId, target.subscriptionId, target.provider.rawValue, target.token, leaseUntil, now]
                }
            ).map { row in
                ClaimedDelivery(
                    id: row.requiredInt(0), messageId: messageId, subscriptionId: row.requiredInt(1),
                    provider: try PushProvider.storedPush(row.requiredString(2)), token: row.requiredString(3),
                    attempt: 1)
            }
        }
        if !inserted.isEmpty {
            try count(DeliveryCountMoves(messageId: messageId, from: nil, to: .sending, count: Int64(inserted.count)))
            // In the turns from the lease's end, as a claimed delivery is: a sender that dies leaves it
            // to be claimed again then.
            try dueAgain(messageId: messageId, at: leaseUntil)
        }
        return inserted
    }

    /// A device gets a message once: a row already written for its provider and token is skipped.
    /// Binds per row: message, subscription, provider, token, due_at, updated_at.
    private static func insertDeliveriesSQL(rows: Int, status: DeliveryStatus, attempts: Int) -> String {
        let values = Array(repeating: "(?, ?, ?, ?, '\(status.rawValue)', \(attempts), ?, ?)", count: rows)
        return """
            INSERT INTO deliveries (message_id, subscription_id, provider, token, status, attempts, due_at, updated_at)
            VALUES \(values.joined(separator: ", "))
            ON CONFLICT (message_id, provider, token) DO NOTHING
            """
    }

    /// The message has deliveries due at `at` (new, or queued again): it joins the turns, or its
    /// next due time moves earlier. A new message's turn is 0, before every message served since.
    func dueAgain(messageId: Int64, at: Int64) throws {
        try database.run(
            """
            INSERT INTO delivery_turns (message_id, next_due, turn) VALUES (?, ?, 0)
            ON CONFLICT (message_id) DO UPDATE
                SET next_due = \(Self.smaller("delivery_turns.next_due", "excluded.next_due"))
            """, [messageId, at])
    }

    /// Writes the outcomes without reading a row back when every one of them still holds its row
    /// (the rule: an outcome is late only when a lease ran out first). `RETURNING` made SQLite copy
    /// each written row into a table of results, and Tern read it back, for what the outcomes say
    /// already: a third of the statement's time. When fewer rows changed than there are outcomes,
    /// the writes are undone and made again, returning the rows they wrote.
    func updateDeliveries(_ updates: [DeliveryUpdate], now: Int64) throws -> Set<Int64> {
        guard !updates.isEmpty else { return [] }
        try database.run("SAVEPOINT tern_outcomes", [])
        var changed = 0
        for rows in RowGroups(updates) {
            changed += try database.run(Self.updateDeliveriesSQL(rows: rows.count), Self.outcomeValues(rows, now: now))
        }
        if changed == updates.count {
            try database.run("RELEASE tern_outcomes", [])
            var moves = DeliveryCountMoves()
            for update in updates {
                // Only rows in `sending` are written, so each one moves from there.
                moves.move(messageId: update.messageId, from: .sending, to: update.status, count: 1)
                // Queued again (a retry): the message is due again then, maybe before its lease ran out.
                if let dueAt = Self.dueAt(update, now: now) { try dueAgain(messageId: update.messageId, at: dueAt) }
            }
            try count(moves)
            return Set(updates.map(\.id))
        }
        try database.run("ROLLBACK TO tern_outcomes", [])
        try database.run("RELEASE tern_outcomes", [])
        var held: Set<Int64> = []
        var moves = DeliveryCountMoves()
        for rows in RowGroups(updates) {
            let written = try database.query(
                Self.updateDeliveriesSQL(rows: rows.count) + " RETURNING deliveries.id",
                Self.outcomeValues(rows, now: now))
            held.formUnion(written.map { $0.requiredInt(0) })
        }
        for update in updates where held.contains(update.id) {
            moves.move(messageId: update.messageId, from: .sending, to: update.status, count: 1)
            if let dueAt = Self.dueAt(update, now: now) { try dueAgain(messageId: update.messageId, at: dueAt) }
        }
        try count(moves)
        return held
    }

    /// Writes each outcome whose row its attempt still holds (`sending`, the same attempt, the same
    /// message). Binds per row: id, message, attempt, status, reason, provider message id, due at;
    /// then the time, and on PostgreSQL `sending`. The values are cast so that PostgreSQL knows their
    /// types in the VALUES list.
    ///
    /// On PostgreSQL `sending` is bound, not written in the text: with the literal, PostgreSQL may
    /// read the rows through `deliveries_message_due` (whose condition, queued or sending, the literal
    /// satisfies), and plans chosen while the table was small did, for every outcome: they walked
    /// every unsent delivery of the message (bench/server/plans.sh, docs/scaling.md). A bound status
    /// leaves that index out of its generic plans. SQLite keeps the literal: it compiles a statement
    /// again at every run when a bound value decides whether a partial index applies.
    static func updateDeliveriesSQL(rows: Int) -> String {
        let values = Array(
            repeating: "(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), "
                + "CAST(? AS TEXT), CAST(? AS BIGINT))", count: rows
        ).joined(separator: ", ")
        return """
            WITH outcome (id, message_id, attempts, status, reason, provider_message_id, due_at) AS (VALUES \(values))
            UPDATE deliveries SET status = outcome.status, reason = outcome.reason,
                provider_message_id = outcome.provider_message_id, due_at = outcome.due_at, updated_at = ?
            FROM outcome
            WHERE deliveries.id = outcome.id AND deliveries.message_id = outcome.message_id
                AND deliveries.attempts = outcome.attempts AND deliveries.status = \(Self.dialect == .postgres ? "?" : "'sending'")
            """
    }

    private static func outcomeValues(_ rows: ArraySlice<DeliveryUpdate>, now: Int64) -> [any SQLiteBindable] {
        var values: [any SQLiteBindable] = []
        values.reserveCapacity(rows.count * 7 + 1)
        for update in rows {
            values +=
                [
                    update.id, update.messageId, update.attempt, update.status.rawValue, update.reason,
                    update.providerMessageId, dueAt(update, now: now),
                ] as [any SQLiteBindable]
        }
        values.append(now)
        if Self.dialect == .postgres { values.append(DeliveryStatus.sending.rawValue) }
        return values
    }

    /// When an outcome's delivery is due again: a retry's time (now when it has none); nil otherwise.
    private static func dueAt(_ update: DeliveryUpdate, now: Int64) -> Int64? {
        update.status == .queued ? update.dueAt ?? now : nil
    }

    /// Moves the messages' delivery counts (`message_counts`, in this transaction's row of each,
    /// ``countShard``), one statement a message.
    private func count(_ moves: DeliveryCountMoves) throws {
        let columns = DeliveryStatus.allCases.map(\.rawValue)
        for (messageId, change) in moves.byMessage.sorted(by: { $0.key < $1.key }) {
            try database.run(
                """
                INSERT INTO message_counts (message_id, shard, \(columns.joined(separator: ", ")))
                VALUES (?, \(countShard), \(columns.map { _ in "?" }.joined(separator: ", ")))
                ON CONFLICT (message_id, shard) DO UPDATE SET
                    \(columns.map { "\($0) = message_counts.\($0) + excluded.\($0)" }.joined(separator: ", "))
                """, [messageId] + DeliveryStatus.allCases.map { change[$0] ?? 0 })
        }
    }

    func nextDeliveryDue() throws -> Int64? {
        try database.queryFirst("SELECT MIN(next_due) FROM delivery_turns", [])?.int(0)
    }

    func anotherMessageDue(than messageId: Int64, now: Int64) throws -> Bool {
        try database.queryFirst(
            "SELECT 1 FROM delivery_turns WHERE next_due <= ? AND message_id <> ? LIMIT 1", [now, messageId]) != nil
    }

    func deliveryCounts(messageId: Int64) throws -> [DeliveryStatus: Int64] {
        // One row of sums, NULL where the message has no counts yet.
        let sums = DeliveryStatus.allCases.map { "CAST(SUM(\($0.rawValue)) AS BIGINT)" }.joined(separator: ", ")
        let row = try database.queryFirst("SELECT \(sums) FROM message_counts WHERE message_id = ?", [messageId])
        var counts: [DeliveryStatus: Int64] = [:]
        for (index, status) in DeliveryStatus.allCases.enumerated() {
            if let count = row?.int(index), count != 0 { counts[status] = count }
        }
        return counts
    }

    func failureReasons(messageId: Int64) throws -> [String: Int64] {
        var reasons: [String: Int64] = [:]
        for row in try database.query(
            """
            SELECT reason, COUNT(*) FROM deliveries WHERE message_id = ? AND status = 'failed' GROUP BY reason
            """, [messageId])
        {
            reasons[row.string(0) ?? "unknown", default: 0] += row.requiredInt(1)
        }
        return reasons
    }

    /// A message's deliveries after a cursor, in id order, read through `deliveries_message_page`.
    /// Its arguments: the message, the cursor, the message again on PostgreSQL only, the limit.
    ///
    /// SQLite answers `message_id = ? AND id > ?` from that index by itself (the rowid follows the
    /// message in every entry). PostgreSQL's planner took the primary key for it, even planned for
    /// the call's values: it takes a message's rows to be spread evenly along the ids, so a walk by
    /// id until the page is full looks short; it read every later delivery of the table on an old
    /// message's last page (bench/server/plans.sh). A row comparison with an upper bound on the
    /// message is a range only the page index answers, and the statement is planned at each call,
    /// as a generic plan cannot tell how wide that range is.
    static var deliveriesPageQuery: String {
        let columns = "id, subscription_id, provider, status, attempts, reason, provider_message_id, updated_at"
        return switch dialect {
        case .sqlite: "SELECT \(columns) FROM deliveries WHERE message_id = ? AND id > ? ORDER BY id LIMIT ?"
        case .postgres:
            """
            SELECT \(columns) FROM deliveries WHERE (message_id, id) > (?, ?) AND message_id <= ?
            ORDER BY message_id, id LIMIT ?
            """
        }
    }

    func deliveries(messageId: Int64, afterId: Int64, limit: Int) throws -> [DeliveryRow] {
        let rows =
            switch Self.dialect {
            case .sqlite: try database.query(Self.deliveriesPageQuery, [messageId, afterId, limit])
            case .postgres: try database.queryOnce(Self.deliveriesPageQuery, [messageId, afterId, messageId, limit])
            }
        return try rows.map { row in
            DeliveryRow(
                id: row.requiredInt(0), subscriptionId: row.requiredInt(1),
                provider: try PushProvider.storedPush(row.requiredString(2)),
                status: DeliveryStatus(rawValue: row.requiredString(3)) ?? .failed,
                attempts: Int(row.requiredInt(4)), reason: row.string(5), providerMessageId: row.string(6),
                updatedAt: row.requiredInt(7))
        }
    }
}

/// How a write moves deliveries between statuses, per message, for `message_counts` (a column a
/// status, named by its raw value).
struct DeliveryCountMoves {
    private(set) var byMessage: [Int64: [DeliveryStatus: Int64]] = [:]

    init() {}

    /// One move: `count` deliveries of the message leave `from` (nil: new) for `to`.
    init(messageId: Int64, from: DeliveryStatus?, to: DeliveryStatus, count: Int64) {
        move(messageId: messageId, from: from, to: to, count: count)
    }

    /// `count` deliveries of the message leave `from` (nil: new) for `to`.
    mutating func move(messageId: Int64, from: DeliveryStatus?, to: DeliveryStatus, count: Int64) {
        guard from != to, count > 0 else { return }
        if let from { byMessage[messageId, default: [:]][from, default: 0] -= count }
        byMessage[messageId, default: [:]][to, default: 0] += count
    }
}
