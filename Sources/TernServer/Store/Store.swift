import Foundation

/// Where the server keeps everything. One protocol, one implementation per backend (SQLite now;
/// PostgreSQL later), all held to the same test suite. All SQL lives behind it.
///
/// A service does its whole change in one transaction:
///
/// ```swift
/// let profile = try await store.write { tx in
///     let profile = try tx.createProfile(dbId: 1, publicId: id, now: now)
///     try tx.setProfileField(profileId: profile.id, name: "_fname", value: "Ada")
///     return profile
/// }
/// ```
public protocol Store: Sendable {
    /// Runs `body` in a read-write transaction: returns only after that transaction committed; when
    /// `body` throws, none of its changes are kept. A backend may group concurrent writes into one
    /// transaction (group commit, see `GroupCommit`), each under its own savepoint, so `body` is
    /// escaping: it may run after `write` was called, from the batch's writer. Errors from the
    /// backend arrive as `StoreError`; errors `body` throws pass through unchanged.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T

    /// Runs `body` as ``write(_:)`` does; where the backend has several connections (PostgreSQL),
    /// writes that name the same affinity (one device's token, one person's identity) at the same
    /// time share one connection's batches instead of taking the same rows in two transactions at
    /// once, where the later one waits for the earlier's commit or, when two batches take them in
    /// other orders, for the lock timeout. SQLite has one writer: it ignores `affinity`.
    func write<T: Sendable>(
        affinity: String, _ body: @escaping @Sendable (any StoreTransaction) throws -> T
    ) async throws -> T

    /// Runs `body` in one read-only transaction (a consistent snapshot).
    func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> T) async throws -> T

    /// True when the store answers a trivial query.
    func isHealthy() async -> Bool

    /// Brings the statistics of tables that grew far past them up to date, so that a backend whose
    /// plans follow table statistics (PostgreSQL) plans its statements for the tables' size now;
    /// SQLite's do not. The server calls it every couple of seconds.
    func refreshStatistics() async

    /// Told how many deliveries a fan-out's chunk just wrote, so that such a backend can refresh
    /// them sooner than the periodic look (a fan-out writes tens of thousands a second).
    func deliveriesWritten(_ count: Int) async

    /// Looks again at the subscriptions of tokens marked invalid lately, once no write that could
    /// have missed the mark (or that the mark missed) is still running, so that audience counts
    /// leave out every subscription the mark covers. Only a backend whose writers run side by side
    /// (PostgreSQL) has anything to do. The server calls it every couple of seconds.
    func recheckTokenMarks() async

    /// Finishes what is running and closes the backend; later calls throw `StoreError.closed`.
    func close() async

    /// Which projects' webhooks want which events, as this store's writers last read them.
    var webhookDirectory: WebhookDirectory { get }
    /// The triggered messages each goal is checked against, read at most every two seconds.
    var triggerDirectory: TriggerDirectory { get }
}

extension Store {
    /// One writer (SQLite): every write shares its batches already, so `affinity` changes nothing.
    public func write<T: Sendable>(
        affinity: String, _ body: @escaping @Sendable (any StoreTransaction) throws -> T
    ) async throws -> T {
        try await write(body)
    }

    /// Does nothing: a backend whose plans do not follow table statistics (SQLite) has nothing to
    /// refresh.
    public func refreshStatistics() async {}

    /// Does nothing, as ``refreshStatistics()``.
    public func deliveriesWritten(_ count: Int) async {}

    /// Does nothing: one writer (SQLite) orders a mark and the writes of its token.
    public func recheckTokenMarks() async {}
}

/// Every query the services need, grouped by subject.
public protocol StoreTransaction: TenancyQueries, ProfileQueries, SubscriptionQueries, EventQueries,
    IdempotencyQueries, DeliveryQueries, TagQueries, DashboardQueries, KeyQueries, InAppQueries, InboxQueries,
    PreferenceQueries, IdentityQueries, SegmentQueries, HistoryQueries, ErasureQueries,
    ProfileExportQueries, FrequencyQueries, WebhookQueries, OpenHourQueries,
    LiveActivityQueries, TriggerQueries, LiveActivityChannelQueries, RecurrenceQueries,
    MessageEditQueries, DeviceExportQueries, TemplateQueries, TimelineQueries, ControlGroupQueries
{}

/// A failure of the backend (not of the caller's input).
enum StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A uniqueness rule was broken, e.g. a second pixel with the same sid.
    case conflict(String)
    /// The backend is locked by another writer longer than its timeout; retrying later may work.
    case busy(String)
    /// The store was closed.
    case closed
    /// Anything else the backend reported.
    case backend(String)

    var description: String {
        switch self {
        case .conflict(let message): "conflict: \(message)"
        case .busy(let message): "store busy: \(message)"
        case .closed: "the store is closed"
        case .backend(let message): "store error: \(message)"
        }
    }

    /// A short label for metrics.
    var kind: String {
        switch self {
        case .conflict: "conflict"
        case .busy: "busy"
        case .closed: "closed"
        case .backend: "backend"
        }
    }
}
