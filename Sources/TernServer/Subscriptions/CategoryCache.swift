import Foundation

/// A resource's categories, for a few seconds: every subscribe checks the categories it names
/// against its resource's and answers with their titles, and on PostgreSQL that read was one of a
/// new device's five round trips. Categories change rarely, through the management API.
///
/// Kept as long as ``CallerCache`` keeps the caller's resource itself (five seconds). A category the
/// request names that the kept list lacks is read again before the request is refused, so a
/// category made a moment ago (on this node or another) is never refused; one deleted a moment ago
/// may still be accepted and shown for that while, as the resource may.
final class CategoryCache: Sendable {
    private let kept: ExpiringCache<Int64, [ResourceCategory]>

    init(lifetime: Duration = .seconds(5), capacity: Int = 10_000) {
        kept = ExpiringCache(lifetime: lifetime, capacity: capacity)
    }

    /// The resource's categories: the kept ones while fresh and naming every one of `names`, else
    /// what `read` returns (then kept).
    func categories(
        resourceId: Int64, naming names: some Sequence<String>, read: () throws -> [ResourceCategory]
    ) rethrows -> [ResourceCategory] {
        if let kept = kept.value(for: resourceId), names.allSatisfy({ name in kept.contains { $0.name == name } }) {
            return kept
        }
        let fresh = try read()
        kept.remember(fresh, for: resourceId)
        return fresh
    }
}
