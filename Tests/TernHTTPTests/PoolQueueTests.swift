import Foundation
import Testing

@testable import TernHTTP

/// The pool's queue: oldest first, requests given back go to the front, removal keeps order.
@Suite struct PoolQueueTests {
    func exchanges(_ ids: Range<UInt64>) throws -> [PoolExchange] {
        let endpoint = try PoolEndpoint(origin: URL(string: "https://127.0.0.1:1")!)
        let prepared = try PoolExchange.Prepared(.init(path: "/"), endpoint: endpoint)
        return ids.map { PoolExchange(id: $0, prepared: prepared, timeout: 1) { _ in } }
    }

    @Test func takesOldestFirstAndGivenBackGoFirstAgain() throws {
        var queue = PoolQueue()
        queue.append(contentsOf: try exchanges(0..<5))
        #expect(queue.popFirst()?.id == 0)
        #expect(queue.popFirst()?.id == 1)
        #expect(queue.popFirst()?.id == 2)
        // Back in front of the rest: into the freed slots, and past them.
        queue.prepend(try exchanges(10..<12))
        queue.prepend(try exchanges(20..<23))
        var order: [UInt64] = []
        while let exchange = queue.popFirst() { order.append(exchange.id) }
        #expect(order == [20, 21, 22, 10, 11, 3, 4])
        #expect(queue.isEmpty && queue.count == 0)
    }

    @Test func removalKeepsTheOrderOfTheRest() throws {
        var queue = PoolQueue()
        queue.append(contentsOf: try exchanges(0..<10))
        _ = queue.popFirst()
        #expect(queue.remove { $0.id % 3 == 0 }.map(\.id) == [3, 6, 9])
        #expect(queue.remove { $0.id == 42 }.isEmpty)
        #expect(queue.waiting.map(\.id) == [1, 2, 4, 5, 7, 8])
        #expect(queue.removeAll().map(\.id) == [1, 2, 4, 5, 7, 8])
        #expect(queue.isEmpty)
    }

    @Test func aLongQueueStaysInOrderThroughCompaction() throws {
        var queue = PoolQueue()
        queue.append(contentsOf: try exchanges(0..<6000))
        for expected in 0..<5000 { #expect(queue.popFirst()?.id == UInt64(expected)) }
        queue.append(contentsOf: try exchanges(6000..<6010))
        #expect(queue.count == 1010)
        #expect(queue.waiting.map(\.id) == Array(5000..<6010))
    }
}
