import Foundation

/// Which event types each project's webhooks want, as a store's writers last read them: the hot
/// paths (a device's report, a batch of outcomes) ask it before they make an event, so a project
/// without webhooks pays a dictionary lookup, not a statement. Read again from the table when
/// older than two seconds, and at once on the node that changed a webhook; another node sees a new
/// webhook within that time.
public final class WebhookDirectory: Sendable {
    private let reading = StoreReading<[Int64: Set<WebhookEventType>]>()

    /// An empty directory: the first question reads the table.
    public init() {}

    /// The types `projectId`'s webhooks want (every project's, for nil: a report whose project the
    /// insert finds), read from `tx` when the last reading is older than two seconds.
    func wanted(_ tx: any StoreTransaction, projectId: Int64?, now: Int64) throws -> Set<WebhookEventType> {
        let wanted = try reading.value(tx, now: now) { try $0.webhookTypes() }
        guard let projectId else { return wanted.values.reduce(into: []) { $0.formUnion($1) } }
        return wanted[projectId] ?? []
    }

    /// Forgets the reading: the next question reads the table (a webhook was made or removed here).
    func forget() { reading.forget() }
}
