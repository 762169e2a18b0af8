import Foundation
import TernCore
import TernProtocol

/// Delivery and open reports written to the SDK's outbox as `event/push` items: the core sends them
/// in batches, keeps them across crashes, and the server records each message's delivery and open
/// once however often they arrive.
///
/// ```swift
/// let reporter = OutboxPushEventReporter(core: Tern.shared.core)
/// await reporter.reportDelivery(messageId: "m-42")
/// ```
public struct OutboxPushEventReporter: DeliveryReporting, OpenReporting {
    let core: CoreServices
    /// How a report's body is encoded (tests: one that fails).
    var encoding = RequestEncoding.json

    /// A reporter writing into `core`'s outbox.
    ///
    /// - Parameter core: The SDK's core (`Tern.shared.core`).
    public init(core: CoreServices) {
        self.core = core
    }

    /// Returns once the report is in the outbox (or at once when the SDK cannot take it).
    public func reportDelivery(messageId: String) async {
        await written(queue(.delivery, messageId: messageId, function: "deliveryEvent"))
    }

    /// Records that the person opened message `messageId` (`event/push` with `open`); returns once the
    /// report is in the outbox.
    ///
    /// - Parameter messageId: The message id from the push.
    public func reportOpen(messageId: String) async {
        await written(queue(.open, messageId: messageId, function: "openEvent"))
    }

    /// Queues a delivery report in the SDK's mailbox now: it is written in order with the calls made
    /// before and after it (a bare task would let it land anywhere).
    public func queueDelivery(messageId: String) {
        _ = queue(.delivery, messageId: messageId, function: "deliveryEvent")
    }

    /// Queues an open report in the SDK's mailbox now (see ``queueDelivery(messageId:)``).
    public func queueOpen(messageId: String) {
        _ = queue(.open, messageId: messageId, function: "openEvent")
    }

    /// Posts the report to the mailbox; the stream ends once its row is written (or refused, or the
    /// SDK shut down first).
    private func queue(_ type: PushEventRequest.Kind, messageId: String, function: String) -> AsyncStream<Void> {
        let item = PushEventRequest.Item(
            messageId: messageId, type: type, time: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
        guard let body = try? encoding.encode(item) else {
            core.emit(.error(function, PushModuleEvents.pushEventRequestDataIsNil, value: ["message_id": messageId]))
            return AsyncStream { $0.finish() }
        }
        let entry = OutboxEntry(
            endpoint: .eventPush, lane: .events, body: body,
            meta: OutboxMeta(
                function: function, success: PushModuleEvents.pushEventRequestSuccessful,
                failure: PushModuleEvents.pushEventRequestFailed))
        return core.performed(function) { ready in await ready.enqueue(entry) }
    }

    /// Ends when the row is written; a caller with a deadline (the extension) stops waiting sooner.
    private func written(_ stream: AsyncStream<Void>) async {
        for await _ in stream {}
    }
}
