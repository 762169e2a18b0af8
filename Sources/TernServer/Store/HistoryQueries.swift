import Foundation

/// What stays of a message once its rows per device are removed (``HistoryQueries``): the
/// funnel's figures that were read from them.
public struct MessageHistory: Sendable, Equatable {
    /// Failed deliveries per reason, taken when the removal began (the message's sending was over).
    public var failedByReason: [String: Int64]
    /// Devices' delivery reports, counted once the deliveries were gone; nil until then.
    public var delivered: Int64?
    /// Devices' open reports, counted with ``delivered``.
    public var opened: Int64?
    /// Conversions (opens a goal followed), counted with ``delivered``; nil in history kept before
    /// conversions were counted.
    public var converted: Int64? = nil
    /// When the removal began (ms since 1970).
    public var removedAt: Int64
    /// When the message's last row per device went (ms since 1970); nil while they are going.
    public var finishedAt: Int64?
    /// An A/B test's figures per version: the deliveries counted when the removal began, the
    /// reports with ``delivered``; nil for a message of one version.
    public var variants: [VariantFigures]? = nil
    /// The message's timeline per UTC hour (``MessageTimeline``), sparse: the outcomes' (sent,
    /// failed) taken when the removal began, the reports' (delivered, opened, converted) added
    /// with ``delivered``; nil in history kept before timelines were.
    public var timeline: [TimelinePoint]? = nil
}

/// One step of removing a message's rows per device (``HistoryQueries/removeHistory(messageId:limit:now:)``).
public enum HistoryStep: Sendable, Equatable {
    /// This many rows went; more may be left.
    case removed(Int)
    /// Nothing of the message's rows per device is left.
    case finished
}

/// The removal of old messages' rows per device (`--delivery-retention-days`): deliveries, their
/// queue entries, outcomes, runs and leases, the message's turn, and the devices' reports. The
/// message, its counts per status and its figures (``MessageHistory``) stay, so its stats read
/// the same afterwards; its deliveries page is gone. Each step is its own transaction of a bounded
/// size, so the writes of devices and of sends go on between them.
public protocol HistoryQueries {
    /// Messages created before `before` whose sending is over (fan-out done, nothing queued or
    /// sending) and whose rows per device are not all removed yet, oldest first.
    func messagesPastRetention(createdBefore before: Int64, limit: Int) throws -> [Int64]
    /// Removes up to `limit` of the message's rows per device: first its figures are kept (the
    /// failures per reason), then its deliveries go with their outcomes and queue entries, then
    /// the reports are counted and go, then the runs, leases and turn. Only for a message
    /// ``messagesPastRetention(createdBefore:limit:)`` named: its outcomes no longer change.
    func removeHistory(messageId: Int64, limit: Int, now: Int64) throws -> HistoryStep
    /// The message's kept figures, if its removal has begun.
    func messageHistory(messageId: Int64) throws -> MessageHistory?
}
