import Foundation
import TernProtocol

/// A push subscription's changes as a webhook hears of them (`subscription.changed`), made in the
/// transaction that writes them: a subscription made, its status changed (`push/subscribe`,
/// `push/suspend`, `push/unsubscribe`, `push/unsuspend`, another profile's subscribe with
/// `replace`) or its token changed (`push/update`). The project's webhooks are asked once, from
/// the store's directory; a project without one pays that lookup and nothing more.
///
/// ```json
/// {"type": "subscription.changed", "time": 1765432100000, "profile_id": "p_3fa2", "resource_id": 1,
///  "provider": "ios-apns", "token": "a1b2…", "status": "unsubscribed", "previous_status": "subscribed"}
/// ```
struct SubscriptionEvents {
    let tx: any StoreTransaction
    let projectId: Int64
    let now: Int64
    /// Whether a webhook of the project wants them.
    let wanted: Bool

    init(_ tx: any StoreTransaction, directory: WebhookDirectory, projectId: Int64, now: Int64) throws {
        self.tx = tx
        self.projectId = projectId
        self.now = now
        wanted = try directory.wanted(tx, projectId: projectId, now: now).contains(.subscriptionChanged)
    }

    /// Queues an event when `subscription`, as written, is new (`before` nil) or has another status
    /// or token than `before`. `profile`: its profile's public id when the caller has it (read
    /// otherwise).
    func note(_ subscription: SubscriptionValues, before: SubscriptionValues?, profile: String? = nil) throws {
        guard wanted, subscription.channel == .push else { return }
        let tokenChanged = before.map { $0.token != subscription.token || $0.provider != subscription.provider }
        guard before?.status != subscription.status || tokenChanged == true else { return }
        var json = WebhookJSON(type: WebhookEventType.subscriptionChanged.rawValue, time: now)
        json.string("profile_id", try profile ?? tx.profile(id: subscription.profileId)?.publicId)
        json.integer("resource_id", subscription.resourceId)
        json.string("provider", subscription.provider?.rawValue)
        json.string("token", subscription.token)
        json.string("status", subscription.status.rawValue)
        json.string("previous_status", before?.status.rawValue)
        if tokenChanged == true {
            json.string("previous_provider", before?.provider?.rawValue)
            json.string("previous_token", before?.token)
        }
        try tx.enqueueWebhookEvents(projectId: projectId, type: .subscriptionChanged, bodies: [json.text], now: now)
    }
}

/// Goals as a webhook hears of them (`goal.reached`), queued with the goals they record.
///
/// ```json
/// {"type": "goal.reached", "time": 1765432100000, "sid": "px_1", "event_name": "purchase",
///  "client_id": "c_9", "profile_id": "p_3fa2", "send_message_id": "m_3fa2.17", "payload": {"value": 12.5}}
/// ```
enum GoalEvents {
    /// `goal`'s event; `profile` is the public id of the profile it was recorded for.
    static func json(_ goal: GoalEvent, profile: String?) throws -> String {
        var json = WebhookJSON(type: WebhookEventType.goalReached.rawValue, time: goal.time)
        json.string("sid", goal.sid)
        json.string("event_name", goal.eventName)
        json.string("client_id", goal.clientId)
        json.string("profile_id", profile)
        json.string("send_message_id", goal.sendMessageId)
        json.json("payload", try goal.payload.map { try JSONCoders.encoder.encode($0) })
        json.json("utm", try goal.utm.map { try JSONCoders.encoder.encode($0) })
        return json.text
    }
}
