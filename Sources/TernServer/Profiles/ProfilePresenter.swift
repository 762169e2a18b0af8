import Foundation
import TernProtocol

/// Builds the wire's `ProfileData` from stored rows.
enum ProfilePresenter {
    /// The profile with one subscription (or none), its categories titled from the resource.
    /// `categories` are the subscription's resource's, when the caller has them already; `statuses`
    /// those of all the profile's subscriptions, when the caller knows them (a profile the request
    /// made has the one subscription it made). The subscription's values are all the answer shows
    /// (not its id, which a new row written with the write's next statement does not have yet).
    static func profileData(
        _ tx: any StoreTransaction, profile: Profile, subscription: SubscriptionValues?,
        categories: [ResourceCategory]? = nil,
        statuses: [SubscriptionStatus]? = nil
    ) throws -> ProfileData {
        // The statuses only: the profile's other subscriptions' fields are not part of the answer, and
        // reading whole rows parsed every one's fields and categories on every SDK write.
        let statuses = try statuses ?? tx.subscriptionStatuses(profileId: profile.id)
        return ProfileData(
            id: profile.publicId, status: status(of: statuses), acid: nil, isTest: profile.isTest,
            subscription: try subscription.map { try subscriptionData(tx, $0, categories: categories) })
    }

    static func subscriptionData(
        _ tx: any StoreTransaction, _ subscription: SubscriptionValues, categories: [ResourceCategory]? = nil
    ) throws -> SubscriptionData {
        let categories = try categories ?? tx.categories(resourceId: subscription.resourceId)
        let known = Set(categories.map(\.name))
        var cats = categories.map {
            CategoryData(name: $0.name, title: $0.title, steady: $0.steady, active: subscription.cats[$0.name] ?? false)
        }
        // Categories the resource dropped since stay visible, without a title.
        for (name, active) in subscription.cats.sorted(by: { $0.key < $1.key }) where !known.contains(name) {
            cats.append(CategoryData(name: name, title: nil, steady: nil, active: active))
        }
        return SubscriptionData(
            subscriptionId: subscription.token, hashId: subscription.hashId,
            provider: Self.providerName(subscription),
            status: subscription.status.rawValue, fields: subscription.fields, cats: cats)
    }

    /// A profile is as subscribed as its most subscribed subscription.
    static func status(of statuses: [SubscriptionStatus]) -> String {
        let statuses = Set(statuses)
        for status in [SubscriptionStatus.subscribed, .suspended] where statuses.contains(status) {
            return status.rawValue
        }
        return SubscriptionStatus.unsubscribed.rawValue
    }

    /// The subscription's `provider` as the SDK has always read it: the push provider, `inapp` for
    /// the in-app subscription, null for the channels without one.
    static func providerName(_ subscription: SubscriptionValues) -> String? {
        let name = subscription.channel.storedProvider(subscription.provider)
        return name.isEmpty ? nil : name
    }
}
