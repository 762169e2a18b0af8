import Foundation
import Synchronization
import TernCore

/// Every SDK event of one SDK, in the order the subscriber got them: the tests' one event capture.
/// Tests wait for the one they need: the first one of a name (``first(_:timeout:)``), or the next one
/// after the last returned (``next(_:timeout:)``), as ``SeenEvent`` copies that cross tasks. On the
/// main actor the SDK's own `Event` objects are kept too (``events``, ``first(_:timeout:)-(E,_)``,
/// ``all(_:)``, ``count(_:reaches:timeout:)``), for tests that check an event's class or any key of
/// its value. Events are kept, so a wait that timed out leaves later ones to the next wait.
///
/// The SDK has one subscriber: make one log per SDK (``TestSDK/events`` is one).
public final class EventLog: Sendable {
    private struct Waiter {
        let id: UUID
        let after: Int
        let matches: @Sendable (SeenEvent) -> Bool
        let continuation: CheckedContinuation<SeenEvent?, Never>
    }

    private struct State {
        var seen: [SeenEvent] = []
        var waiters: [Waiter] = []
        /// Where ``next(_:timeout:)`` looks from: after the last event it returned.
        var cursor = 0
    }

    private let state = Mutex(State())

    /// The SDK's events themselves, in order (on the main actor, where the subscriber gets them).
    @MainActor public private(set) var events: [Event] = []
    /// True while every callback ran on the main queue.
    @MainActor public private(set) var allOnMainQueue = true
    @MainActor private var rawWaiters:
        [(id: UUID, matches: (Event) -> Bool, continuation: CheckedContinuation<Int?, Never>)] =
            []

    /// Subscribes to `tern`'s events (replacing any other subscriber).
    public init(_ tern: Tern) {
        tern.eventSDKFunctions.subscribe { [weak self] event in
            self?.recordRaw(event)
            self?.record(SeenEvent(event))
        }
    }

    @MainActor private func recordRaw(_ event: Event) {
        if !DispatchQueue.isMainQueue { allOnMainQueue = false }
        events.append(event)
        let index = events.count - 1
        // Each waiter's test runs once per event: `count(_:reaches:)`'s counts as it is asked.
        var remaining: [(id: UUID, matches: (Event) -> Bool, continuation: CheckedContinuation<Int?, Never>)] = []
        for waiter in rawWaiters {
            if waiter.matches(event) {
                waiter.continuation.resume(returning: index)
            } else {
                remaining.append(waiter)
            }
        }
        rawWaiters = remaining
    }

    /// The first event (already seen or still to come) of kind `kind`, nil after `timeout` seconds.
    @MainActor public func first<E: SDKEvent & Equatable>(_ kind: E, timeout: TimeInterval = 30) async -> Event? {
        await firstEvent(where: { $0.event == kind }, timeout: timeout)
    }

    /// The first event (already seen or still to come) that `matches`, nil after `timeout` seconds.
    @MainActor public func firstEvent(where matches: @escaping (Event) -> Bool, timeout: TimeInterval = 30) async
        -> Event?
    {
        if let event = events.first(where: matches) { return event }
        let id = UUID()
        let index = await withCheckedContinuation { continuation in
            rawWaiters.append((id, matches, continuation))
            Task { @MainActor [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
                self?.expireRaw(id)
            }
        }
        return index.map { events[$0] }
    }

    /// Waits until `count` events of kind `kind` were seen; false after `timeout` seconds.
    @MainActor public func count<E: SDKEvent & Equatable>(_ kind: E, reaches count: Int, timeout: TimeInterval = 30)
        async -> Bool
    {
        var seen = 0
        return await firstEvent(
            where: { event in
                if event.event == kind { seen += 1 }
                return seen >= count
            }, timeout: timeout) != nil || events.filter({ $0.event == kind }).count >= count
    }

    /// Every event of kind `kind` so far.
    @MainActor public func all<E: SDKEvent & Equatable>(_ kind: E) -> [Event] {
        events.filter { $0.event == kind }
    }

    @MainActor private func expireRaw(_ id: UUID) {
        guard let index = rawWaiters.firstIndex(where: { $0.id == id }) else { return }
        reportTimeout()
        rawWaiters.remove(at: index).continuation.resume(returning: nil)
    }

    /// A wait that timed out says, in the test's output, what the SDK did meanwhile: the failure
    /// itself only shows the `nil`.
    private func reportTimeout() {
        let names = self.names
        FileHandle.standardError.write(
            Data(
                "EventLog: a wait timed out; the \(names.count) events so far: \(names.joined(separator: ", "))\n".utf8)
        )
    }

    private func record(_ event: SeenEvent) {
        var event = event
        let ready = state.withLock { state in
            event.index = state.seen.count
            state.seen.append(event)
            let index = event.index
            let ready = state.waiters.filter { index >= $0.after && $0.matches(event) }
            state.waiters.removeAll { index >= $0.after && $0.matches(event) }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: event) }
    }

    /// Every event so far.
    public var all: [SeenEvent] { state.withLock { $0.seen } }

    /// How many events were seen so far: pass it as `after` to wait only for later ones.
    public var count: Int { state.withLock { $0.seen.count } }

    /// Every event's name so far, in order (for failure messages).
    public var names: [String] { state.withLock { $0.seen.map(\.name) } }

    /// The next event named `name` after the last one this returned (already seen or still to come),
    /// nil after `timeout` seconds.
    public func next(_ name: String, timeout: TimeInterval = 30) async -> SeenEvent? {
        let after = state.withLock { $0.cursor }
        guard let found = await first(where: { $0.name == name }, after: after, timeout: timeout) else { return nil }
        state.withLock { $0.cursor = max($0.cursor, found.index + 1) }
        return found
    }

    /// The first event named `name` (already seen or still to come), nil after `timeout` seconds.
    public func first(_ name: String, timeout: TimeInterval = 30) async -> SeenEvent? {
        await first(where: { $0.name == name }, timeout: timeout)
    }

    /// The first event from index `after` on (see ``count``) that `matches`, nil after `timeout` seconds.
    public func first(
        where matches: @escaping @Sendable (SeenEvent) -> Bool, after: Int = 0, timeout: TimeInterval = 30
    ) async -> SeenEvent? {
        let id = UUID()
        let expiry = Task { [weak self] in
            try? await Task.sleep(for: .seconds(timeout))
            self?.expire(id)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { continuation in
            let found: SeenEvent?? = state.withLock { state in
                if let found = state.seen.dropFirst(after).first(where: matches) { return .some(found) }
                state.waiters.append(Waiter(id: id, after: after, matches: matches, continuation: continuation))
                return .none
            }
            if case .some(let found) = found { continuation.resume(returning: found) }
        }
    }

    private func expire(_ id: UUID) {
        let expired = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        guard let expired else { return }
        reportTimeout()
        expired.continuation.resume(returning: nil)
    }
}

extension DispatchQueue {
    private static let mainKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// True on the main queue (on Linux under `swift test` the main queue runs off the main thread).
    public static var isMainQueue: Bool { DispatchQueue.getSpecific(key: mainKey) == true }
}
