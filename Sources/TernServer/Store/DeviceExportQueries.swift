import Foundation
import TernProtocol

/// What a resource's device export reads (`GET …/resources/{resource_id}/devices/export`): its push
/// subscriptions a page at a time, with what each one's profile holds.
public protocol DeviceExportQueries {
    /// The resource's push subscriptions whose ids are above `cursor`, in id order, at most `limit`,
    /// each with its profile. Reads at most `2 × limit` rows of an index whatever the resource's
    /// size: a keyset, never an offset.
    ///
    /// - Parameters:
    ///   - resourceId: The resource.
    ///   - cursor: The last id of the page before (0 for the first page).
    ///   - limit: The most subscriptions to return.
    func pushSubscriptions(resourceId: Int64, after cursor: Int64, limit: Int) throws
        -> [(subscription: Subscription, profile: Profile)]
    /// The fields of each of these profiles; a profile without any is absent.
    ///
    /// - Parameter profileIds: The profiles' row ids.
    func profileFields(profileIds: [Int64]) throws -> [Int64: [String: JSONValue]]
    /// How many push subscriptions each of these profiles has, in every resource of its database.
    ///
    /// - Parameter profileIds: The profiles' row ids.
    func pushSubscriptionCounts(profileIds: [Int64]) throws -> [Int64: Int]
    /// The tags of each of these subscriptions, by key; a subscription without any is absent.
    ///
    /// - Parameter subscriptionIds: The subscriptions' row ids.
    func tags(subscriptionIds: [Int64]) throws -> [Int64: [String: String]]
}
