import Foundation
import TernProtocol

extension StoreTransaction {
    /// The profile's subscription on (resource, channel, provider, token), if it has one: the lookup
    /// subscribing, updating a token, tags, profile reads and goals all make.
    func subscription(
        of profileId: Int64, resourceId: Int64, channel: SubscriptionChannel = .push, provider: PushProvider?,
        token: String
    ) throws -> Subscription? {
        try subscriptions(resourceId: resourceId, channel: channel, provider: provider, token: token)
            .first { $0.profileId == profileId }
    }
}
