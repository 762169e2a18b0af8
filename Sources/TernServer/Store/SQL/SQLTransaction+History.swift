import Foundation
import TernSQLite

extension SQLTransaction {
    /// The sums of a message's counts, not one row: on PostgreSQL each connection moves a row of
    /// its own (`countShard`), which may be negative while the sum is not.
    func messagesPastRetention(createdBefore before: Int64, limit: Int) throws -> [Int64] {
        try database.query(
            """
            SELECT m.id FROM messages m
            WHERE m.created_at < ? AND m.fan_out_done
                AND (m.trigger_event IS NULL AND m.trigger_round_of IS NULL OR m.cancelled_at IS NOT NULL)
                AND (m.repeat_next_at IS NULL OR m.cancelled_at IS NOT NULL)
                AND NOT EXISTS (
                    SELECT 1 FROM message_history h WHERE h.message_id = m.id AND h.finished_at IS NOT NULL)
                AND (SELECT COALESCE(SUM(c.queued + c.sending), 0) FROM message_counts c WHERE c.message_id = m.id) = 0
            ORDER BY m.id LIMIT ?
            """, [before, limit]
        ).map { $0.requiredInt(0) }
    }

    /// Deliveries go a range of ids at a time, each statement by the deliveries' key (message, id)
    /// or `deliveries_message_page`; their outcomes and queue entries by theirs. The reports are
    /// counted only once no delivery is left: a report is counted against its delivery's row
    /// (``insertPushEvent(pushId:type:time:receivedAt:sentTo:orTo:)``), so none can arrive after.
    func removeHistory(messageId: Int64, limit: Int, now: Int64) throws -> HistoryStep {
        let kept = try messageHistory(messageId: messageId)
        if let kept, kept.finishedAt != nil { return .finished }
        if kept == nil {
            // An A/B test's deliveries per version are counted now, while they are all there.
            let variants = try message(id: messageId).map(variantTargets) ?? []
            try database.run(
                """
                INSERT INTO message_history (message_id, failed_by_reason, removed_at, variants, timeline)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (message_id) DO NOTHING
                """,
                [
                    messageId, try Self.json(try failureReasons(messageId: messageId)), now,
                    variants.isEmpty ? nil : try Self.json(variants.map { VariantFigures(targeted: $0) }),
                    // The outcomes per hour, while they are all there; the reports' join them later.
                    try Self.json(try outcomeTimeline(messageId: messageId, bucket: .hour).map(\.row)),
                ])
        }
        let ids = try database.query(
            "SELECT id FROM deliveries WHERE message_id = ? ORDER BY id LIMIT ?", [messageId, limit]
        ).map { $0.requiredInt(0) }
        if let first = ids.first, let last = ids.last {
            let range: [any SQLiteBindable] = [messageId, first, last]
            let chunk = "SELECT id FROM deliveries WHERE message_id = ? AND id >= ? AND id <= ?"
            try database.run("DELETE FROM delivery_outcomes WHERE delivery_id IN (\(chunk))", range)
            try database.run("DELETE FROM delivery_queue WHERE delivery_id IN (\(chunk))", range)
            return .removed(
                try database.run("DELETE FROM deliveries WHERE message_id = ? AND id >= ? AND id <= ?", range))
        }
        guard let message = try message(id: messageId) else { return .finished }
        let prefix = message.publicId + "."
        if kept?.delivered == nil {
            let reports = try pushEventCounts(messageIdPrefix: prefix)
            var variants = try messageHistory(messageId: messageId)?.variants
            if var kept = variants {
                // The reports by version, beside each version's deliveries counted at the start.
                let live = try MessageVariants.figures(self, message, targeted: kept.map(\.targeted))
                for (index, live) in live.enumerated() where kept.indices.contains(index) {
                    kept[index].delivered = live.delivered
                    kept[index].opened = live.opened
                    kept[index].converted = live.converted
                }
                variants = kept
            }
            // The reports per hour beside the outcomes kept at the start (none kept: none added).
            let timeline = try messageHistory(messageId: messageId)?.timeline.map { outcomes in
                TimelinePoints.merged(
                    outcomes.map(\.outcomesOnly),
                    try reportTimeline(messageIdPrefix: prefix, from: message.sentFrom, bucket: .hour))
            }
            try database.run(
                """
                UPDATE message_history SET delivered = ?, opened = ?, converted = ?, variants = ?, timeline = ?
                WHERE message_id = ? AND delivered IS NULL
                """,
                [
                    reports[.delivery] ?? 0, reports[.open] ?? 0,
                    try conversions(messageIdPrefix: prefix, eventName: nil), try variants.map(Self.json),
                    try timeline.map { try Self.json($0.map(\.row)) }, messageId,
                ])
        }
        try database.run("DELETE FROM delivery_sent_runs WHERE message_id = ?", [messageId])
        try database.run("DELETE FROM delivery_leases WHERE message_id = ?", [messageId])
        try database.run("DELETE FROM delivery_turns WHERE message_id = ?", [messageId])
        // The reports' ids start with the message's public id and a dot: a range of their index.
        let reports = try database.run(
            """
            DELETE FROM push_events WHERE id IN (
                SELECT id FROM push_events WHERE message_id >= ? AND message_id < ? LIMIT ?)
            """, Self.range(startingWith: prefix) + [limit])
        if reports > 0 { return .removed(reports) }
        try database.run("UPDATE message_history SET finished_at = ? WHERE message_id = ?", [now, messageId])
        return .finished
    }

    func messageHistory(messageId: Int64) throws -> MessageHistory? {
        try database.queryFirst(
            """
            SELECT failed_by_reason, delivered, opened, removed_at, finished_at, variants, converted, timeline
            FROM message_history WHERE message_id = ?
            """,
            [messageId]
        ).map { row in
            MessageHistory(
                failedByReason: try Self.decode([String: Int64].self, row.string(0)) ?? [:], delivered: row.int(1),
                opened: row.int(2), converted: row.int(6), removedAt: row.requiredInt(3), finishedAt: row.int(4),
                variants: try Self.decode([VariantFigures].self, row.string(5)),
                timeline: try Self.decode([[Int64]].self, row.string(7))?.map(TimelinePoint.init(row:)))
        }
    }
}
