import Foundation
import TernProtocol

extension GoalEventRequest {
    /// Everything about goals that can be checked without the store.
    func validate(hasJWT: Bool) throws(APIError) {
        try Validation.batch(events.count, field: "events")
        if let provider { try Validation.provider(provider) }
        if let subscriptionId { try Validation.token(subscriptionId) }
        if (provider == nil) != (subscriptionId == nil) {
            throw .badRequest(
                "send provider and subscription_id together (the device's push provider and token), or neither")
        }
        for (index, goal) in events.enumerated() {
            let prefix = "events[\(index)]"
            try Validation.text(goal.sid, field: "\(prefix).sid")
            try Validation.text(goal.eventName, field: "\(prefix).event_name")
            if GoalEvent.isReserved(goal.eventName) {
                throw .badRequest(
                    "\(prefix).event_name \"\(goal.eventName.prefix(64))\" starts with $, which is reserved for events "
                        + "the server notes itself (such as $subscribed, when a device subscribes): name the goal "
                        + "without it")
            }
            try Validation.time(goal.time, field: "\(prefix).time")
            if !TextLength.fits(goal.clientId, max: 256) {
                throw .badRequest("\(prefix).client_id is longer than 256 characters")
            }
            for (name, value) in goal.payload ?? [:] where !value.isScalar {
                throw .badRequest(
                    "\(prefix).payload field \"\(name.prefix(64))\" is not valid: payload values must be strings, "
                        + "numbers, booleans or null")
            }
            if !hasJWT, goal.profileFields != nil || goal.subscription != nil {
                throw .badRequest(
                    "\(prefix): profile_fields and subscription need a JWT (Authorization: Bearer <JWT>); "
                        + "with an rToken send the goal without them")
            }
            if let subscription = goal.subscription { try subscription.validate(field: "\(prefix).subscription") }
        }
    }
}

extension GoalSubscription {
    func validate(field: String) throws(APIError) {
        guard let known = SubscriptionChannel(rawValue: channel), known != .inapp else {
            let names = SubscriptionChannel.wireNames
            throw .badRequest("\(field).channel \"\(channel.prefix(32))\" is not valid: use one of \(names)")
        }
        if let status, SubscriptionStatus(rawValue: status) == nil {
            throw .badRequest(
                "\(field).status \"\(status.prefix(32))\" is not valid: use subscribed, suspended or unsubscribed")
        }
        if known == .push {
            if let provider { try Validation.provider(provider, field: "\(field).provider") }
            if let subscriptionId { try Validation.token(subscriptionId, field: "\(field).subscription_id") }
        }
        try CustomFields.validate(customFields)
        for name in cats ?? [] where name.isEmpty { throw .categoryNotFound }
    }
}
