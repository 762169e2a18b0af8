import Foundation
import TernTestSupport
import Testing

@testable import TernCore

@Suite("The outbox database keeps rows, order and sealed batches")
struct OutboxStoreTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func theOrderedLaneOffersOnlyItsOldestRow() async throws {
        let directory = try TemporaryDirectory(prefix: "outbox")
        defer { directory.remove() }
        let store = try CoreStore(directory: directory.url)
        try await store.enqueue((0..<3).map { Entries.ordered($0) }, now: now)
        guard case .send(let rows) = try await store.nextOrdered(now: now).work else {
            Issue.record("expected the head row")
            return
        }
        #expect(rows.count == 1 && rows[0].body == Data("{\"n\":0}".utf8))
        try await store.reschedule(
            [rows[0].id], attempts: 1, firstAttemptAt: now, nextAttemptAt: now.addingTimeInterval(5))
        // The head is backing off: the lane waits for it instead of passing it.
        guard case .waitUntil(let date) = try await store.nextOrdered(now: now).work else {
            Issue.record("expected a wait")
            return
        }
        #expect(date == now.addingTimeInterval(5))
    }

    @Test func aSealedBatchKeepsItsRowsAndKeyAcrossAReopen() async throws {
        let directory = try TemporaryDirectory(prefix: "outbox")
        defer { directory.remove() }
        var store: CoreStore? = try CoreStore(directory: directory.url)
        try await store!.enqueue((0..<5).map { Entries.event("a\($0)") }, now: now)
        guard case .send(let sealed) = try await store!.nextBatch(now: now, maxSize: 3) else {
            Issue.record("expected a batch")
            return
        }
        #expect(sealed.count == 3)
        #expect(Set(sealed.map(\.batchKey)).count == 1)
        store = nil  // the process dies before the answer
        let reopened = try CoreStore(directory: directory.url)
        try await reopened.enqueue([Entries.event("b0")], now: now)
        guard case .send(let again) = try await reopened.nextBatch(now: now, maxSize: 100) else {
            Issue.record("expected the sealed batch again")
            return
        }
        #expect(again.map(\.id) == sealed.map(\.id))
        #expect(again.first?.batchKey == sealed.first?.batchKey)
        try await reopened.acknowledge(again.map(\.id))
        guard case .send(let rest) = try await reopened.nextBatch(now: now, maxSize: 100) else {
            Issue.record("expected the rest")
            return
        }
        #expect(rest.count == 3)
        let statistics = try await reopened.statistics()
        #expect(statistics.enqueuedTotal == 6 && statistics.acknowledgedTotal == 3)
    }

    @Test func expiredQueriesAreDroppedUnsent() async throws {
        let directory = try TemporaryDirectory(prefix: "outbox")
        defer { directory.remove() }
        let store = try CoreStore(directory: directory.url)
        var query = Entries.ordered(1, function: "latest")
        query.expiresAfter = 60
        try await store.enqueue([query, Entries.ordered(2)], now: now)
        let (work, expired) = try await store.nextOrdered(now: now.addingTimeInterval(61))
        #expect(expired.count == 1)
        guard case .send(let rows) = work else {
            Issue.record("expected the next row")
            return
        }
        #expect(rows.first?.body == Data("{\"n\":2}".utf8))
        #expect(try await store.statistics().droppedTotal == 1, "an expired query counts as dropped")
    }

    @Test func settingsRoundTrip() async throws {
        let directory = try TemporaryDirectory(prefix: "outbox")
        defer { directory.remove() }
        let store = try CoreStore(directory: directory.url)
        try await store.setSetting("k", TokenData(provider: "ios-apns", token: "abc"))
        #expect(await store.setting("k", as: TokenData.self) == TokenData(provider: "ios-apns", token: "abc"))
        try await store.setSetting("k", TokenData?.none)
        #expect(await store.setting("k", as: TokenData.self) == nil)
    }
}

@Suite("Rows this version cannot read never block a lane")
struct UnreadableRowTests {
    @Test func anUnknownEndpointIsDroppedAndTheNextRowGoes() async throws {
        let directory = try TemporaryDirectory(prefix: "outbox")
        defer { directory.remove() }
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let store = try CoreStore(directory: directory.url)
        try await store.enqueue([Entries.ordered(1), Entries.ordered(2), Entries.event("e1")], now: now)
        try await store.corruptForTest("UPDATE outbox SET endpoint = 'push/teleport' WHERE id = 1")
        try await store.corruptForTest("UPDATE outbox SET meta = x'00' WHERE lane = 'events'")
        guard case .send(let rows) = try await store.nextOrdered(now: now).work else {
            Issue.record("expected the second row")
            return
        }
        #expect(rows.first?.body == Data("{\"n\":2}".utf8))
        guard case .empty = try await store.nextBatch(now: now, maxSize: 10) else {
            Issue.record("the unreadable event should be gone")
            return
        }
        #expect(try await store.statistics().droppedTotal == 2)
    }
}

extension CoreStore {
    func corruptForTest(_ sql: String) throws {
        try db.execute(sql)
    }
}
