import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Webhooks of what people do with in-app messages and their inbox: `inapp/event` posts
/// `inapp.shown`, `inapp.clicked` (with the button), `inapp.closed`, `inapp.error` (with the
/// reason) once per report, as the campaign's statistics count it; `inbox/read` and `inbox/delete`
/// post `inbox.read` and `inbox.deleted` for a real change only. A webhook that did not ask for
/// them gets none.
@Suite struct EngagementWebhookTests {
    /// The events the webhooks were posted, oldest first.
    static func posted(_ receiver: WebhookReceiver) -> [[String: Any]] {
        receiver.posts.flatMap(\.events).sorted { $0.int("id") < $1.int("id") }
    }

    @Test(arguments: StoreFactory.all)
    func inAppEventsArePostedOncePerReportToTheWebhooksThatAsked(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let (receiver, _) = try await WebhookTests.hook(harness, ["inapp.shown", "inapp.clicked", "inapp.error"])
        let (sends, _) = try await WebhookTests.hook(harness, ["push.sent", "goal.reached"])
        let profile = try await harness.subscribe("ana")
        let campaign = try await InAppTriggerTests.campaign(harness)

        // The same click reported twice (the SDK's outbox sends it again with its key): one event.
        for _ in 0..<2 {
            try await InAppTriggerTests.event(
                harness, "clicked", campaign: campaign, token: "ana", button: "upgrade", key: "ana-click")
        }
        try await InAppTriggerTests.event(harness, "shown", campaign: campaign, token: "ana", key: "ana-shown")
        try await InAppTriggerTests.event(harness, "closed", campaign: campaign, token: "ana", key: "ana-closed")
        // A device Tern knows no profile of: the event names neither a profile nor a device.
        try await InAppTriggerTests.event(
            harness, "error", campaign: campaign, token: nil, key: "nobody", reason: "no window")
        #expect(try await WebhookTests.pending(harness) == 3, "a click, a display and an error; not the close")
        let stats = try await harness.server.admin("GET", "/inapp/campaigns/\(campaign)/stats")
        #expect(stats.json["clicks_by_button"] as? [String: Int] == ["upgrade": 1], "\(stats.json)")

        #expect(try await WebhookTests.dispatcher(harness).pass() == 3)
        #expect(sends.posts.isEmpty, "a webhook of sends and goals gets no in-app event")
        let events = Self.posted(receiver)
        #expect(events.map { $0["type"] as? String } == ["inapp.clicked", "inapp.shown", "inapp.error"])
        let at = Int64(ISO8601DateFormatter().date(from: "2026-12-01T08:30:00Z")!.timeIntervalSince1970 * 1000)
        let clicked = events[0]
        #expect(
            clicked["campaign_id"] as? String == campaign && clicked["profile_id"] as? String == profile
                && clicked["provider"] as? String == "ios-apns" && clicked["token"] as? String == "ana"
                && clicked["button"] as? String == "upgrade" && clicked.int("time") == at, "\(clicked)")
        let shown = events[1]
        #expect(
            shown["campaign_id"] as? String == campaign && shown["profile_id"] as? String == profile
                && shown["button"] == nil, "\(shown)")
        let error = events[2]
        #expect(
            error["reason"] as? String == "no window" && error["profile_id"] == nil && error["token"] == nil
                && error["campaign_id"] as? String == campaign, "\(error)")
    }

    /// With the JWT alone (no push identity), the event names the JWT's person; an erased person's
    /// waiting events go with them.
    @Test(arguments: StoreFactory.all)
    func anInAppEventWithAJWTNamesItsPerson(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let (receiver, _) = try await WebhookTests.hook(harness, ["inapp.closed"])
        let signer = try await TestSigner.register(on: harness.server)
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        let campaign = try await InAppTriggerTests.campaign(harness)
        try await InAppTriggerTests.event(harness, "closed", campaign: campaign, token: nil, jwt: ana.jwt, key: "c1")
        try await InAppTriggerTests.event(harness, "closed", campaign: campaign, token: bo.token, key: "c2")
        #expect(try await WebhookTests.pending(harness) == 2)
        let erased = try await harness.server.admin("DELETE", "/profiles/\(bo.profileId)")
        try #require(erased.status == 200, "\(erased.errorText)")
        #expect(try await WebhookTests.pending(harness) == 1, "bo's event went with bo")
        #expect(try await WebhookTests.dispatcher(harness).pass() == 1)
        let event = try #require(receiver.posts.first?.events.first)
        #expect(
            event["type"] as? String == "inapp.closed" && event["profile_id"] as? String == ana.profileId
                && event["token"] == nil, "\(event)")
    }

    /// `inbox.read` and `inbox.deleted` for the first read and the delete; reading again, deleting
    /// again and reading a deleted message tell nothing.
    @Test(arguments: StoreFactory.all)
    func inboxReadsAndDeletesArePostedForARealChangeOnly(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let (receiver, _) = try await WebhookTests.hook(harness, ["inbox.read", "inbox.deleted"])
        let (others, _) = try await WebhookTests.hook(harness, ["inapp.shown"])
        let signer = try await TestSigner.register(on: harness.server)
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let put = try await InboxAPITests.put(harness.server, ana.profileId, "Your order shipped")
        try #require(put.status == 201, "\(put.errorText)")
        let id = try #require((put.json["ids"] as? [String])?.first)

        for (endpoint, key) in [
            (Endpoint.inboxRead, "read-1"), (.inboxRead, "read-2"), (.inboxRead, "read-1"), (.inboxDelete, "delete-1"),
            (.inboxDelete, "delete-2"), (.inboxRead, "read-3"),
        ] {
            let reply = try await harness.server.sdk(endpoint, ["id": id], jwt: ana.jwt, key: key)
            try #require(reply.status == 200, "\(endpoint) \(key): \(reply.status) \(reply.errorText)")
        }
        #expect(try await WebhookTests.pending(harness) == 2)
        #expect(try await WebhookTests.dispatcher(harness).pass() == 2)
        #expect(others.posts.isEmpty)
        let events = Self.posted(receiver)
        #expect(events.map { $0["type"] as? String } == ["inbox.read", "inbox.deleted"], "\(events)")
        #expect(
            events.allSatisfy { $0["message_id"] as? String == id && $0["profile_id"] as? String == ana.profileId },
            "\(events)")
    }

    /// A project whose webhooks want none of the types writes nothing for its in-app events and
    /// inbox changes.
    @Test func aProjectWithoutSuchWebhooksWritesNothing() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let campaign = try await InAppTriggerTests.campaign(harness)
        try await InAppTriggerTests.event(
            harness, "clicked", campaign: campaign, token: ana.token, button: "upgrade", key: "k1")
        let put = try await InboxAPITests.put(harness.server, ana.profileId, "Hello")
        let id = try #require((put.json["ids"] as? [String])?.first)
        #expect(try await harness.server.sdk(.inboxRead, ["id": id], jwt: ana.jwt).status == 200)
        let rows = try await harness.server.store.read { tx in
            try integerRows(tx, "SELECT COUNT(*) FROM webhook_events", [])[0][0]
        }
        #expect(rows == 0)
    }

    @Test func creationTakesTheNewTypesAndRefusesUnknownOnes() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let path = "/projects/\(server.bootstrap.projectId)/webhooks"
        let types = ["inapp.shown", "inapp.clicked", "inapp.closed", "inapp.error", "inbox.read", "inbox.deleted"]
        let made = try await server.admin("POST", path, json: ["url": "https://hooks.example.com/t", "events": types])
        #expect(made.status == 201 && made.json["events"] as? [String] == types, "\(made.errorText)")
        for unknown in ["inapp.opened", "inbox.unread", "inapp"] {
            let reply = try await server.admin(
                "POST", path, json: ["url": "https://hooks.example.com/t", "events": ["inapp.shown", unknown]])
            #expect(
                reply.status == 400 && reply.errorText.contains("\(unknown), which is not an event")
                    && reply.errorText.contains("inbox.deleted"), "\(reply.status) \(reply.errorText)")
        }
    }
}
