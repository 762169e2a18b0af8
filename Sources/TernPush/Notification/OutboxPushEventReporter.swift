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

    /// A reporter writing into `core`'s outbox.
    ///
    /// - Parameter core: The SDK's core (`Tern.shared.core`).
    public init(core: CoreServices) {
        self.core = core
    }

    /// Returns once the report is in the outbox (or at once when the SDK cannot take it).
    public func reportDelivery(messageId: String) async {
        await enqueue(.delivery, messageId: messageId, function: "deliveryEvent")
    }

    /// Records that the person opened message `messageId` (`event/push` with `open`); returns once the
    /// report is in the outbox.
    ///
    /// - Parameter messageId: The message id from the push.
    public func reportOpen(messageId: String) async {
        await enqueue(.open, messageId: messageId, function: "openEvent")
    }

    private func enqueue(_ type: PushEventRequest.Kind, messageId: String, function: String) async {
        let item = PushEventRequest.Item(
            messageId: messageId, type: type, time: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
        guard let body = try? JSONEncoder().encode(item) else {
            core.emit(.error(function, PushModuleEvents.pushEventRequestDataIsNil, value: ["message_id": messageId]))
            return
        }
        let entry = OutboxEntry(
            endpoint: .eventPush, lane: .events, body: body,
            meta: OutboxMeta(
                function: function, success: PushModuleEvents.pushEventRequestSuccessful,
                failure: PushModuleEvents.pushEventRequestFailed))
        let (written, done) = AsyncStream<Void>.makeStream()
        core.perform(function) { ready in
            await ready.enqueue(entry)
            done.finish()
        }
        // Ends when the row is written; a caller with a deadline (the extension) stops waiting sooner.
        for await _ in written {}
    }
}
