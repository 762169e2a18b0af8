import Foundation
import TernProtocol
import TernSQLite

extension CoreStore {
    private static let columns = """
        id, lane, endpoint, body, idempotency_key, batch_key, needs_token, meta, attempts, created_at, \
        first_attempt_at, next_attempt_at, expires_at
        """

    /// Writes the entries in one transaction and returns each row's idempotency key. `journal`
    /// settings are saved in the same transaction, so a caller's record of what it queued can never
    /// disagree with the outbox, whenever the process dies.
    @discardableResult
    public func enqueue(_ entries: [OutboxEntry], now: Date, journal: [String: JSONValue] = [:]) throws -> [String] {
        let encoder = JSONEncoder()
        var metas: [Data] = []
        metas.reserveCapacity(entries.count)
        for entry in entries {
            // Most rows share a few metas (one per kind of call): encode each once.
            if let cached = lastMeta, cached.meta == entry.meta {
                metas.append(cached.data)
            } else {
                let data = try encoder.encode(entry.meta)
                lastMeta = (entry.meta, data)
                metas.append(data)
            }
        }
        let settings = try journal.mapValues { try encoder.encode($0) }
        return try write {
            for (key, value) in settings {
                try db.run(
                    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    [key, value])
            }
            var keys: [String] = []
            keys.reserveCapacity(entries.count)
            for (entry, meta) in zip(entries, metas) {
                let key = entry.idempotencyKey
                let expires = entry.expiresAfter.map { now.timeIntervalSince1970 + $0 }
                try db.run(
                    """
                    INSERT INTO outbox (lane, endpoint, body, idempotency_key, needs_token, meta, created_at,
                        next_attempt_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        entry.lane.rawValue, entry.endpoint.rawValue, entry.body, key, entry.needsToken, meta,
                        now.timeIntervalSince1970, now.timeIntervalSince1970, expires,
                    ])
                keys.append(key)
            }
            try add("enqueued", entries.count)
            return keys
        }
    }

    /// The next work of the ordered lane: its oldest row when due. Expired rows at the head are
    /// dropped (and counted so) and returned in `expired`.
    func nextOrdered(now: Date) throws -> (work: OutboxWork, expired: [OutboxRow]) {
        var expired: [OutboxRow] = []
        while true {
            let raw = try read {
                try db.query(
                    "SELECT \(Self.columns) FROM outbox WHERE lane = 'ordered' AND batch_key IS NULL ORDER BY id LIMIT 1"
                )
            }
            guard let head = try readable(raw).first else {
                // An unreadable head was dropped: look again; nothing at all: the lane is empty.
                if raw.isEmpty { return (.empty, expired) }
                continue
            }
            if let expiresAt = head.expiresAt, expiresAt <= now {
                try drop([head.id])
                expired.append(head)
                continue
            }
            return (head.nextAttemptAt <= now ? .send([head]) : .waitUntil(head.nextAttemptAt), expired)
        }
    }

    // The `+` before next_attempt_at keeps SQLite on outbox_lane_batch (id order, no sort of the
    // whole lane); outbox_lane_due serves MIN(next_attempt_at).
    /// The next batch of the events lane: a sealed batch that is due, else a new batch sealed from
    /// the oldest due rows of one endpoint. A sealed batch keeps its rows and key across crashes, so
    /// a resend is byte for byte the first request and the server applies it once.
    func nextBatch(now: Date, maxSize: Int) throws -> OutboxWork {
        while true {
            let work = try nextBatchOnce(now: now, maxSize: maxSize)
            // A batch whose rows were all unreadable (and dropped): look again.
            if case .send(let rows) = work, rows.isEmpty { continue }
            return work
        }
    }

    private func nextBatchOnce(now: Date, maxSize: Int) throws -> OutboxWork {
        let nowValue = now.timeIntervalSince1970
        if let sealed = try read({
            try db.queryFirst(
                """
                SELECT batch_key FROM outbox WHERE lane = 'events' AND batch_key IS NOT NULL
                AND +next_attempt_at <= ? ORDER BY id LIMIT 1
                """, [nowValue])?.string(0)
        }) {
            return .send(try rows(batchKey: sealed))
        }
        let sealedKey: String? = try write {
            guard
                let oldest = try db.queryFirst(
                    """
                    SELECT endpoint, idempotency_key FROM outbox WHERE lane = 'events' AND batch_key IS NULL
                    AND +next_attempt_at <= ? ORDER BY id LIMIT 1
                    """, [nowValue]), let endpoint = oldest.string(0), let key = oldest.string(1)
            else { return nil }
            try db.run(
                """
                UPDATE outbox SET batch_key = ? WHERE id IN (SELECT id FROM outbox WHERE lane = 'events'
                AND batch_key IS NULL AND endpoint = ? AND +next_attempt_at <= ? ORDER BY id LIMIT ?)
                """, [key, endpoint, nowValue, maxSize])
            return key
        }
        if let sealedKey { return .send(try rows(batchKey: sealedKey)) }
        let next = try read {
            try db.queryFirst("SELECT MIN(next_attempt_at) FROM outbox WHERE lane = 'events'")?.double(0)
        }
        return next.map { .waitUntil(Date(timeIntervalSince1970: $0)) } ?? .empty
    }

    private func rows(batchKey: String) throws -> [OutboxRow] {
        try readable(
            read { try db.query("SELECT \(Self.columns) FROM outbox WHERE batch_key = ? ORDER BY id", [batchKey]) })
    }

    /// The rows this version can read; rows it cannot (a damaged row, an endpoint a newer SDK wrote
    /// before a downgrade) are deleted and counted as dropped, so they never block a lane.
    private func readable(_ raw: [SQLiteRow]) throws -> [OutboxRow] {
        var rows: [OutboxRow] = []
        var unreadable: [Int64] = []
        for row in raw {
            if let decoded = decodeRow(row) {
                rows.append(decoded)
            } else if let id = row.int(0) {
                unreadable.append(id)
            }
        }
        if !unreadable.isEmpty { try drop(unreadable) }
        return rows
    }

    /// Removes acknowledged rows.
    func acknowledge(_ ids: [Int64]) throws {
        try remove(ids, counter: "acknowledged")
    }

    /// Removes rows the sender gave up on.
    func drop(_ ids: [Int64]) throws {
        try remove(ids, counter: "dropped")
    }

    private func remove(_ ids: [Int64], counter: String) throws {
        guard !ids.isEmpty else { return }
        try write {
            var removed = 0
            for id in ids { removed += try db.run("DELETE FROM outbox WHERE id = ?", [id]) }
            try add(counter, removed)
        }
    }

    /// Records a failed attempt and when to try again.
    func reschedule(_ ids: [Int64], attempts: Int, firstAttemptAt: Date, nextAttemptAt: Date) throws {
        try write {
            for id in ids {
                try db.run(
                    "UPDATE outbox SET attempts = ?, first_attempt_at = ?, next_attempt_at = ? WHERE id = ?",
                    [attempts, firstAttemptAt.timeIntervalSince1970, nextAttemptAt.timeIntervalSince1970, id])
            }
        }
    }

    /// Keeps the body a row was first sent with (after the token was filled in), so retries repeat it.
    func finalize(_ id: Int64, body: Data) throws {
        try write { try db.run("UPDATE outbox SET body = ?, needs_token = 0 WHERE id = ?", [body, id]) }
    }

    /// Pending rows per lane and the running totals.
    public func statistics() throws -> OutboxStatistics {
        try read {
            var pending: [OutboxLane: Int] = [:]
            for lane in OutboxLane.allCases {
                pending[lane] = Int(
                    try db.queryFirst("SELECT COUNT(*) FROM outbox WHERE lane = ?", [lane.rawValue])?.int(0) ?? 0)
            }
            return OutboxStatistics(
                pending: pending, enqueuedTotal: try counter("enqueued"),
                acknowledgedTotal: try counter("acknowledged"),
                droppedTotal: try counter("dropped"))
        }
    }

    /// Every waiting row, oldest first (diagnostics and tests).
    public func pendingRows() throws -> [OutboxRow] {
        try read { try db.query("SELECT \(Self.columns) FROM outbox ORDER BY id") }.compactMap { decodeRow($0) }
    }

    /// Deletes every waiting row.
    func clearOutbox() throws {
        try write { try db.run("DELETE FROM outbox") }
    }

    /// A row's meta, decoded once per distinct JSON (rows of one kind of call share it; decoding
    /// JSON per row would dominate a batch's cost).
    private func meta(_ data: Data) -> OutboxMeta? {
        if let known = decodedMetas[data] { return known }
        guard let meta = try? JSONDecoder().decode(OutboxMeta.self, from: data) else { return nil }
        if decodedMetas.count >= 64 { decodedMetas.removeAll() }
        decodedMetas[data] = meta
        return meta
    }

    private func decodeRow(_ row: SQLiteRow) -> OutboxRow? {
        guard let id = row.int(0), let lane = row.string(1).flatMap(OutboxLane.init(rawValue:)),
            let endpoint = row.string(2).flatMap(Endpoint.init(rawValue:)), let body = row.data(3),
            let key = row.string(4), let metaData = row.data(7),
            let meta = meta(metaData), let created = row.double(9),
            let next = row.double(11)
        else { return nil }
        return OutboxRow(
            id: id, lane: lane, endpoint: endpoint, body: body, idempotencyKey: key, batchKey: row.string(5),
            needsToken: row.bool(6) ?? false, meta: meta, attempts: Int(row.int(8) ?? 0),
            createdAt: Date(timeIntervalSince1970: created),
            firstAttemptAt: row.double(10).map(Date.init(timeIntervalSince1970:)),
            nextAttemptAt: Date(timeIntervalSince1970: next),
            expiresAt: row.double(12).map(Date.init(timeIntervalSince1970:)))
    }
}
