import Foundation
import TernProtocol

/// What `devices/import` writes with a device beyond what `push/subscribe` takes: its test mark and
/// its tags. Both go in the device's own write, and only when its change applies (the row is not
/// older than the device's last word, ``SubscriptionService/change(_:to:caller:idempotency:welcomes:imported:)``).
struct ImportedBinding: Sendable, Equatable {
    /// Marks (true) or unmarks (false) the subscription as a test device; nil keeps its mark.
    var isTest: Bool?
    /// Tags set on the subscription as of the row's time: a key the device set later through the
    /// SDK (`profile/tags/set`) keeps its value; keys the row does not name keep theirs.
    var tags: [String: String]

    /// The device's `is_test` and `tags`, checked as `profile/tags/set` checks tags (a device keeps
    /// at most ``TagLimits/maxPerBinding`` of them, so an export of any device imports); nil when
    /// the device has neither.
    static func checked(isTest: Bool?, tags: [String: String]?) throws(APIError) -> ImportedBinding? {
        let tags = tags ?? [:]
        guard isTest != nil || !tags.isEmpty else { return nil }
        guard tags.count <= TagLimits.maxPerBinding else {
            throw .badRequest(
                "tags has \(tags.count) entries: a device keeps at most \(TagLimits.maxPerBinding)")
        }
        try TagLimits.check(tags)
        return ImportedBinding(isTest: isTest, tags: tags)
    }

    /// Writes the tags on subscription `id` as of `time`; `fresh` when this write made it (it has
    /// no tags yet, so none are read).
    ///
    /// - Throws: 400 when the subscription would keep more than ``TagLimits/maxPerBinding`` tags
    ///   (the device fails alone; its write is undone).
    func writeTags(_ tx: any StoreTransaction, subscriptionId id: Int64, fresh: Bool, time: Int64) throws {
        guard !tags.isEmpty else { return }
        if !fresh {
            let total = try tx.tags(subscriptionId: id).merging(tags) { _, new in new }.count
            guard total <= TagLimits.maxPerBinding else {
                throw APIError.badRequest(
                    "the device would have \(total) tags with the ones it has: keep at most "
                        + "\(TagLimits.maxPerBinding) (remove some with profile/tags/remove, or import fewer)")
            }
        }
        try tx.importTags(subscriptionId: id, tags, time: time)
    }
}
