import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The profile's status in a write's answer (subscribed when any of its subscriptions is, else
/// suspended when any is, else unsubscribed) comes from the subscription the write changed and
/// the statuses of the profile's other subscriptions, read with the token's holders before the
/// write: the status a fresh read (`push/status`) gives after it.
@Suite struct ProfileStatusAnswerTests {
    @Test(arguments: StoreFactory.all)
    func aWritesAnswerGivesTheStatusOfEveryOneOfTheProfilesSubscriptions(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let first = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "t-1", time: 1))
        let publicId = try #require(first.profile?.id)
        // The same device's email address, suspended: another subscription of the profile.
        let resourceId = server.bootstrap.resourceId
        try await server.store.write { tx in
            let profile = try #require(try tx.profile(publicId: publicId))
            _ = try tx.insertSubscription(
                SubscriptionValues(
                    profileId: profile.id, resourceId: resourceId, channel: .email, provider: nil,
                    token: "ada@example.com", status: .suspended, hashId: "e-1", clientTime: 1), now: 1)
        }
        func status() async throws -> String? {
            try await server.sdk(.pushStatus, ["provider": "ios-apns", "subscription_id": "t-2", "mode": "current"])
                .profile?.status
        }

        let unsubscribed = try await server.sdk(.pushUnsubscribe, InProcessServer.subscription(token: "t-1", time: 2))
        #expect(unsubscribed.profile?.subscription?.status == "unsubscribed")
        #expect(unsubscribed.profile?.status == "suspended", "the email address's")
        let moved = try await server.sdk(
            .pushUpdate,
            [
                "provider": "ios-apns", "old_subscription_id": "t-1", "subscription_id": "t-2",
                "custom_fields": ["tier": "gold"],
            ])
        #expect(moved.profile?.id == publicId)
        #expect(moved.profile?.status == "suspended")
        #expect(try await status() == "suspended")
        let again = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "t-2", time: 3))
        #expect(again.profile?.id == publicId)
        #expect(again.profile?.status == "subscribed", "the push subscription's")
        #expect(try await status() == "subscribed")
        try await server.store.write { tx in
            let profile = try #require(try tx.profile(publicId: publicId))
            for read in try tx.subscriptions(profileId: profile.id) where read.channel == .email {
                var email = read
                email.status = .subscribed
                try tx.updateSubscription(email, from: read)
            }
        }
        let suspended = try await server.sdk(.pushSuspend, InProcessServer.subscription(token: "t-2", time: 4))
        #expect(suspended.profile?.subscription?.status == "suspended")
        #expect(suspended.profile?.status == "subscribed", "the email address's")
        #expect(try await status() == "subscribed")
    }
}
