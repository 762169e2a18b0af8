import Foundation
import Synchronization

/// Which event types each project's webhooks want, as a store's writers last read them: the hot
/// paths (a device's report, a batch of outcomes) ask it before they make an event, so a project
/// without webhooks pays a dictionary lookup, not a statement. Read again from the table when
/// older than two seconds, and at once on the node that changed a webhook; another node sees a new
/// webhook within that time.
public final class WebhookDirectory: Sendable {
    /// How long a reading of the table is used (ms).
    static let maxAge: Int64 = 2_000

    private struct Reading {
        var wanted: [Int64: Set<WebhookEventType>]
        var readAt: Int64
    }

    private let reading = Mutex<Reading?>(nil)

    /// An empty directory: the first question reads the table.
    public init() {}

    /// The types `projectId`'s webhooks want (every project's, for nil: a report whose project the
    /// insert finds), read from `tx` when the last reading is older than two seconds.
    func wanted(_ tx: any StoreTransaction, projectId: Int64?, now: Int64) throws -> Set<WebhookEventType> {
        let current = reading.withLock { reading -> Reading? in
            guard let reading, now - reading.readAt < Self.maxAge, now >= reading.readAt else { return nil }
            return reading
        }
        let wanted: [Int64: Set<WebhookEventType>]
        if let current {
            wanted = current.wanted
        } else {
            wanted = try tx.webhookTypes()
            reading.withLock { $0 = Reading(wanted: wanted, readAt: now) }
        }
        guard let projectId else { return wanted.values.reduce(into: []) { $0.formUnion($1) } }
        return wanted[projectId] ?? []
    }

    /// Forgets the reading: the next question reads the table (a webhook was made or removed here).
    func forget() { reading.withLock { $0 = nil } }
}
