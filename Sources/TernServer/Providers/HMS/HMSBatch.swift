import Foundation
import TernProtocol

/// Pushes that share one message (payload, type, priority, expiry, collapse id, environment),
/// up to 1,000 tokens: what one HMS request carries.
struct HMSBatch {
    static let maxTokens = 1000

    let pushes: [OutgoingPush]
    var first: OutgoingPush { pushes[0] }
    var tokens: [String] { pushes.map(\.token) }

    private struct Key: Hashable {
        let payload: Data
        let pushType: PushType
        let priority: Int?
        let expiration: Date?
        let collapseId: String?
        let environment: APNsEnvironment

        init(_ push: OutgoingPush) {
            payload = push.payload
            pushType = push.pushType
            priority = push.priority
            expiration = push.expiration
            collapseId = push.collapseId
            environment = push.environment
        }
    }

    /// Groups `pushes` by message, in their order, and cuts each group into batches of at most
    /// `size` distinct tokens (a token twice in one request would be one device notified once).
    static func make(_ pushes: [OutgoingPush], size: Int = maxTokens) -> [HMSBatch] {
        var order: [Key] = []
        var groups: [Key: [(pushes: [OutgoingPush], tokens: Set<String>)]] = [:]
        for push in pushes {
            let key = Key(push)
            if groups[key] == nil { order.append(key) }
            var batches = groups[key] ?? []
            if let index = batches.firstIndex(where: { $0.pushes.count < size && !$0.tokens.contains(push.token) }) {
                batches[index].pushes.append(push)
                batches[index].tokens.insert(push.token)
            } else {
                batches.append(([push], [push.token]))
            }
            groups[key] = batches
        }
        return order.flatMap { key in (groups[key] ?? []).map { HMSBatch(pushes: $0.pushes) } }
    }
}
