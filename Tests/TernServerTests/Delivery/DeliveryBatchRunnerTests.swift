import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// What the runner makes of claimed deliveries before sending: a chunk is prepared in runs of one
/// message (each message lent to its run, not copied for every delivery), in the chunk's order,
/// and the deliveries of a message that is gone stay out of what is sent while the rest of their
/// chunk still goes.
@Suite struct DeliveryBatchRunnerTests {
    @Test func aChunkOfSeveralMessagesIsPreparedInItsOrderWithEachDeliverysOwnMessage() async throws {
        let fixture = try await StoreFixture(.sqlite)
        defer { Task { await fixture.finish() } }
        let runner = DeliveryBatchRunner(
            store: fixture.store, senders: SenderRegistry(), metrics: Metrics(),
            logger: Logger(minimum: .error, sink: { _ in }), resolver: OutcomeResolver(policy: DeliveryRetryPolicy()),
            leaseMilliseconds: 1_000, clock: { 10 }, jitter: { 0.5 })
        func message(_ id: Int64) -> StoredMessage {
            var message = StoreSuiteDeliveryTests.message(projectId: 1, resourceId: 1, publicId: "m-\(id)")
            message.id = id
            message.collapseId = "collapse-\(id)"
            return message
        }
        // Message 3 is gone; 1 and 2 are interleaved as a retry round claims them.
        let order: [(delivery: Int64, message: Int64)] = [(11, 1), (12, 1), (21, 2), (31, 3), (32, 3), (13, 1)]
        let claimed = order.map {
            ClaimedDelivery(
                id: $0.delivery, messageId: $0.message, subscriptionId: $0.delivery, provider: .apns,
                token: "t\($0.delivery)", attempt: 2)
        }
        let subscriptions = Dictionary(
            uniqueKeysWithValues: order.map {
                (
                    $0.delivery,
                    PushState(
                        status: .subscribed, provider: .apns, token: "t\($0.delivery)", updatedAt: 1,
                        invalidMarkedAt: nil, invalidReason: nil, apnsEnvironment: nil)
                )
            })
        let work = try await runner.settle(
            claimed, messages: [1: message(1), 2: message(2)], subscriptions: subscriptions, now: 10)
        #expect(work.map(\.delivery.id) == [11, 12, 21, 13])
        #expect(work.map(\.push.messageId) == ["m-1", "m-1", "m-2", "m-1"])
        #expect(work.map(\.push.collapseId) == ["collapse-1", "collapse-1", "collapse-2", "collapse-1"])
        #expect(work.map(\.push.token) == ["t11", "t12", "t21", "t13"])
    }
}
