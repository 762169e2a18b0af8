import Foundation
import Synchronization

/// rToken → caller, for a few seconds: most requests are anonymous, and their resource, project and
/// database change rarely. Saves a store round trip per request.
final class CallerCache: Sendable {
    private struct Entry {
        let caller: Caller
        let expires: ContinuousClock.Instant
    }

    private let entries = Mutex([String: Entry]())
    private let lifetime: Duration
    private let capacity: Int

    init(lifetime: Duration = .seconds(5), capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func caller(for rToken: String) -> Caller? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[rToken] else { return nil }
            guard entry.expires > now else {
                entries.removeValue(forKey: rToken)
                return nil
            }
            return entry.caller
        }
    }

    func remember(_ caller: Caller, for rToken: String) {
        let entry = Entry(caller: caller, expires: ContinuousClock.now + lifetime)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[rToken] = entry
        }
    }
}
