import Foundation
import TernProtocol

/// What `push/subscribe` and `inapp/subscribe` (and their unsubscribe and suspend) write on the
/// subscription they change, decided once for both: the new status, the request's categories over
/// the ones the subscription had, its custom fields merged in, at the request's time; and, for a
/// device import, its test mark.
struct SubscriptionChange {
    var status: SubscriptionStatus
    var cats: [String: Bool]
    var fields: [String: JSONValue]
    var clientTime: Int64
    /// The test mark to write (`devices/import`'s `is_test`); nil keeps the subscription's.
    var isTest: Bool?

    init(
        to status: SubscriptionStatus, existing: Subscription?, cats requested: [CategoryData]?,
        customFields: [String: JSONValue]?, time: Int64, isTest: Bool? = nil
    ) {
        var cats = existing?.cats ?? [:]
        for cat in requested ?? [] {
            if let name = cat.name { cats[name] = cat.active ?? true }
        }
        self.status = status
        self.cats = cats
        self.fields = CustomFields.merge(existing?.fields ?? [:], customFields)
        self.clientTime = time
        self.isTest = isTest
    }

    /// `existing` with the change applied, written.
    func update(_ existing: Subscription, _ tx: any StoreTransaction, now: Int64) throws -> Subscription {
        var changed = existing
        changed.status = status
        changed.fields = fields
        changed.cats = cats
        changed.clientTime = clientTime
        changed.isTest = isTest ?? existing.isTest
        changed.updatedAt = now
        try tx.updateSubscription(changed, from: existing)
        return changed
    }
}

extension SubscriptionValues {
    /// Whether this push subscription, as written, became subscribed: made subscribed (`before`
    /// nil), or subscribed from unsubscribed or suspended. A repeat subscribe of a subscribed one
    /// (the SDK's on every launch) and a token update are not: what starts a welcome
    /// (``MessageTrigger/subscribed``), the status change a webhook also hears of.
    func becameSubscribed(from before: SubscriptionValues?) -> Bool {
        channel == .push && status == .subscribed && before?.status != .subscribed
    }
}
