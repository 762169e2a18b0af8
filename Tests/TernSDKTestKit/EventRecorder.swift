import Foundation
import TernCore

/// Collects the SDK events of one ``Tern`` in the order the subscriber got them, and lets a test
/// wait for one (with a generous guard so a broken SDK fails the test instead of hanging it).
@MainActor
public final class EventRecorder {
    public private(set) var events: [Event] = []
    private var waiters: [(id: UUID, matches: (Event) -> Bool, continuation: CheckedContinuation<Int?, Never>)] = []
    /// Every callback ran on the main queue.
    public private(set) var allOnMainQueue = true

    public init(_ tern: Tern) {
        tern.eventSDKFunctions.subscribe { [weak self] event in
            self?.record(event)
        }
    }

    private func record(_ event: Event) {
        if !DispatchQueue.isMainQueue { allOnMainQueue = false }
        events.append(event)
        var remaining: [(id: UUID, matches: (Event) -> Bool, continuation: CheckedContinuation<Int?, Never>)] = []
        for waiter in waiters {
            if waiter.matches(event) {
                waiter.continuation.resume(returning: events.count - 1)
            } else {
                remaining.append(waiter)
            }
        }
        waiters = remaining
    }

    /// The first event (already recorded or still to come) of kind `kind`.
    public func first<E: SDKEvent & Equatable>(_ kind: E, timeout: TimeInterval = 30) async -> Event? {
        await first(where: { $0.event == kind }, timeout: timeout)
    }

    public func first(where matches: @escaping (Event) -> Bool, timeout: TimeInterval = 30) async -> Event? {
        if let event = events.first(where: matches) { return event }
        let id = UUID()
        let index = await withCheckedContinuation { continuation in
            waiters.append((id, matches, continuation))
            Task { @MainActor [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
                self?.expire(id)
            }
        }
        return index.map { events[$0] }
    }

    /// Waits until `count` events of kind `kind` have been recorded.
    public func count<E: SDKEvent & Equatable>(_ kind: E, reaches count: Int, timeout: TimeInterval = 30) async -> Bool
    {
        var seen = 0
        return await first(
            where: { event in
                if event.event == kind { seen += 1 }
                return seen >= count
            }, timeout: timeout) != nil || events.filter({ $0.event == kind }).count >= count
    }

    public func all<E: SDKEvent & Equatable>(_ kind: E) -> [Event] {
        events.filter { $0.event == kind }
    }

    private func expire(_ id: UUID) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
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
