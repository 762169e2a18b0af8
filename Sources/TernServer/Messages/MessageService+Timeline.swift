import Foundation

extension MessageService {
    /// The message's funnel over time (``MessageTimeline``): sent and failed at their outcome's
    /// time, delivered and opened at the device's time held to `[when the message was to go, when
    /// the server got the report]`, converted at the push's first goal's time, the same way. The
    /// whole message as its stats count it: every version of an A/B test (its push ids share the
    /// message's prefix); a triggered message's later rounds are messages of their own.
    ///
    /// `bucket`: nil to have one chosen by the span of its figures (minutes up to 6 hours, hours up
    /// to 14 days, days beyond); more than 2,000 points is a 400 naming a longer bucket. Once the
    /// message's rows per device are removed (`--delivery-retention-days`), the points are the
    /// hours kept in its history (``MessageHistory/timeline``), so minutes are refused.
    public func timeline(publicId: String, bucket asked: TimelineBucket?) async throws -> MessageTimeline {
        try await store.read { tx in
            let message = try Self.find(tx, publicId)
            let history = try tx.messageHistory(messageId: message.id)
            if let history, history.timeline == nil {
                throw APIError.gone(
                    "the timeline of message \(message.publicId) was not kept: its deliveries were removed from "
                        + "\(Self.timestamp(history.removedAt)) on (--delivery-retention-days) by a version of the "
                        + "server that kept no timelines; its stats (GET …/\(message.publicId)/stats) keep its totals")
            }
            let kept = history?.timeline
            if kept != nil, asked == .minute {
                throw APIError.badRequest(
                    "bucket=minute is not kept once a message's deliveries are removed (message \(message.publicId)'s "
                        + "were from \(Self.timestamp(history?.removedAt ?? 0)) on, --delivery-retention-days): "
                        + "use bucket=hour or bucket=day")
            }
            let finest: TimelineBucket = kept == nil ? .minute : .hour
            let outcomes = try kept?.map(\.outcomesOnly) ?? tx.outcomeTimeline(messageId: message.id, bucket: finest)
            let reports =
                if let kept, history?.delivered != nil {
                    kept.map(\.reportsOnly)
                } else {
                    try tx.reportTimeline(
                        messageIdPrefix: message.publicId + ".", from: message.sentFrom, bucket: finest)
                }
            let points = TimelinePoints.merged(outcomes, reports)
            let span =
                if let first = points.first, let last = points.last {
                    last.at + finest.milliseconds - first.at
                } else {
                    max(0, clock() - message.sentFrom)
                }
            let bucket = asked ?? TimelineBucket.chosen(span: span, minuteKept: kept == nil)
            let count = TimelinePoints.count(points, bucket: bucket)
            guard count <= TimelineBucket.maxPoints else {
                let fitting = TimelineBucket.allCases.filter {
                    $0.milliseconds > bucket.milliseconds
                        && TimelinePoints.count(points, bucket: $0) <= TimelineBucket.maxPoints
                }
                throw APIError.badRequest(
                    "bucket=\(bucket.rawValue) would give message \(message.publicId) \(count) points, more than the "
                        + "\(TimelineBucket.maxPoints) a timeline answers: use "
                        + (fitting.isEmpty
                            ? "a longer bucket" : fitting.map { "bucket=\($0.rawValue)" }.joined(separator: " or "))
                        + " (or leave bucket out to have one chosen)")
            }
            return MessageTimeline(
                messageId: message.publicId, bucket: bucket, points: TimelinePoints.filled(points, bucket: bucket))
        }
    }
}
