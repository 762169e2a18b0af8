import Foundation
import Synchronization
import TernProtocol

/// Counters and latency histograms, rendered in Prometheus' text format at `/metrics`.
///
/// ```swift
/// metrics.recordRequest(route: "/api/v1/push/subscribe", status: 200, seconds: 0.002)
/// let text = metrics.render()
/// ```
public final class Metrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    static let buckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
    ]

    private struct Histogram {
        var counts = [UInt64](repeating: 0, count: Metrics.buckets.count)
        var count: UInt64 = 0
        var sum: Double = 0
    }

    private struct RequestKey: Hashable {
        let route: String
        let status: Int
    }

    private struct State {
        var requests: [RequestKey: UInt64] = [:]
        var latency: [String: Histogram] = [:]
        var storeErrors: [String: UInt64] = [:]
        var replays: UInt64 = 0
        var ignoredPushEvents: [String: UInt64] = [:]
        var deliveries: [DeliveryKey: UInt64] = [:]
        var webhookPosts: [String: UInt64] = [:]
        var webhookEvents: [String: UInt64] = [:]
        var winners: [String: UInt64] = [:]
        var opensCounted: UInt64 = 0
        var triggered: UInt64 = 0
        var recurringCopies: UInt64 = 0
        var recurringSkipped: UInt64 = 0
    }

    private struct DeliveryKey: Hashable {
        let provider: String
        let outcome: String
        let reason: String
    }

    private let state = Mutex(State())
    private let started = Date()

    /// Makes an empty set of metrics; its uptime counts from now.
    public init() {}

    func recordRequest(route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[RequestKey(route: route, status: status), default: 0] += 1
            var histogram = state.latency[route] ?? Histogram()
            if let index = Metrics.buckets.firstIndex(where: { seconds <= $0 }) { histogram.counts[index] += 1 }
            histogram.count += 1
            histogram.sum += seconds
            state.latency[route] = histogram
        }
    }

    /// A store failure, by kind (`busy`, `backend`, ...).
    func recordStoreError(kind: String) {
        state.withLock { $0.storeErrors[kind, default: 0] += 1 }
    }

    /// A request answered from its idempotency key's stored answer.
    func recordReplay() {
        state.withLock { $0.replays += 1 }
    }

    /// A delivery or open event left uncounted, by reason (`unknown_delivery`, `other_recipient`, `repeat`).
    func recordIgnoredPushEvent(reason: String) {
        state.withLock { $0.ignoredPushEvents[reason, default: 0] += 1 }
    }

    /// A delivery's outcome (`sent`, `failed`, `invalid_token`, `retry`) by provider and reason.
    func recordDelivery(provider: PushProvider, outcome: String, reason: String?) {
        let key = DeliveryKey(provider: provider.rawValue, outcome: outcome, reason: Self.reasonLabel(reason))
        state.withLock { $0.deliveries[key, default: 0] += 1 }
    }

    /// A webhook's post: `ok` with the events the receiver took, or `failed` with those given up
    /// (too old to try again).
    func recordWebhookPost(ok: Bool, events: Int, dropped: Int) {
        state.withLock { state in
            state.webhookPosts[ok ? "ok" : "failed", default: 0] += 1
            if ok { state.webhookEvents["posted", default: 0] += UInt64(events) }
            state.webhookEvents["dropped", default: 0] += UInt64(dropped)
        }
    }

    /// An A/B test's winner the server picked: `sent`, or `failed` (left to an operator).
    func recordWinner(sent: Bool) {
        state.withLock { $0.winners[sent ? "sent" : "failed", default: 0] += 1 }
    }

    /// Opens counted by hour for messages sent at each person's usual open time.
    func recordOpensCounted(_ count: Int) {
        state.withLock { $0.opensCounted += UInt64(count) }
    }

    /// People's waits for triggered messages that ended (each person's message written, or not sent:
    /// cancelled, the person gone or skipping triggers).
    func recordTriggered(_ count: Int) {
        state.withLock { $0.triggered += UInt64(count) }
    }

    /// A recurring message's copy made, or its time skipped (the copy could not be made).
    func recordRecurringCopy(made: Bool) {
        state.withLock { made ? ($0.recurringCopies += 1) : ($0.recurringSkipped += 1) }
    }

    /// How many deliveries had this outcome, over every reason.
    func deliveryCount(provider: PushProvider, outcome: String) -> UInt64 {
        state.withLock { state in
            state.deliveries.filter { $0.key.provider == provider.rawValue && $0.key.outcome == outcome }.values.reduce(
                0, +)
        }
    }

    /// Reasons become labels: short, and without the details after a colon (tokens, hosts).
    static func reasonLabel(_ reason: String?) -> String {
        guard let reason else { return "" }
        let head = reason.split(separator: ":", maxSplits: 1).first.map(String.init) ?? reason
        return String(head.prefix(64))
    }

    /// How many requests a route answered with a status.
    func requestCount(route: String, status: Int) -> UInt64 {
        state.withLock { $0.requests[RequestKey(route: route, status: status)] ?? 0 }
    }

    /// Everything in Prometheus text exposition format 0.0.4.
    func render() -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        out += "# HELP tern_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE tern_http_requests_total counter\n"
        for (key, value) in snapshot.requests.sorted(by: {
            ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status)
        }) {
            out += "tern_http_requests_total{route=\"\(Self.escape(key.route))\",status=\"\(key.status)\"} \(value)\n"
        }
        out += "# HELP tern_http_request_duration_seconds Time from request to answer, by route.\n"
        out += "# TYPE tern_http_request_duration_seconds histogram\n"
        for (route, histogram) in snapshot.latency.sorted(by: { $0.key < $1.key }) {
            let label = "route=\"\(Self.escape(route))\""
            var cumulative: UInt64 = 0
            for (index, bound) in Metrics.buckets.enumerated() {
                cumulative += histogram.counts[index]
                out += "tern_http_request_duration_seconds_bucket{\(label),le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "tern_http_request_duration_seconds_bucket{\(label),le=\"+Inf\"} \(histogram.count)\n"
            out += "tern_http_request_duration_seconds_sum{\(label)} \(histogram.sum)\n"
            out += "tern_http_request_duration_seconds_count{\(label)} \(histogram.count)\n"
        }
        out += "# HELP tern_store_errors_total Store failures, by kind.\n"
        out += "# TYPE tern_store_errors_total counter\n"
        for kind in ["backend", "busy", "closed", "conflict"] {
            out += "tern_store_errors_total{kind=\"\(kind)\"} \(snapshot.storeErrors[kind] ?? 0)\n"
        }
        out += "# HELP tern_idempotent_replays_total Requests answered from an earlier request's stored answer.\n"
        out += "# TYPE tern_idempotent_replays_total counter\n"
        out += "tern_idempotent_replays_total \(snapshot.replays)\n"
        out += "# HELP tern_push_events_ignored_total event/push events not counted, by reason.\n"
        out += "# TYPE tern_push_events_ignored_total counter\n"
        for reason in ["other_recipient", "repeat", "unknown_delivery"] {
            out += "tern_push_events_ignored_total{reason=\"\(reason)\"} \(snapshot.ignoredPushEvents[reason] ?? 0)\n"
        }
        out += "# HELP tern_webhook_posts_total Posts to webhooks, by result (ok: a 2xx answer).\n"
        out += "# TYPE tern_webhook_posts_total counter\n"
        for result in ["failed", "ok"] {
            out += "tern_webhook_posts_total{result=\"\(result)\"} \(snapshot.webhookPosts[result] ?? 0)\n"
        }
        out += "# HELP tern_webhook_events_total Webhook events posted, and given up after a day of failed posts.\n"
        out += "# TYPE tern_webhook_events_total counter\n"
        for result in ["dropped", "posted"] {
            out += "tern_webhook_events_total{result=\"\(result)\"} \(snapshot.webhookEvents[result] ?? 0)\n"
        }
        out +=
            "# HELP tern_ab_winners_total A/B tests' winners the server picked, by result (failed: left to an operator).\n"
        out += "# TYPE tern_ab_winners_total counter\n"
        for result in ["failed", "sent"] {
            out += "tern_ab_winners_total{result=\"\(result)\"} \(snapshot.winners[result] ?? 0)\n"
        }
        out += "# HELP tern_opens_counted_total Devices' opens counted by hour of day, for sends at usual open times.\n"
        out += "# TYPE tern_opens_counted_total counter\n"
        out += "tern_opens_counted_total \(snapshot.opensCounted)\n"
        out += "# HELP tern_triggered_total People's waits for triggered messages that came due and were taken.\n"
        out += "# TYPE tern_triggered_total counter\n"
        out += "tern_triggered_total \(snapshot.triggered)\n"
        out += "# HELP tern_recurring_copies_total Recurring messages' copies made, and times skipped.\n"
        out += "# TYPE tern_recurring_copies_total counter\n"
        out += "tern_recurring_copies_total{result=\"made\"} \(snapshot.recurringCopies)\n"
        out += "tern_recurring_copies_total{result=\"skipped\"} \(snapshot.recurringSkipped)\n"
        out += "# HELP tern_push_deliveries_total Push delivery outcomes, by provider, outcome and reason.\n"
        out += "# TYPE tern_push_deliveries_total counter\n"
        for (key, value) in snapshot.deliveries.sorted(by: {
            ($0.key.provider, $0.key.outcome, $0.key.reason) < ($1.key.provider, $1.key.outcome, $1.key.reason)
        }) {
            out +=
                "tern_push_deliveries_total{provider=\"\(Self.escape(key.provider))\",outcome=\"\(key.outcome)\","
                + "reason=\"\(Self.escape(key.reason))\"} \(value)\n"
        }
        out += "# HELP tern_uptime_seconds Seconds since the server started.\n"
        out += "# TYPE tern_uptime_seconds gauge\n"
        out += "tern_uptime_seconds \(Int(Date().timeIntervalSince(started)))\n"
        return out
    }

    static func escape(_ label: String) -> String {
        label.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
