import Foundation
import TernProtocol

/// Turns any ``Subscription`` into the goal's wire form, refusing what the server would refuse.
enum SubscriptionWire {
    static func make(_ subscription: any Subscription) -> Result<GoalSubscription, GoalDraft.Problem> {
        func problem(_ reason: String, _ field: String) -> Result<GoalSubscription, GoalDraft.Problem> {
            .failure(GoalDraft.Problem(reason: reason, field: "subscription.\(field)"))
        }
        let wire: GoalSubscription
        do {
            // Through its own encoding, so an app's own conforming type is read the same way.
            let data = try JSONEncoder().encode(AnySubscription(subscription))
            wire = try JSONDecoder().decode(GoalSubscription.self, from: data)
        } catch {
            return problem("the subscription cannot be encoded: \(error)", "channel")
        }
        guard let channel = SubscriptionChannel(rawValue: wire.channel) else {
            return problem(
                "channel \"\(wire.channel)\" is not one of \(SubscriptionChannel.wireNames)", "channel")
        }
        if wire.resourceId <= 0 {
            return problem("resourceId \(wire.resourceId) is not a resource id (they start at 1)", "resourceId")
        }
        if let status = wire.status, SubscriptionStatus(rawValue: status) == nil {
            return problem("status \"\(status)\" is not subscribed, suspended or unsubscribed", "status")
        }
        if let key = wire.customFields?.first(where: { !$0.value.isScalar })?.key {
            return problem(
                "custom field \"\(key)\" is an object or a list: custom fields take only strings, numbers, "
                    + "booleans and nil", "customFields.\(key)")
        }
        if let cats = wire.cats, cats.contains(where: \.isEmpty) {
            return problem("a category name is empty", "cats")
        }
        switch channel {
        case .email where (wire.email ?? "").isEmpty: return problem("email is empty", "email")
        case .sms where (wire.phone ?? "").isEmpty: return problem("phone is empty", "phone")
        case .push where PushProvider(rawValue: wire.provider ?? "") == nil:
            let known = PushProvider.wireNames
            return problem("provider \"\(wire.provider ?? "")\" is not one of \(known)", "provider")
        case .push where (wire.subscriptionId ?? "").isEmpty:
            return problem("subscriptionId is empty: pass the device's push token", "subscriptionId")
        case let channel where SubscriptionChannel.ccData.contains(channel) && (wire.ccData ?? [:]).isEmpty:
            return problem("ccData is empty: pass the channel's data (e.g. the chat id)", "ccData")
        default: return .success(wire)
        }
    }
}
