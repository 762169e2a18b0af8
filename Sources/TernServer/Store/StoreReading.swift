import Foundation
import Synchronization

/// A value read from the store and used for two seconds: what a hot path asks for on every
/// request (the webhooks a project wants, its triggers) without a statement of its own. Read again
/// when older, or at once after ``forget()`` (the node that changed it); another node sees a change
/// within the two seconds.
final class StoreReading<Value: Sendable>: Sendable {
    /// How long a reading is used (ms).
    static var maxAge: Int64 { 2_000 }

    private let reading = Mutex<(value: Value, readAt: Int64)?>(nil)

    /// The value as last read, or read from `tx` by `read` when that is older than two seconds.
    func value(_ tx: any StoreTransaction, now: Int64, read: (any StoreTransaction) throws -> Value) throws -> Value {
        if let kept = reading.withLock({ reading -> Value? in
            guard let reading, now - reading.readAt < Self.maxAge, now >= reading.readAt else { return nil }
            return reading.value
        }) {
            return kept
        }
        let value = try read(tx)
        reading.withLock { $0 = (value, now) }
        return value
    }

    /// Forgets the reading: the next question reads the store.
    func forget() { reading.withLock { $0 = nil } }
}
