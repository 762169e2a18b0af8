import Foundation

/// rToken → caller, for a few seconds: most requests are anonymous, and their resource, project and
/// database change rarely. Saves a store round trip per request.
final class CallerCache: Sendable {
    private let kept: ExpiringCache<String, Caller>

    init(lifetime: Duration = .seconds(5), capacity: Int = 10_000) {
        kept = ExpiringCache(lifetime: lifetime, capacity: capacity)
    }

    func caller(for rToken: String) -> Caller? { kept.value(for: rToken) }

    func remember(_ caller: Caller, for rToken: String) { kept.remember(caller, for: rToken) }
}
