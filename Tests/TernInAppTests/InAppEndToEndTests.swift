import Foundation
import TernSDKTestKit
import TernTestSupport
import Testing

@testable import TernInApp

/// The in-app module against a real `tern serve`: campaigns made through the management API,
/// fetched, matched and shown on the device, their events counted in the campaign's statistics.
@Suite(.serialized) struct InAppEndToEndTests {
    /// A resource with the in-app channel, and its rToken. A server that does not list `inapp`
    /// among a resource's channels yet (it does not require it) gets the bootstrap resource.
    func inAppResource(_ server: RealServer) async throws -> (id: Int, rToken: String) {
        let reply = try await server.admin(
            "POST", "/resources",
            json: [
                "project_id": server.process.projectId, "db_id": server.databaseId, "name": "app",
                "channels": ["push", "inapp"],
            ])
        if reply.status == 400, reply.text.contains("channels must be") {
            return (Int(server.process.resourceId), server.rToken)
        }
        guard reply.status == 201, let id = reply.json?["id"] as? Int, let rToken = reply.json?["rtoken"] as? String
        else { throw HarnessError("creating the in-app resource: \(reply.text)") }
        return (id, rToken)
    }

    /// Creates and starts a campaign; returns its id.
    func campaign(
        _ server: RealServer, resource: Int, name: String, priority: Int = 0, anonymous: Bool = true,
        triggers: [[String: Any]], caps: [String: Any] = [:],
        buttons: [[String: Any]] = [Fixtures.button("ok", "close")]
    ) async throws -> String {
        let created = try await server.admin(
            "POST", "/inapp/campaigns",
            json: [
                "project_id": server.process.projectId, "resource_id": resource, "name": name,
                "display_type": "modal", "priority": priority, "anonymous": anonymous, "triggers": triggers,
                "caps": caps,
                "content": ["kind": "template", "template": ["title": name, "body": "Hi", "buttons": buttons]],
            ])
        guard created.status == 201, let id = created.json?["id"] as? String else {
            throw HarnessError("creating campaign \(name): \(created.text)")
        }
        let started = try await server.admin("POST", "/inapp/campaigns/\(id)/start")
        guard started.status == 200 else { throw HarnessError("starting campaign \(name): \(started.text)") }
        return id
    }

    func stats(_ server: RealServer, _ id: String) async throws -> [String: Any] {
        let reply = try await server.admin("GET", "/inapp/campaigns/\(id)/stats")
        guard reply.status == 200, let json = reply.json else { throw HarnessError("stats of \(id): \(reply.text)") }
        return json
    }

    /// Waits until the campaign's statistics say `done`.
    func waitForStats(
        _ server: RealServer, _ id: String, timeout: TimeInterval = 20, _ done: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        var last = try await stats(server, id)
        while !done(last), Date() < deadline {
            try await Task.sleep(nanoseconds: 100_000_000)
            last = try await stats(server, id)
        }
        return last
    }

    @Test func aCampaignFiresOnItsScreenShowsOnceIsHeldByItsCapAcrossARestartAndIsCountedOnce() async throws {
        let server = try await RealServer.start()
        let resource = try await inAppResource(server)
        let id = try await campaign(
            server, resource: resource.id, name: "welcome",
            triggers: [["type": "open_page", "screens": ["home"]]], caps: ["per_day": 1])
        let device = try InAppDevice()
        device.start(apiUrl: server.apiUrl, rToken: resource.rToken)
        device.inApp.setScreen(screen: "home")
        try #require(await device.presenter.waitForShown(1))
        let shown = device.presenter.shown[0]
        #expect(shown.campaign.campaignId == id)
        #expect(shown.campaign.smid.hasPrefix(id + "."))
        #expect(shown.buttons.map(\.id) == ["ok"])
        device.presenter.channel?.clicked(shown.id, buttonId: "ok")
        #expect(await device.events.first("inAppEventRequestSuccessful")?.httpCode == 200)

        device.inApp.setScreen(screen: "cart")
        device.inApp.setScreen(screen: "home")
        await device.settle()
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(device.presenter.shown.count == 1, "held by its cap")

        await device.restart()
        device.start(apiUrl: server.apiUrl, rToken: resource.rToken)
        device.inApp.getPlacements()
        #expect(await device.events.first("inAppPlacementsRequestSuccessful") != nil)
        device.inApp.setScreen(screen: "home")
        await device.settle()
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(device.presenter.shown.count == 1, "the cap survived the restart")

        let counted = try await waitForStats(server, id) { ($0["closed"] as? Int ?? 0) >= 1 }
        #expect(counted["shown"] as? Int == 1)
        #expect(counted["clicked"] as? Int == 1)
        #expect(counted["clicks_by_button"] as? [String: Int] == ["ok": 1])
        #expect(counted["closed"] as? Int == 1)
        #expect(counted["errors"] as? Int == 0)
        #expect((counted["placed"] as? Int ?? 0) >= 2)
        // The outbox is empty and nothing is counted twice.
        await device.settle()
        try await Task.sleep(nanoseconds: 500_000_000)
        let again = try await stats(server, id)
        #expect(again["shown"] as? Int == 1 && again["clicked"] as? Int == 1)
        await device.close()
        await server.stop()
    }

    @Test func priorityPicksTheHigherOfTwoMatchingCampaigns() async throws {
        let server = try await RealServer.start()
        let resource = try await inAppResource(server)
        let trigger: [[String: Any]] = [
            [
                "type": "custom", "name": "purchase",
                "conditions": [["property": "total", "op": "ge", "value": 100]],
            ]
        ]
        _ = try await campaign(server, resource: resource.id, name: "low", priority: 1, triggers: trigger)
        let high = try await campaign(server, resource: resource.id, name: "high", priority: 7, triggers: trigger)
        let device = try InAppDevice()
        device.start(apiUrl: server.apiUrl, rToken: resource.rToken)
        device.inApp.trigger("purchase", properties: ["total": 20])
        await device.settle()
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(device.presenter.shown.isEmpty, "the condition does not hold")
        device.inApp.trigger("purchase", properties: ["total": 120])
        try #require(await device.presenter.waitForShown(1))
        #expect(device.presenter.shown[0].campaign.campaignId == high)
        await device.close()
        await server.stop()
    }

    @Test func anAnonymousCampaignShowsToAnUnsubscribedDeviceANonAnonymousOneOnlyOnceSubscribed() async throws {
        let server = try await RealServer.start()
        let resource = try await inAppResource(server)
        let members = try await campaign(
            server, resource: resource.id, name: "members", priority: 5, anonymous: false,
            triggers: [["type": "custom", "name": "go"]])
        let everyone = try await campaign(
            server, resource: resource.id, name: "everyone", priority: 1, anonymous: true,
            triggers: [["type": "custom", "name": "go"]])
        let device = try InAppDevice()
        device.start(apiUrl: server.apiUrl, rToken: resource.rToken, jwt: try server.jwt(email: "ann@example.com"))
        device.inApp.trigger(name: "go")
        try #require(await device.presenter.waitForShown(1))
        #expect(device.presenter.shown[0].campaign.campaignId == everyone, "not subscribed: the anonymous one")
        device.presenter.channel?.closed(device.presenter.shown[0].id)

        device.inApp.subscription.subscribe()
        let subscribed = try #require(await device.events.first("inAppSubscribeRequestSuccessful"))
        #expect(subscribed.httpCode == 200)
        #expect(subscribed.profile?.subscription?.status == "subscribed")
        device.inApp.getPlacements()
        await device.settle()
        device.inApp.trigger(name: "go")
        try #require(await device.presenter.waitForShown(2))
        #expect(device.presenter.shown[1].campaign.campaignId == members)

        let status = await withCheckedContinuation { continuation in
            device.inApp.subscription.getSubscriptionStatus { continuation.resume(returning: $0) }
        }
        #expect(status?.httpCode == 200)
        #expect(status?.response?.profile?.subscription?.status == "subscribed")
        await device.close()
        await server.stop()
    }

    /// `subscription.unSubscribe` and `getSubscriptionStatus` against the server, with their events:
    /// unsubscribed, the non-anonymous campaign no longer shows; a JWT the server refuses fails both.
    @Test func unsubscribingHidesTheMembersCampaignAndTheStatusSaysSoWithTheirEvents() async throws {
        let server = try await RealServer.start()
        let resource = try await inAppResource(server)
        let members = try await campaign(
            server, resource: resource.id, name: "members", priority: 5, anonymous: false,
            triggers: [["type": "custom", "name": "go"]])
        let device = try InAppDevice()
        device.start(apiUrl: server.apiUrl, rToken: resource.rToken, jwt: try server.jwt(email: "bo@example.com"))
        device.inApp.subscription.subscribe()
        #expect(await device.events.first("inAppSubscribeRequestSuccessful")?.httpCode == 200)
        device.inApp.getPlacements()
        await device.settle()
        device.inApp.trigger(name: "go")
        try #require(await device.presenter.waitForShown(1))
        #expect(device.presenter.shown[0].campaign.campaignId == members)
        device.presenter.channel?.closed(device.presenter.shown[0].id)

        let queued = device.inApp.subscription.unSubscribe(customFields: ["reason": "settings"])
        #expect(queued.state == .queued)
        let unsubscribed = try #require(await device.events.first("inAppUnsubscribeRequestSuccessful"))
        #expect(!unsubscribed.isError && unsubscribed.function == "unSubscribe" && unsubscribed.httpCode == 200)
        #expect(unsubscribed.profile?.subscription?.status == "unsubscribed")

        let status = await withCheckedContinuation { continuation in
            device.inApp.subscription.getSubscriptionStatus { continuation.resume(returning: $0) }
        }
        #expect(status?.httpCode == 200)
        #expect(status?.response?.profile?.subscription?.status == "unsubscribed")
        let statusEvent = try #require(await device.events.first("inAppStatusRequestSuccessful"))
        #expect(statusEvent.function == "getSubscriptionStatus" && statusEvent.httpCode == 200)

        device.inApp.getPlacements()
        await device.settle()
        device.inApp.trigger(name: "go")
        await device.settle()
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(device.presenter.shown.count == 1, "unsubscribed: the non-anonymous campaign does not show")
        await device.close()

        let refused = try InAppDevice()
        refused.start(apiUrl: server.apiUrl, rToken: resource.rToken, jwt: "not.a.jwt")
        refused.inApp.subscription.unSubscribe()
        let failed = try #require(await refused.events.first("inAppUnsubscribeRequestFailed"))
        #expect(failed.isError && failed.httpCode == 401)
        let answer = await withCheckedContinuation { continuation in
            refused.inApp.subscription.getSubscriptionStatus { continuation.resume(returning: $0) }
        }
        #expect(answer == nil, "a refused status query answers nil, as the reference says, not a profile-less answer")
        let statusFailed = try #require(await refused.events.first("inAppStatusRequestFailed"))
        #expect(statusFailed.isError && statusFailed.httpCode == 401)
        await refused.close()
        await server.stop()
    }

    @Test func anImageThatDoesNotLoadIsAnErrorInTheStatisticsAndTheNextCampaignShowsWithItsServedImage() async throws {
        let server = try await RealServer.start()
        let resource = try await inAppResource(server)
        let trigger: [[String: Any]] = [["type": "custom", "name": "sale"]]
        let broken = try await campaign(server, resource: resource.id, name: "broken", priority: 5, triggers: trigger)
        let pictured = try await campaign(
            server, resource: resource.id, name: "pictured", priority: 1, triggers: trigger)
        for (id, name) in [(broken, "missing.png"), (pictured, "logo.png")] {
            let edited = try await server.admin(
                "PATCH", "/inapp/campaigns/\(id)",
                json: [
                    "content": [
                        "kind": "template",
                        "template": [
                            "title": id, "image_url": "/api/v1/inapp/static/\(id)/\(name)",
                            "buttons": [Fixtures.button("ok", "close")],
                        ],
                    ]
                ])
            #expect(edited.status == 200, "\(edited.text)")
        }
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 64))
        let uploaded = try await server.client.send(
            "PUT", server.process.rootURL("/api/v1/admin/inapp/campaigns/\(pictured)/static/logo.png"), body: png,
            headers: ["Authorization": "Bearer \(server.process.adminKey)", "Content-Type": "image/png"])
        #expect((200..<300).contains(uploaded.status), "\(uploaded.text)")

        let device = try InAppDevice()
        device.start(apiUrl: server.apiUrl, rToken: resource.rToken)
        device.inApp.trigger(name: "sale")
        let failure = try #require(await device.events.first("errorInAppImageLoad"))
        #expect(failure.reason?.contains("404") == true)
        try #require(await device.presenter.waitForShown(1))
        #expect(device.presenter.shown[0].campaign.campaignId == pictured)
        #expect(device.presenter.shown[0].imageData == png)
        let errors = try await waitForStats(server, broken) { ($0["errors"] as? Int ?? 0) >= 1 }
        #expect(errors["errors"] as? Int == 1)
        #expect(errors["shown"] as? Int == 0)
        await device.close()
        await server.stop()
    }
}
