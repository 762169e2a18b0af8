/// The requests waiting for a stream, oldest first: a growable array read from a moving head.
/// Taking a request moves it out (its slot becomes nil), so compacting only drops empty slots and
/// never frees an exchange inside the pool's lock.
struct PoolQueue {
    private var slots: [PoolExchange?] = []
    private var head = 0

    var count: Int { slots.count - head }
    var isEmpty: Bool { head == slots.count }

    mutating func append(contentsOf exchanges: [PoolExchange]) {
        slots.reserveCapacity(slots.count + exchanges.count)
        for exchange in exchanges { slots.append(exchange) }
    }

    /// Puts exchanges back at the front, in their order.
    mutating func prepend(_ exchanges: [PoolExchange]) {
        if head >= exchanges.count {
            head -= exchanges.count
            for (offset, exchange) in exchanges.enumerated() { slots[head + offset] = exchange }
        } else {
            slots.replaceSubrange(head..<head, with: exchanges.map { Optional($0) })
        }
    }

    mutating func popFirst() -> PoolExchange? {
        guard head < slots.count else { return nil }
        defer {
            slots[head] = nil
            head += 1
            compact()
        }
        return slots[head]
    }

    /// Takes out the exchanges `predicate` picks; the rest keep their order.
    mutating func remove(where predicate: (PoolExchange) -> Bool) -> [PoolExchange] {
        var removed: [PoolExchange] = []
        var kept: [PoolExchange?] = []
        kept.reserveCapacity(count)
        for slot in slots[head...] {
            guard let exchange = slot else { continue }
            if predicate(exchange) { removed.append(exchange) } else { kept.append(exchange) }
        }
        guard !removed.isEmpty else { return [] }
        slots = kept
        head = 0
        return removed
    }

    mutating func removeAll() -> [PoolExchange] {
        defer {
            slots.removeAll()
            head = 0
        }
        return slots[head...].compactMap { $0 }
    }

    /// The waiting exchanges, oldest first, for a look that changes nothing.
    var waiting: some Sequence<PoolExchange> { slots[head...].lazy.compactMap { $0 } }

    private mutating func compact() {
        if head == slots.count {
            slots.removeAll(keepingCapacity: slots.count <= 65_536)
            head = 0
        } else if head > 4096, head * 2 > slots.count {
            slots.removeFirst(head)
            head = 0
        }
    }
}
