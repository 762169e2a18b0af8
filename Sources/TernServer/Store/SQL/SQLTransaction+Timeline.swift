import Foundation
import TernSQLite

/// A message's figures per bucket (``TimelineQueries``): one `GROUP BY` a source, every bucket's
/// start computed by the database (`time / length * length`), so Swift sees a row a bucket, never
/// a row a delivery or a report.
extension SQLTransaction {
    func outcomeTimeline(messageId: Int64, bucket: TimelineBucket) throws -> [TimelinePoint] {
        let length = bucket.milliseconds
        var points: [Int64: TimelinePoint] = [:]
        // Runs of sent first attempts: adjacent ids of the message, so a run's size is its width.
        for row in try database.query(
            """
            SELECT at / \(length) * \(length) AS bucket, CAST(SUM(last_id - first_id + 1) AS BIGINT)
            FROM delivery_sent_runs WHERE message_id = ? GROUP BY bucket
            """, [messageId])
        {
            points[row.requiredInt(0), default: TimelinePoint(at: row.requiredInt(0))].sent += row.requiredInt(1)
        }
        // The other final outcomes, appended: the table's key read over the message's ids (its
        // first and last delivery, by the deliveries' index on the message), as no index has the
        // message with the sent ones; a retry's `queued` outcomes are left out.
        for row in try database.query(
            """
            SELECT at / \(length) * \(length) AS bucket, status, COUNT(*) FROM delivery_outcomes
            WHERE delivery_id >= (SELECT MIN(id) FROM deliveries WHERE message_id = ?)
                AND delivery_id <= (SELECT MAX(id) FROM deliveries WHERE message_id = ?)
                AND message_id = ? AND status IN ('sent', 'failed', 'invalid_token')
            GROUP BY bucket, status
            """, [messageId, messageId, messageId])
        {
            let at = row.requiredInt(0)
            if row.requiredString(1) == "sent" {
                points[at, default: TimelinePoint(at: at)].sent += row.requiredInt(2)
            } else {
                points[at, default: TimelinePoint(at: at)].failed += row.requiredInt(2)
            }
        }
        return points.values.sorted { $0.at < $1.at }
    }

    func reportTimeline(messageIdPrefix prefix: String, from: Int64, bucket: TimelineBucket) throws
        -> [TimelinePoint]
    {
        let length = bucket.milliseconds
        let range = Self.range(startingWith: prefix)
        var points: [Int64: TimelinePoint] = [:]
        for row in try database.query(
            """
            SELECT \(Self.clamped("time", "received_at")) / \(length) * \(length) AS bucket, type, COUNT(*)
            FROM push_events WHERE message_id >= ? AND message_id < ? GROUP BY bucket, type
            """, [from as any SQLiteBindable] + range)
        {
            let at = row.requiredInt(0)
            switch row.requiredString(1) {
            case "delivery": points[at, default: TimelinePoint(at: at)].delivered += row.requiredInt(2)
            case "open": points[at, default: TimelinePoint(at: at)].opened += row.requiredInt(2)
            default: continue
            }
        }
        // A push converts once (``conversions(messageIdPrefix:eventName:)``): at its first goal.
        for row in try database.query(
            """
            SELECT first / \(length) * \(length) AS bucket, COUNT(*) FROM (
                SELECT MIN(\(Self.clamped("g.time", "g.received_at"))) AS first FROM goals g
                WHERE g.send_message_id >= ? AND g.send_message_id < ?
                    AND EXISTS (SELECT 1 FROM push_events p WHERE p.message_id = g.send_message_id AND p.type = 'open')
                GROUP BY g.send_message_id
            ) c GROUP BY bucket
            """, [from as any SQLiteBindable] + range)
        {
            points[row.requiredInt(0), default: TimelinePoint(at: row.requiredInt(0))].converted += row.requiredInt(1)
        }
        return points.values.sorted { $0.at < $1.at }
    }

    /// A device's `time` held to `[?, received]`: a report is not before the message was to go
    /// (its one parameter) nor after the server received it, whatever the device's clock said.
    private static func clamped(_ time: String, _ received: String) -> String {
        smaller(larger(time, "CAST(? AS BIGINT)"), received)
    }
}
