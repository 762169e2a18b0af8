import Foundation

/// Removes the rows per device of messages older than `--delivery-retention-days` once their
/// sending is over (``HistoryQueries``): a campaign to a million devices leaves a million
/// deliveries and up to two million reports, which a server without a limit keeps for ever. The
/// message, its counts and its funnel's figures stay.
///
/// A pass takes the messages past the limit, oldest first, and removes each a bounded step at a
/// time, one transaction a step, so devices' writes and sends go on between the steps. It runs at
/// start and hourly; on PostgreSQL every node runs it, and nodes that meet on one message each
/// remove what the other has not (a step's deletes find rows or none).
struct DeliveryRetention: Sendable {
    let store: any Store
    /// How long a message's rows per device are kept, in milliseconds.
    let retention: Int64
    let logger: Logger
    let clock: @Sendable () -> Int64
    /// Deliveries (or reports) a step removes at most.
    var stepRows = 2_000

    init(store: any Store, days: Int, logger: Logger, clock: @escaping @Sendable () -> Int64) {
        self.store = store
        self.retention = Int64(days) * 24 * 3600 * 1000
        self.logger = logger
        self.clock = clock
    }

    /// One pass over every message past the limit. Returns the messages finished and the rows
    /// removed.
    func pass() async throws -> (messages: Int, rows: Int) {
        let cutoff = clock() - retention
        var finished: Set<Int64> = []
        var rows = 0
        while !Task.isCancelled {
            let listed = try await store.read { try $0.messagesPastRetention(createdBefore: cutoff, limit: 100) }
            // A message finished in this pass and listed again would loop: the pass ends there.
            let ids = listed.filter { !finished.contains($0) }
            guard !ids.isEmpty else { break }
            for id in ids {
                while !Task.isCancelled {
                    let step = try await store.write { [stepRows, clock] in
                        try $0.removeHistory(messageId: id, limit: stepRows, now: clock())
                    }
                    guard case .removed(let count) = step else { break }
                    rows += count
                }
                finished.insert(id)
            }
        }
        return (finished.count, rows)
    }

    /// Passes at start and then hourly, until cancelled.
    func run() async {
        while !Task.isCancelled {
            do {
                let (messages, rows) = try await pass()
                if messages > 0 {
                    logger.info("removed old messages' deliveries and reports", ["messages": messages, "rows": rows])
                }
            } catch {
                logger.warn("removing old messages' deliveries failed", ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}
