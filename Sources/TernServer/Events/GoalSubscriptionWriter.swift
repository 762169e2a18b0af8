import Foundation
import TernProtocol

/// Applies the one subscription a goal may carry (email, SMS, push or a cc-data channel).
struct GoalSubscriptionWriter {
    let caller: Caller
    let now: Int64

    /// Answers the subscription's resource when it is a push subscription that became subscribed
    /// (``SubscriptionValues/becameSubscribed(from:)``): where it starts welcomes.
    @discardableResult
    func apply(
        _ tx: any StoreTransaction, _ wire: GoalSubscription, to profile: Profile, time: Int64, index: Int
    ) throws -> Int64? {
        let field = "events[\(index)].subscription"
        guard let resource = try tx.resource(id: Int64(wire.resourceId)), resource.projectId == caller.project.id
        else {
            throw APIError.badRequest(
                "\(field).resource_id \(wire.resourceId) is not a resource of project \(caller.project.id)")
        }
        guard let channel = SubscriptionChannel(rawValue: wire.channel), resource.channels.contains(channel) else {
            throw APIError.badRequest(
                "\(field).channel \"\(wire.channel)\" is not a channel of resource \(resource.id) "
                    + "(it has \(resource.channels.map(\.rawValue).joined(separator: ", ")))")
        }
        try Validation.categories(wire.cats ?? [], in: try tx.categories(resourceId: resource.id))
        let (provider, address) = try GoalSubscription.address(of: wire, on: channel, field: field)
        let status = wire.status.flatMap(SubscriptionStatus.init(rawValue:)) ?? .subscribed
        let existing = try tx.subscription(
            of: profile.id, resourceId: resource.id, channel: channel, provider: provider, token: address)
        if let existing, time < existing.clientTime { return nil }
        let read =
            try existing
            ?? tx.insertSubscription(
                SubscriptionValues(
                    profileId: profile.id, resourceId: resource.id, channel: channel, provider: provider,
                    token: address, status: status,
                    hashId: SubscriptionService.hashId(profile, resource.id, channel.storedProvider(provider), address),
                    clientTime: time), now: now)
        var subscription = read
        if wire.status != nil || existing == nil { subscription.status = status }
        subscription.fields = CustomFields.merge(subscription.fields, wire.customFields)
        for name in wire.cats ?? [] { subscription.cats[name] = true }
        if let priority = wire.priority { subscription.priority = Int64(priority) }
        if let ccData = wire.ccData { subscription.ccData = ccData }
        subscription.clientTime = time
        subscription.updatedAt = now
        try tx.updateSubscription(subscription, from: read)
        return subscription.values.becameSubscribed(from: existing?.values) ? resource.id : nil
    }
}

extension GoalSubscription {
    /// The provider and address that identify this subscription on its channel.
    static func address(of wire: GoalSubscription, on channel: SubscriptionChannel, field: String) throws(APIError)
        -> (PushProvider?, String)
    {
        switch channel {
        case .email:
            guard let email = wire.email, !email.isEmpty else { throw .badRequest("\(field).email is required") }
            return (nil, email)
        case .sms:
            guard let phone = wire.phone, !phone.isEmpty else { throw .badRequest("\(field).phone is required") }
            return (nil, phone)
        case .push:
            guard let provider = wire.provider, let token = wire.subscriptionId else {
                throw .badRequest("\(field) of channel push needs provider and subscription_id")
            }
            return (try Validation.provider(provider, field: "\(field).provider"), token)
        case .telegramBot, .whatsapp, .viber, .notify:
            guard let ccData = wire.ccData, !ccData.isEmpty,
                let data = try? JSONCoders.encoder.encode(ccData)
            else {
                throw .badRequest("\(field) of channel \(wire.channel) needs cc_data (e.g. the chat id)")
            }
            return (nil, String(decoding: data, as: UTF8.self))
        case .inapp:
            throw .badRequest("\(field).channel inapp is made by inapp/subscribe, not by a goal")
        case .liveActivity, .liveActivityStart:
            throw .badRequest("\(field).channel \(channel.rawValue) is made by live-activity/token, not by a goal")
        }
    }
}
