import Foundation
import TernProtocol

/// What people do with in-app messages as a webhook hears of it (`inapp.shown`, `inapp.clicked`,
/// `inapp.closed`, `inapp.error`), queued in the transaction that counts the device's
/// `inapp/event` into its campaign's statistics: once per idempotency key, as they count it. `time`
/// is the device's (`at`).
///
/// ```json
/// {"type": "inapp.clicked", "time": 1765432100000, "campaign_id": "7", "profile_id": "p_3fa2",
///  "provider": "ios-apns", "token": "a1b2…", "button": "upgrade"}
/// ```
enum InAppWebhookEvents {
    /// `request`'s event; `provider` is its push identity's, checked; `profile` is the public id of
    /// the device's profile (the JWT's, or the holder of the push identity it names), when Tern knows one.
    static func json(
        _ request: InAppEventRequest, campaignId: Int64, provider: PushProvider?, profile: String?
    ) -> String {
        var json = WebhookJSON(
            type: WebhookEventType(inApp: request.type).rawValue, time: request.at.milliseconds)
        json.string("campaign_id", String(campaignId))
        json.string("profile_id", profile)
        json.string("provider", provider?.rawValue)
        json.string("token", request.subscriptionId)
        if request.type == .clicked { json.string("button", request.buttonId) }
        if request.type == .error { json.string("reason", request.reason) }
        return json.text
    }
}

/// A person's inbox changes as a webhook hears of them (`inbox.read`, `inbox.deleted`), queued in
/// the transaction that writes the change: only a real one (a message already read, deleted or
/// expired changes nothing and tells nothing). `time` is when the server wrote it.
///
/// ```json
/// {"type": "inbox.read", "time": 1765432100000, "message_id": "i_42", "profile_id": "p_3fa2"}
/// ```
enum InboxWebhookEvents {
    static func json(_ type: WebhookEventType, messageId: String, profile: String, now: Int64) -> String {
        var json = WebhookJSON(type: type.rawValue, time: now)
        json.string("message_id", messageId)
        json.string("profile_id", profile)
        return json.text
    }
}
