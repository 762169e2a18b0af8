/// Runs work for many pushes with a bound on how many run at once.
enum Concurrently {
    /// `work` for every push, at most `limit` at a time; the answers keyed by delivery id.
    static func map(
        _ pushes: [OutgoingPush], limit: Int, _ work: @escaping @Sendable (OutgoingPush) async -> DeliveryOutcome
    ) async -> [Int64: DeliveryOutcome] {
        var outcomes: [Int64: DeliveryOutcome] = [:]
        outcomes.reserveCapacity(pushes.count)
        await withTaskGroup(of: (Int64, DeliveryOutcome).self) { group in
            var next = pushes.makeIterator()
            for _ in 0..<max(1, limit) {
                guard let push = next.next() else { break }
                group.addTask { (push.deliveryId, await work(push)) }
            }
            for await (id, outcome) in group {
                outcomes[id] = outcome
                if let push = next.next() { group.addTask { (push.deliveryId, await work(push)) } }
            }
        }
        return outcomes
    }
}
