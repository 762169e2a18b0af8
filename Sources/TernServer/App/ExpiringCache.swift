import Foundation
import Synchronization

/// Values kept for a while by key, for what changes rarely but is read on every request (a caller's
/// resource, a resource's categories). At most `capacity` entries: when full, it starts over.
final class ExpiringCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        let value: Value
        let expires: ContinuousClock.Instant
    }

    private let entries = Mutex([Key: Entry]())
    private let lifetime: Duration
    private let capacity: Int

    init(lifetime: Duration, capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// The value kept for `key`, if it is still fresh.
    func value(for key: Key) -> Value? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.expires > now else {
                entries.removeValue(forKey: key)
                return nil
            }
            return entry.value
        }
    }

    /// Keeps `value` for `key` from now for the cache's lifetime.
    func remember(_ value: Value, for key: Key) {
        let entry = Entry(value: value, expires: ContinuousClock.now + lifetime)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
    }
}
