import Foundation

/// A message's figures over time (``MessageTimeline``): each source read with one `GROUP BY` per
/// bucket, the message's rows found by the indexes its stats read them by. Points come back
/// sparse (only buckets with a figure), each at its bucket's start.
public protocol TimelineQueries {
    /// Sent and failed deliveries (invalid tokens with the failed) per bucket of their final
    /// outcome's time: the runs of sent first attempts (`delivery_sent_runs`, by the message) and
    /// the appended outcomes in the range of the message's delivery ids (`delivery_outcomes`' key).
    func outcomeTimeline(messageId: Int64, bucket: TimelineBucket) throws -> [TimelinePoint]
    /// Devices' delivery and open reports of the push ids starting with `prefix` (by
    /// `push_events_message`), per bucket of the device's time clamped to `[from, received]`:
    /// not before the message was to go, not after the server got the report. Conversions (as
    /// ``DeliveryQueries/conversions(messageIdPrefix:eventName:)`` counts them) at the push's
    /// first goal's time, clamped the same way.
    func reportTimeline(messageIdPrefix prefix: String, from: Int64, bucket: TimelineBucket) throws
        -> [TimelinePoint]
}
