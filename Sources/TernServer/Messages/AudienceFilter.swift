import Foundation
import TernProtocol

/// Which push subscriptions a message goes to. Whatever the audience: only `subscribed`, only known
/// push providers, never a token marked invalid, never a subscription that turned the message's
/// category off; then the audience's own filters, all of which must hold.
///
/// ```swift
/// let filter = AudienceFilter(audience, category: "promo")
/// filter.admits(candidate, tags: nil)
/// ```
struct AudienceFilter: Sendable, Equatable {
    var resourceId: Int64?
    /// The message's category: a subscription with it set to false is skipped.
    var category: String?
    /// Each must be active in the subscription.
    var categories: [String]
    /// Custom fields that must equal these values.
    var fields: [String: JSONValue]
    /// Tags that must be present (and equal, when the value is not null).
    var tags: [String: String?]

    init(_ audience: MessageAudience, category: String?) {
        resourceId = audience.resourceId
        self.category = category
        categories = audience.categories ?? []
        fields = audience.fields ?? [:]
        tags = audience.tags ?? [:]
    }

    /// True when `admits` needs the subscription's tags.
    var needsTags: Bool { !tags.isEmpty }

    /// What of a candidate's subscription `admits` reads beyond push's rules: its custom fields
    /// for a fields filter, its categories for a category or categories filter.
    var reads: CandidateDetail {
        var reads: CandidateDetail = []
        if !fields.isEmpty { reads.insert(.fields) }
        if category != nil || !categories.isEmpty { reads.insert(.cats) }
        return reads
    }

    func admits(_ candidate: AudienceCandidate, tags subscriptionTags: [String: String]?) -> Bool {
        let s = candidate.subscription
        guard s.channel == .push, s.status == .subscribed, s.provider != nil,
            !s.token.isEmpty, !candidate.tokenIsInvalid
        else { return false }
        return matches(s, tags: subscriptionTags)
    }

    /// The audience's own filters (resource, category, categories, custom fields, tags) on a
    /// subscription of any channel: what ``admits(_:tags:)`` checks after push's rules, and what an
    /// in-app campaign's audience checks on the profile's in-app subscription.
    func matches(_ s: Subscription, tags subscriptionTags: [String: String]?) -> Bool {
        if let resourceId, s.resourceId != resourceId { return false }
        if let category, s.cats[category] == false { return false }
        for name in categories where s.cats[name] != true { return false }
        for (name, value) in fields where s.fields[name] != value { return false }
        for (key, expected) in tags {
            guard let actual = subscriptionTags?[key] else { return false }
            if let expected, actual != expected { return false }
        }
        return true
    }
}
