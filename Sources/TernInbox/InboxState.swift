import Foundation
import TernCore
import TernProtocol

/// What the inbox shows: its messages, newest first, and how many are unread.
public struct InboxSnapshot: Sendable, Equatable {
    /// Newest first; expired ones are left out.
    public var messages: [InboxMessage]
    /// Messages not read on any of the person's devices (a read still queued counts as read).
    public var unread: Int

    /// A snapshot.
    public init(messages: [InboxMessage], unread: Int) {
        self.messages = messages
        self.unread = unread
    }

    /// An empty inbox.
    public static let empty = InboxSnapshot(messages: [], unread: 0)
}

/// The inbox's copy on the device, kept in the SDK's database: the messages as last synced, the
/// cursor, and the reads and deletes made here that the server has not confirmed yet (they show at
/// once, and a sync that still has the old state does not undo them).
struct InboxCache: Codable, Sendable, Equatable {
    var cursor: String?
    var messages: [InboxMessage] = []
    var pendingRead: Set<String> = []
    var pendingDelete: Set<String> = []

    static let settingKey = "inbox.cache"

    /// Applies one `inbox/list` answer.
    mutating func apply(_ answer: InboxListAnswer) {
        if answer.reset {
            messages = answer.messages
        } else {
            let gone = Set(answer.removed.map(\.id))
            let changed = Dictionary(answer.messages.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
            messages.removeAll { gone.contains($0.id) || changed[$0.id] != nil }
            messages += answer.messages
        }
        cursor = answer.cursor
        let present = Set(messages.map(\.id))
        // A confirmed read (or a message gone) needs no overlay; a delete is confirmed once it is gone.
        pendingRead = pendingRead.filter { id in present.contains(id) && messages.first { $0.id == id }?.read == false }
        pendingDelete = pendingDelete.filter(present.contains)
    }

    /// What the app sees at `now` (ms): overlays applied, expired left out, newest first, at most 250.
    func snapshot(now: Int64) -> InboxSnapshot {
        var shown = messages.filter { $0.expiresAt > now && !pendingDelete.contains($0.id) }
        for index in shown.indices where pendingRead.contains(shown[index].id) { shown[index].read = true }
        shown.sort { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
        if shown.count > InboxLimits.maxMessages { shown.removeLast(shown.count - InboxLimits.maxMessages) }
        return InboxSnapshot(messages: shown, unread: shown.filter { !$0.read }.count)
    }
}

/// The inbox of one SDK instance: the cache (loaded from and saved to the SDK's database), the
/// observers, and one sync at a time.
actor InboxState {
    private var cache: InboxCache?
    private var observers: [UUID: AsyncStream<InboxSnapshot>.Continuation] = [:]
    private var callbacks: [UUID: @Sendable (InboxSnapshot) -> Void] = [:]
    private var syncing: Task<InboxSnapshot, any Error>?
    private var lifecycleTask: Task<Void, Never>?
    private var last: InboxSnapshot?

    static func shared(_ core: CoreServices) async -> InboxState {
        await core.slots.value("inbox.state") { InboxState() }
    }

    func setLifecycleTask(_ task: Task<Void, Never>) {
        lifecycleTask?.cancel()
        lifecycleTask = task
    }

    /// The cache, read from the database the first time.
    func load(_ store: CoreStore) async -> InboxCache {
        if let cache { return cache }
        let loaded = await store.setting(InboxCache.settingKey, as: InboxCache.self) ?? InboxCache()
        cache = loaded
        return loaded
    }

    /// Changes the cache, saves it, and tells the observers.
    func update(_ store: CoreStore, now: Int64, _ change: @Sendable (inout InboxCache) -> Void) async throws {
        var current = await load(store)
        change(&current)
        try await store.setSetting(InboxCache.settingKey, current)
        cache = current
        publish(current.snapshot(now: now))
    }

    /// Forgets the cache (another person signed in, or `clear()`).
    func reset(_ store: CoreStore) async {
        cache = InboxCache()
        try? await store.setSetting(InboxCache.settingKey, InboxCache?.none)
        publish(.empty)
    }

    func snapshot(_ store: CoreStore, now: Int64) async -> InboxSnapshot {
        await load(store).snapshot(now: now)
    }

    /// Runs `work` unless a sync is running, in which case its result is shared.
    func sync(_ work: @escaping @Sendable () async throws -> InboxSnapshot) async throws -> InboxSnapshot {
        if let syncing { return try await syncing.value }
        let task = Task { try await work() }
        syncing = task
        defer { syncing = nil }
        return try await task.value
    }

    func stream() -> AsyncStream<InboxSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: InboxSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        observers[id] = continuation
        if let last { continuation.yield(last) }
        continuation.onTermination = { _ in Task { await self.removeObserver(id) } }
        return stream
    }

    func addCallback(_ id: UUID, _ callback: @escaping @Sendable (InboxSnapshot) -> Void) {
        callbacks[id] = callback
        if let last { callback(last) }
    }

    func removeCallback(_ id: UUID) { callbacks[id] = nil }

    private func removeObserver(_ id: UUID) { observers[id] = nil }

    private func publish(_ snapshot: InboxSnapshot) {
        guard snapshot != last else { return }
        last = snapshot
        for continuation in observers.values { continuation.yield(snapshot) }
        for callback in callbacks.values { callback(snapshot) }
    }
}
