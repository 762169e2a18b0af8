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
    /// takes its rows from, so the message's counts move with them. The queue holds only the
    /// delivery's state; its address is read from the delivery's row, written once at the fan-out.
    private func claim(messageId: Int64, limit: Int, now: Int64, leaseUntil: Int64) throws -> [ClaimedDelivery] {
        try recoverLapsedLeases(messageId: messageId, now: now)
        var claimed: [ClaimedDelivery] = []
        for status in [DeliveryStatus.queued, .sending] where claimed.count < limit {
            let taken = try database.query(
                """
                UPDATE delivery_queue SET status = 'sending', attempts = attempts + 1, due_at = ?, updated_at = ?
                WHERE delivery_id IN (
                    SELECT delivery_id FROM delivery_queue
                    WHERE message_id = ? AND status = '\(status.rawValue)' AND due_at <= ?
                    ORDER BY due_at, delivery_id LIMIT ? \(claimLocks.deliveries))
                RETURNING delivery_id, attempts
                """, [leaseUntil, now, messageId, now, limit - claimed.count]
            ).map { (id: $0.requiredInt(0), attempt: Int($0.requiredInt(1))) }
            if status == .queued {
                try count(
                    DeliveryCountMoves(messageId: messageId, from: .queued, to: .sending, count: Int64(taken.count)))
            }
            claimed += try addresses(of: taken, messageId: messageId)
        }
        return claimed
    }

    /// The claimed deliveries with their addresses, read from their rows (``addressesQuery(ids:)``).
    private func addresses(of taken: [(id: Int64, attempt: Int)], messageId: Int64) throws -> [ClaimedDelivery] {
        var claimed: [ClaimedDelivery] = []
        claimed.reserveCapacity(taken.count)
        let attempts = Dictionary(taken, uniquingKeysWith: { first, _ in first })
        for ids in RowGroups(taken.map(\.id)) {
            for row in try database.query(
                Self.addressesQuery(ids: ids.count), [messageId] + Array(ids) as [any SQLiteBindable])
            {
                let id = row.requiredInt(0)
                claimed.append(
                    ClaimedDelivery(
                        id: id, messageId: messageId, subscriptionId: row.requiredInt(1),
                        provider: try PushProvider.storedPush(row.requiredString(2)), token: row.requiredString(3),
                        attempt: attempts[id] ?? 1))
            }
        }
        return claimed
    }

    /// Deliveries of one message by id, read by key (message and id): PostgreSQL has no index on
    /// the id alone (``PostgresMigrations/deliveryKeys``). Binds: the message, then `ids` ids.
    static func addressesQuery(ids: Int) -> String {
        "SELECT id, subscription_id, provider, token FROM deliveries WHERE message_id = ? AND id IN ("
            + Array(repeating: "?", count: ids).joined(separator: ", ") + ")"
    }

    /// After a claim: the message moves to the back of the round, due again when its earliest
    /// queued or leased delivery is; with none left it leaves the turns.
    private func served(messageId: Int64, turn: Int64) throws {
        let next = try database.queryFirst(
            """
            SELECT MIN(due) FROM (
                SELECT MIN(due_at) AS due FROM delivery_queue WHERE message_id = ?
                UNION ALL SELECT MIN(lease_until) FROM delivery_leases WHERE message_id = ?) AS next
            """, [messageId, messageId])?.int(0)
        if let next {
            try database.run(
                "UPDATE delivery_turns SET next_due = ?, turn = ? WHERE message_id = ?", [next, turn, messageId])
        } else {
            try database.run("DELETE FROM delivery_turns WHERE message_id = ?", [messageId])
        }
    }

    /// The fan-out's leases of the message that ran out (their sender died, or is late): their
    /// deliveries still without an outcome join the queue as leased ones whose lease lapsed, which
    /// the claim then takes with their next attempt, and the lease goes (an answer of its attempt
    /// arriving later changes nothing). A few leases a claim, so that a large message's leases, all
    /// ending a lease's length after its send, never make one claim long; the message stays due
    /// while any is left.
    private func recoverLapsedLeases(messageId: Int64, now: Int64) throws {
        let lapsed = try database.query(
            """
            SELECT id, first_id, last_id, lease_until FROM delivery_leases WHERE message_id = ? AND lease_until <= ?
            ORDER BY lease_until, id LIMIT 8 \(claimLocks.deliveries)
            """, [messageId, now])
        for lease in lapsed {
            let (first, last) = (lease.requiredInt(1), lease.requiredInt(2))
            try database.run(
                Self.queueLapsedLeaseSQL,
                [lease.requiredInt(3), now, messageId, first, last, first, last, first, last, first, last])
            try database.run("DELETE FROM delivery_leases WHERE id = ?", [lease.requiredInt(0)])
        }
    }

    /// Queues a lapsed lease's deliveries without an outcome (appended, or in a run of sent ones)
    /// or an entry, as leased ones whose lease ran out. Binds: the lease's end, the time, the
    /// message, then its first and last ids four times. The subqueries name the chunk's range too
    /// (a run never reaches past its lease): planned for the call's values, PostgreSQL otherwise
    /// hashed every outcome of the table for each chunk (30 ms at 50,000 outcomes, growing with the
    /// table), and every run of the message, where the range reads the chunk's own (1.6–2.5 ms).
    static var queueLapsedLeaseSQL: String {
        """
        INSERT INTO delivery_queue (delivery_id, message_id, status, attempts, due_at, updated_at)
        SELECT d.id, d.message_id, 'sending', 1, ?, ? FROM deliveries d
        WHERE d.message_id = ? AND d.id >= ? AND d.id <= ?
            AND NOT EXISTS (
                SELECT 1 FROM delivery_outcomes o WHERE o.delivery_id = d.id AND o.delivery_id >= ? AND o.delivery_id <= ?)
            AND NOT EXISTS (
                SELECT 1 FROM delivery_queue q WHERE q.delivery_id = d.id AND q.delivery_id >= ? AND q.delivery_id <= ?)
            AND NOT EXISTS (
                SELECT 1 FROM delivery_sent_runs r
                WHERE r.message_id = d.message_id AND r.last_id >= ? AND r.last_id <= ? AND r.last_id >= d.id
                    AND r.first_id <= d.id)
        """
    }

    func insertDeliveries(messageId: Int64, targets: [DeliveryTarget], now: Int64, timing: DeliveryTiming) throws
        -> Int
    {
        var inserted = 0
        var firstDue = Int64.max
        for rows in RowGroups(Self.devices(targets)) {
            let values = Self.deliveryValues(rows, messageId: messageId, now: now)
            let ids: [Int64]
            let due: [Int64]
            switch timing {
            case .now:
                ids = try database.query(DeliveryTexts.insertQueued[Self.dialect][rows.count], values)
                    .map { $0.requiredInt(0) }
                due = Array(repeating: now, count: ids.count)
            case .paced(let pace):
                // The places of a pace go to the rows written, in the order the statement returns them.
                ids = try database.query(DeliveryTexts.insertQueued[Self.dialect][rows.count], values)
                    .map { $0.requiredInt(0) }
                due = ids.indices.map { pace.due(offset: inserted + $0) }
            case .bySubscription(let times):
                // The rows written name their subscription (a repeated device's is skipped).
                let written = try database.query(DeliveryTexts.insertLeased[Self.dialect][rows.count], values)
                ids = written.map { $0.requiredInt(0) }
                due = written.map { times[$0.requiredInt(1)] ?? now }
            }
            try enqueue(ids, messageId: messageId, status: .queued, attempts: 0, dueAt: due, now: now)
            inserted += ids.count
            firstDue = min(firstDue, due.min() ?? firstDue)
        }
        if inserted > 0 {
            try count(DeliveryCountMoves(messageId: messageId, from: nil, to: .queued, count: Int64(inserted)))
            try dueAgain(messageId: messageId, at: firstDue)
        }
        return inserted
    }

    func insertLeasedDeliveries(messageId: Int64, targets: [DeliveryTarget], now: Int64, leaseUntil: Int64) throws
        -> [ClaimedDelivery]
    {
        var inserted: [ClaimedDelivery] = []
        for rows in RowGroups(Self.devices(targets)) {
            // The rows written name their subscription; its provider and token are the target's, not
            // read back (two strings a delivery, the token's allocated and copied).
            let bySubscription = Dictionary(
                rows.map { ($0.subscriptionId, $0) }, uniquingKeysWith: { first, _ in first })
            let written = try database.query(
                DeliveryTexts.insertLeased[Self.dialect][rows.count],
                Self.deliveryValues(rows, messageId: messageId, now: now)
            ).map { row in
                let subscriptionId = row.requiredInt(1)
                guard let target = bySubscription[subscriptionId] else {
                    throw StoreError.backend(
                        "a delivery was written for subscription \(subscriptionId), not in its chunk")
                }
                return ClaimedDelivery(
                    id: row.requiredInt(0), messageId: messageId, subscriptionId: subscriptionId,
                    provider: target.provider, token: target.token, attempt: 1)
            }
            inserted += written
        }
        let ids = inserted.map { $0.id }
        if let first = ids.min(), let last = ids.max() {
            // One lease for the chunk, not a queue entry a delivery: most deliveries never wait in
            // the queue, and each entry cost an insert and a delete. The chunk's ids are its own
            // among the message's: a message's fan-out writes one chunk at a time.
            try database.runBeforeNext(
                """
                INSERT INTO delivery_leases (message_id, first_id, last_id, lease_until, created_at)
                VALUES (?, ?, ?, ?, ?)
                """, [messageId, first, last, leaseUntil, now])
        }
        if !inserted.isEmpty {
            try count(DeliveryCountMoves(messageId: messageId, from: nil, to: .sending, count: Int64(inserted.count)))
            // In the turns from the lease's end, as a claimed delivery is: a sender that dies leaves it
            // to be claimed again then.
            try dueAgain(messageId: messageId, at: leaseUntil)
        }
        return inserted
    }

    /// The parameters of ``DeliveryTexts/insert(rows:_:)`` for these rows.
    private static func deliveryValues(
        _ rows: ArraySlice<DeliveryTarget>, messageId: Int64, now: Int64
    ) -> [any SQLiteBindable] {
        var values: [any SQLiteBindable] = []
        values.reserveCapacity(rows.count * 5 + 3)
        // One append a value: an array literal a row was an allocation a delivery.
        switch dialect {
        case .sqlite:
            for target in rows {
                values.append(messageId)
                values.append(target.subscriptionId)
                values.append(target.provider.rawValue)
                values.append(target.token)
                values.append(now)
            }
        case .postgres:
            for target in rows {
                values.append(target.subscriptionId)
                values.append(target.provider.rawValue)
                values.append(target.token)
            }
            values.append(messageId)
            values.append(now)
            values.append(messageId)
        }
        return values
    }

    /// Each device (provider and token) once, at its first target, on PostgreSQL: its statement
    /// tells apart only devices that had the message before it. SQLite's unique index skips a
    /// repeat within a statement too, so its targets go as they are.
    private static func devices(_ targets: [DeliveryTarget]) -> [DeliveryTarget] {
        guard dialect == .postgres else { return targets }
        var seen: Set<DeliveryTarget.Device> = []
        seen.reserveCapacity(targets.count)
        return targets.filter { seen.insert($0.device).inserted }
    }

    /// Puts new deliveries in the queue, all in one state, each due at its time in `dueAt`. Nobody
    /// reads the count: on PostgreSQL it goes with the next statement.
    private func enqueue(
        _ ids: [Int64], messageId: Int64, status: DeliveryStatus, attempts: Int, dueAt: [Int64], now: Int64
    ) throws {
        for rows in RowGroups(ids) {
            let values = Array(repeating: "(?, ?, '\(status.rawValue)', \(attempts), ?, ?)", count: rows.count)
            var parameters: [any SQLiteBindable] = []
            parameters.reserveCapacity(rows.count * 4)
            for (index, id) in zip(rows.indices, rows) {
                parameters += [id, messageId, dueAt[index], now] as [any SQLiteBindable]
            }
            try database.runBeforeNext(
                """
                INSERT INTO delivery_queue (delivery_id, message_id, status, attempts, due_at, updated_at)
                VALUES \(values.joined(separator: ", "))
                """, parameters)
        }
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

    /// Moves the messages' delivery counts (`message_counts`, in this transaction's row of each,
    /// ``countShard``), one statement a message.
    func count(_ moves: DeliveryCountMoves) throws {
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
        try deliveryCounts(where: "message_id = ?", [messageId])
    }

    /// The counts of the messages `condition` picks, summed.
    func deliveryCounts(where condition: String, _ parameters: [any SQLiteBindable]) throws
        -> [DeliveryStatus: Int64]
    {
        // One row of sums, NULL where the message has no counts yet.
        let sums = DeliveryStatus.allCases.map { "CAST(SUM(\($0.rawValue)) AS BIGINT)" }.joined(separator: ", ")
        let row = try database.queryFirst("SELECT \(sums) FROM message_counts WHERE \(condition)", parameters)
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
            SELECT reason, COUNT(*) FROM delivery_outcomes WHERE message_id = ? AND status = 'failed' GROUP BY reason
            """, [messageId])
        {
            reasons[row.string(0) ?? "unknown", default: 0] += row.requiredInt(1)
        }
        return reasons
    }

    /// A message's deliveries after a cursor, in id order, read through `deliveries_message_page`
    /// on SQLite and the table's key (message, id) on PostgreSQL, each with its state: its queue
    /// entry while it has one, else its last outcome, else the run of sent first attempts that
    /// holds it, else (handed to a sender by the fan-out, not answered yet) `sending` on its first
    /// attempt; the reason and provider's id are its last outcome's. Its arguments: the message,
    /// the cursor, the message again on PostgreSQL only, the limit.
    ///
    /// SQLite answers `message_id = ? AND id > ?` from that index by itself (the rowid follows the
    /// message in every entry). On PostgreSQL, while the primary key was the id alone, the planner
    /// took it for that condition, even planned for the call's values: it takes a message's rows to
    /// be spread evenly along the ids, so a walk by id until the page is full looked short; it read
    /// every later delivery of the table on an old message's last page (bench/server/plans.sh). A
    /// row comparison with an upper bound on the message is a range of the key, and the statement
    /// is planned at each call, as a generic plan cannot tell how wide that range is.
    static var deliveriesPageQuery: String {
        let columns = """
            d.id, d.subscription_id, d.provider,
                COALESCE(q.status, o.status, CASE WHEN r.first_id <= d.id THEN 'sent' END, 'sending'),
                COALESCE(q.attempts, o.attempt, 1), o.reason, o.provider_message_id,
                COALESCE(q.updated_at, o.at, CASE WHEN r.first_id <= d.id THEN r.at END, d.created_at)
            """
        return switch dialect {
        case .sqlite:
            """
            SELECT \(columns)
            FROM deliveries d
            LEFT JOIN delivery_queue q ON q.delivery_id = d.id
            LEFT JOIN delivery_outcomes o ON o.delivery_id = d.id
                AND o.attempt = (SELECT MAX(attempt) FROM delivery_outcomes WHERE delivery_id = d.id)
            LEFT JOIN delivery_sent_runs r ON r.message_id = d.message_id
                AND r.last_id = (SELECT MIN(last_id) FROM delivery_sent_runs WHERE message_id = d.message_id AND last_id >= d.id)
            WHERE d.message_id = ? AND d.id > ? ORDER BY d.id LIMIT ?
            """
        case .postgres:
            // LATERAL, each with a LIMIT (which keeps PostgreSQL from turning it back into a join):
            // each row's entry and last outcome by key. As plain joins, with the queue estimated at
            // one row after a send had emptied it, PostgreSQL read the queue's whole key index once
            // per page, dead entries and all (bench/server/plans.sh: 44,485 buffers, 26 ms, for a
            // page of 100).
            """
            SELECT \(columns)
            FROM deliveries d
            LEFT JOIN LATERAL (
                SELECT status, attempts, updated_at FROM delivery_queue WHERE delivery_id = d.id LIMIT 1) q ON TRUE
            LEFT JOIN LATERAL (
                SELECT attempt, status, reason, provider_message_id, at FROM delivery_outcomes WHERE delivery_id = d.id
                ORDER BY attempt DESC LIMIT 1) o ON TRUE
            LEFT JOIN LATERAL (
                SELECT first_id, at FROM delivery_sent_runs WHERE message_id = d.message_id AND last_id >= d.id
                ORDER BY last_id LIMIT 1) r ON TRUE
            WHERE (d.message_id, d.id) > (?, ?) AND d.message_id <= ?
            ORDER BY d.message_id, d.id LIMIT ?
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
                status: row.string(3).flatMap(DeliveryStatus.init(rawValue:)) ?? .failed,
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
