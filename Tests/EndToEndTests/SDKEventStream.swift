import Foundation
import Synchronization
import TernCore
import TernProtocol
import TernSDKTestKit

/// The SDK's events in order, for tests that wait for the next one of a name. Events are kept, so
/// a wait that timed out leaves the later ones to the next wait (an `AsyncStream` iterated from a
/// cancelled task ends, and every later wait saw nothing).
final class SDKEventStream: Sendable {
    private struct State {
        var events: [SeenEvent] = []
        /// Where the next wait starts: after the last event a wait returned.
        var cursor = 0
        var waiters: [UUID: (name: String, continuation: CheckedContinuation<SeenEvent?, Never>)] = [:]
    }

    private let state = Mutex(State())

    init(_ tern: Tern) {
        tern.eventSDKFunctions.subscribe { [weak self] event in self?.record(SeenEvent(event)) }
    }

    private func record(_ seen: SeenEvent) {
        let woken = state.withLock { state -> CheckedContinuation<SeenEvent?, Never>? in
            state.events.append(seen)
            guard let (id, waiter) = state.waiters.first(where: { $0.value.name == seen.name }) else { return nil }
            state.waiters[id] = nil
            state.cursor = state.events.count
            return waiter.continuation
        }
        woken?.resume(returning: seen)
    }

    /// The next event named `name` after the last one returned, or nil when none comes within
    /// `timeout` seconds.
    func next(_ name: String, timeout: TimeInterval = 30) async -> SeenEvent? {
        let id = UUID()
        let timer = Task { [self] in
            try? await Task.sleep(for: .seconds(timeout))
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let found = state.withLock { state -> SeenEvent? in
                if let index = state.events[state.cursor...].firstIndex(where: { $0.name == name }) {
                    state.cursor = index + 1
                    return state.events[index]
                }
                state.waiters[id] = (name, continuation)
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// Every event's name so far, in order (for failure messages).
    var names: [String] {
        state.withLock { $0.events.map(\.name) }
    }
}
