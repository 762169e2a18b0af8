/// Runs work for many items with a bound on how many run at once, merging their outcomes.
enum Concurrently {
    /// `work` for every item, at most `limit` at a time; the outcomes of all, keyed by delivery id.
    static func merge<Item: Sendable>(
        _ items: some Sequence<Item>, limit: Int,
        _ work: @escaping @Sendable (Item) async -> [Int64: DeliveryOutcome]
    ) async -> [Int64: DeliveryOutcome] {
        var outcomes: [Int64: DeliveryOutcome] = [:]
        await withTaskGroup(of: [Int64: DeliveryOutcome].self) { group in
            var next = items.makeIterator()
            for _ in 0..<max(1, limit) {
                guard let item = next.next() else { break }
                group.addTask { await work(item) }
            }
            for await answered in group {
                outcomes.merge(answered) { $1 }
                if let item = next.next() { group.addTask { await work(item) } }
            }
        }
        return outcomes
    }

    /// `work` for every push, at most `limit` at a time; the answers keyed by delivery id.
    static func map(
        _ pushes: [OutgoingPush], limit: Int, _ work: @escaping @Sendable (OutgoingPush) async -> DeliveryOutcome
    ) async -> [Int64: DeliveryOutcome] {
        await merge(pushes, limit: limit) { push in [push.deliveryId: await work(push)] }
    }
}
