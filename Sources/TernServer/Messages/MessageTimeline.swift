import Foundation

/// `GET /api/v1/admin/messages/{message_id}/timeline`: a message's funnel over time, one point a
/// UTC bucket from its first figure to its last, the buckets between them with zeros.
///
/// ```json
/// {"message_id": "m_1f…", "bucket": "hour",
///  "points": [{"at": 1765098000000, "sent": 998, "failed": 2, "delivered": 950, "opened": 120, "converted": 8}]}
/// ```
public struct MessageTimeline: Codable, Sendable, Equatable {
    /// The message's public id.
    public var messageId: String
    /// How long each point is.
    public var bucket: TimelineBucket
    /// The points in time order, each at its bucket's start.
    public var points: [TimelinePoint]

    enum CodingKeys: String, CodingKey {
        case messageId = "message_id"
        case bucket, points
    }
}

/// One bucket of a ``MessageTimeline``: what happened to the message from `at` until the next bucket.
public struct TimelinePoint: Codable, Sendable, Equatable {
    /// The bucket's start (ms since 1970, UTC).
    public var at: Int64
    /// Deliveries the provider accepted then (their outcome's time).
    public var sent: Int64 = 0
    /// Deliveries refused for good, out of retries, or with a token no longer valid (their outcome's time).
    public var failed: Int64 = 0
    /// Devices' delivery reports (``MessageTimeline`` says which clock).
    public var delivered: Int64 = 0
    /// Devices' open reports.
    public var opened: Int64 = 0
    /// Opens a goal followed, at the push's first such goal.
    public var converted: Int64 = 0

    /// `[at, sent, failed, delivered, opened, converted]`: how a point is kept in the message's
    /// history (``MessageHistory/timeline``).
    var row: [Int64] { [at, sent, failed, delivered, opened, converted] }

    init(at: Int64) { self.at = at }

    init(row: [Int64]) {
        at = row.first ?? 0
        let value = { (index: Int) in row.indices.contains(index) ? row[index] : 0 }
        (sent, failed, delivered, opened, converted) = (value(1), value(2), value(3), value(4), value(5))
    }

    /// This point with `other`'s figures added.
    func adding(_ other: TimelinePoint) -> TimelinePoint {
        var sum = self
        sum.sent += other.sent
        sum.failed += other.failed
        sum.delivered += other.delivered
        sum.opened += other.opened
        sum.converted += other.converted
        return sum
    }

    /// The delivery part alone (sent, failed), the reports' zero.
    var outcomesOnly: TimelinePoint {
        var point = TimelinePoint(at: at)
        (point.sent, point.failed) = (sent, failed)
        return point
    }

    /// The reports' part alone (delivered, opened, converted), the outcomes' zero.
    var reportsOnly: TimelinePoint {
        var point = self
        (point.sent, point.failed) = (0, 0)
        return point
    }
}

/// How long a ``TimelinePoint`` is. Buckets start at multiples of their length since 1970, so in
/// UTC: a day's at midnight, an hour's on the hour.
public enum TimelineBucket: String, Codable, Sendable, CaseIterable {
    /// A minute: kept while the message's rows per device are.
    case minute
    /// An hour: what the message's history keeps once its rows per device go.
    case hour
    /// A day (UTC, from midnight).
    case day

    /// Its length in milliseconds.
    public var milliseconds: Int64 {
        switch self {
        case .minute: 60_000
        case .hour: 3_600_000
        case .day: 86_400_000
        }
    }

    /// The most points a timeline answers; a longer one is a 400 that names a longer bucket.
    static let maxPoints: Int64 = 2000

    /// The bucket a timeline takes when none is asked: the shortest that keeps a chart readable
    /// over `span` (ms from its first figure to its last, or the message's age without any):
    /// minutes up to 6 hours (at most 360 points), hours up to 14 days (at most 336), days beyond.
    /// `minuteKept`: false once the message's rows went, whose history keeps hours only.
    static func chosen(span: Int64, minuteKept: Bool) -> TimelineBucket {
        if minuteKept && span <= 6 * TimelineBucket.hour.milliseconds { return .minute }
        return span <= 14 * TimelineBucket.day.milliseconds ? .hour : .day
    }

    /// The start of the bucket `time` falls in.
    func start(of time: Int64) -> Int64 {
        let length = milliseconds
        return time >= 0 ? time / length * length : (time - length + 1) / length * length
    }
}

/// Points of a finer bucket summed into a coarser one, and the gaps between them filled with zeros.
enum TimelinePoints {
    /// `points` (sparse, any order, each at the start of a bucket no longer than `bucket` and
    /// dividing it) summed per `bucket`, from the first to the last, each bucket between with zeros.
    static func filled(_ points: [TimelinePoint], bucket: TimelineBucket) -> [TimelinePoint] {
        var sums: [Int64: TimelinePoint] = [:]
        for point in points {
            let at = bucket.start(of: point.at)
            sums[at] = (sums[at] ?? TimelinePoint(at: at)).adding(TimelinePoint(at: at).adding(point))
        }
        guard let first = sums.keys.min(), let last = sums.keys.max() else { return [] }
        return stride(from: first, through: last, by: Int(bucket.milliseconds)).map {
            sums[$0] ?? TimelinePoint(at: $0)
        }
    }

    /// `a` and `b` summed bucket by bucket (both sparse, of one bucket); the result sparse, in time order.
    static func merged(_ a: [TimelinePoint], _ b: [TimelinePoint]) -> [TimelinePoint] {
        var sums: [Int64: TimelinePoint] = [:]
        for point in a + b { sums[point.at] = (sums[point.at] ?? TimelinePoint(at: point.at)).adding(point) }
        return sums.values.sorted { $0.at < $1.at }
    }

    /// How many points `points` span at `bucket`, the empty ones between included.
    static func count(_ points: [TimelinePoint], bucket: TimelineBucket) -> Int64 {
        guard let first = points.map(\.at).min(), let last = points.map(\.at).max() else { return 0 }
        return (bucket.start(of: last) - bucket.start(of: first)) / bucket.milliseconds + 1
    }
}
