import Foundation

/// Tags of a binding: the push subscription of one install (resource, provider, token) in one
/// profile. A binding's tags go when the install moves to another profile (``clearTags(subscriptionId:)``).
public protocol TagQueries {
    /// A binding's tags, by key.
    func tags(subscriptionId: Int64) throws -> [String: String]
    /// Adds or overwrites these tags; other keys keep their values.
    func setTags(subscriptionId: Int64, _ tags: [String: String], now: Int64) throws
    /// Adds these tags as of `time` (ms since 1970, the import's row time): each is written unless
    /// the binding's tag of that key was set later (its `updated_at` is after `time`), so what a
    /// device set through the SDK since is kept; other keys keep their values.
    func importTags(subscriptionId: Int64, _ tags: [String: String], time: Int64) throws
    /// Removes these keys; unknown keys are ignored.
    func removeTags(subscriptionId: Int64, keys: [String]) throws
    /// Removes every tag of the binding.
    func clearTags(subscriptionId: Int64) throws
    /// Ids of a resource's subscriptions with tag `key` (equal to `value` when given), oldest first:
    /// what an audience filter picks from.
    func subscriptionIds(resourceId: Int64, tag key: String, value: String?) throws -> [Int64]
}
