import Foundation
import TernProtocol

/// Turns what the delivery engine records and what devices report into webhook events, in the
/// transaction that records them. Nothing is made for a project whose webhooks do not want it: the
/// directory says so without a statement, so sends and reports of projects without webhooks pay
/// nothing for them.
enum WebhookOutcomes {
    /// One delivery's outcome as a webhook may hear of it.
    struct Outcome: Sendable {
        var projectId: Int64
        /// The message's public id.
        var messageId: String
        var deliveryId: Int64
        var variant: Int?
        var provider: PushProvider
        var token: String
        var update: DeliveryUpdate

        /// The outcome `update` of `delivery`, a delivery of message `messageId` (its public id).
        init(delivery: ClaimedDelivery, projectId: Int64, messageId: String, variant: Int?, update: DeliveryUpdate) {
            self.projectId = projectId
            self.messageId = messageId
            self.deliveryId = delivery.id
            self.variant = variant
            self.provider = delivery.provider
            self.token = delivery.token
            self.update = update
        }

        /// The event type of a final outcome (sent, failed, invalid token); nil for a retry.
        var type: WebhookEventType? {
            switch update.status {
            case .sent: .sent
            case .failed, .invalidToken: .failed
            case .queued, .sending: nil
            }
        }

        /// The outcome's event, as of `time`.
        func event(_ type: WebhookEventType, time: Int64) -> WebhookEvent {
            WebhookEvent(
                type: type.rawValue, time: time, messageId: messageId,
                pushId: StoredMessage.pushId(publicId: messageId, deliveryId: deliveryId, variant: variant),
                deliveryId: deliveryId,
                variant: variant.map { MessageVariants.letters[$0] }, provider: provider.rawValue, token: token,
                reason: type == .failed ? update.reason : nil)
        }
    }

    /// Queues the final outcomes whose delivery's row this attempt still held (`held`) for the
    /// webhooks of their project that want them. `outcomes` is called only when some project has
    /// a webhook.
    static func enqueue(
        _ tx: any StoreTransaction, held: Set<Int64>, directory: WebhookDirectory, now: Int64,
        outcomes: () -> [Outcome]
    ) throws {
        guard !held.isEmpty, !(try directory.wanted(tx, projectId: nil, now: now)).isEmpty else { return }
        var bodies: [Int64: [WebhookEventType: [String]]] = [:]
        var wanted: [Int64: Set<WebhookEventType>] = [:]
        for outcome in outcomes() where held.contains(outcome.update.id) {
            let types =
                try wanted[outcome.projectId]
                ?? directory.wanted(tx, projectId: outcome.projectId, now: now)
            wanted[outcome.projectId] = types
            guard let type = outcome.type, types.contains(type) else { continue }
            bodies[outcome.projectId, default: [:]][type, default: []].append(outcome.event(type, time: now).json())
        }
        for (projectId, byType) in bodies {
            for (type, list) in byType {
                try tx.enqueueWebhookEvents(projectId: projectId, type: type, bodies: list, now: now)
            }
        }
    }

    /// Queues a device's new report (`event/push`) for the webhooks that want it, of the project
    /// that sent the message its push id names.
    static func enqueueReport(
        _ tx: any StoreTransaction, pushId: String, kind: PushEventRequest.Kind, time: Int64,
        directory: WebhookDirectory, now: Int64
    ) throws {
        let type = WebhookEventType(report: kind)
        guard try directory.wanted(tx, projectId: nil, now: now).contains(type),
            let (messageId, variant, deliveryId) = PushRecipient.parts(pushId)
        else { return }
        // The push id made again from its parts, as the delivery's row confirmed them.
        let event = WebhookEvent(
            type: type.rawValue, time: time, messageId: messageId,
            pushId: "\(messageId)\(variant.map { "." + $0 } ?? "").\(deliveryId)", deliveryId: deliveryId,
            variant: variant)
        try tx.enqueueWebhookEvent(messageId: messageId, type: type, body: event.json(), now: now)
    }
}
