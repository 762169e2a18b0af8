import Foundation
import TernProtocol

/// Test devices: a push subscription marked `is_test`, or any push subscription of a profile marked
/// `is_test`. A message sent with `test: true` goes to these only (see `TestSend`).
///
/// ```swift
/// let marked = try await service.mark(resourceId: 1, .init(subscriptionId: token, isTest: true))
/// let all = try await service.list(projectId: 1)
/// ```
struct TestDeviceService: Sendable {
    let store: any Store

    /// `PUT /api/v1/admin/resources/{resource_id}/test-devices`: the device's body.
    struct Mark: Codable, Sendable, Equatable {
        /// The push provider; default `ios-apns`.
        var provider: String?
        /// The device's push token.
        var subscriptionId: String
        /// True marks the device as a test device, false unmarks it.
        var isTest: Bool

        init(provider: String? = nil, subscriptionId: String, isTest: Bool) {
            self.provider = provider
            self.subscriptionId = subscriptionId
            self.isTest = isTest
        }

        enum CodingKeys: String, CodingKey {
            case provider
            case subscriptionId = "subscription_id"
            case isTest = "is_test"
        }
    }

    /// Marks (or unmarks) every push subscription of the device (provider and token) in the
    /// resource, whatever its profile. The subscriptions' `updated_at` stays the device's: a mark
    /// is not a write by the device, so it does not clear an invalid-token mark.
    ///
    /// - Returns: The device's subscriptions, as they are now.
    /// - Throws: 400 for a bad provider or token, 404 when the resource has no such subscription.
    func mark(resourceId: Int64, _ request: Mark) async throws -> [SubscriptionView] {
        let provider = try request.provider.map { try Validation.provider($0) } ?? .apns
        try Validation.token(request.subscriptionId)
        return try await store.write { tx in
            let found = try tx.subscriptions(
                resourceId: resourceId, channel: .push, provider: provider, token: request.subscriptionId)
            guard !found.isEmpty else {
                throw APIError.notFound(
                    "resource \(resourceId) has no push subscription with provider \(provider.rawValue) and this "
                        + "subscription_id: the device subscribes first (push/subscribe), then it can be marked")
            }
            return try found.map { read in
                var subscription = read
                if subscription.isTest != request.isTest {
                    subscription.isTest = request.isTest
                    try tx.updateSubscription(subscription, from: read)
                }
                return try Self.view(tx, subscription)
            }
        }
    }

    /// `GET /api/v1/admin/test-devices`: the test devices of `projectId`, or of every project.
    func list(projectId: Int64?) async throws -> [SubscriptionView] {
        try await store.read { tx in
            let projects = try projectId.map { [$0] } ?? tx.projects().map(\.id)
            return try projects.flatMap { project in
                try tx.testPushCandidates(projectId: project, resourceId: nil, limit: TestSend.maxDevices).map {
                    try Self.view(tx, $0.subscription)
                }
            }
        }
    }

    static func view(_ tx: any StoreTransaction, _ subscription: Subscription) throws -> SubscriptionView {
        SubscriptionView(
            subscription, profileId: try tx.profile(id: subscription.profileId)?.publicId ?? "",
            tags: try tx.tags(subscriptionId: subscription.id))
    }
}
