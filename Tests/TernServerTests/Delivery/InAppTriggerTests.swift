import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Messages an in-app event starts (`trigger.event_name` `$inapp_clicked`, `$inapp_shown`, with
/// `campaign_id`, and for a tap optionally `button`): `inapp/event` recording the campaign's first
/// `clicked` (on that button) or `shown` starts the wait of the person whose device reported it.
/// Another button, another kind of event, another campaign, a replay of the same report and a
/// device Tern knows no profile of start nothing.
@Suite struct InAppTriggerTests {
    /// A started campaign of the harness's resource (in `project`'s `resource` when given), a
    /// template with the buttons `upgrade` and `later`, or `content`; its id.
    static func campaign(
        _ harness: DeliveryHarness, anonymous: Bool = false, content: [String: Any]? = nil,
        project: Int64? = nil, resource: Int64? = nil
    ) async throws -> String {
        let buttons: [[String: Any]] = [
            ["id": "upgrade", "text": "Upgrade", "action": ["type": "deep_link", "value": "shop://premium"]],
            ["id": "later", "text": "Later", "action": ["type": "close"]],
        ]
        let created = try await harness.server.admin(
            "POST", "/inapp/campaigns",
            json: [
                "project_id": project ?? harness.server.bootstrap.projectId,
                "resource_id": resource ?? harness.resourceId, "name": "Premium", "display_type": "modal",
                "anonymous": anonymous, "triggers": [["type": "open_app"]],
                "content": content ?? ["kind": "template", "template": ["title": "Go Premium", "buttons": buttons]],
            ])
        try #require(created.status == 201, "\(created.status) \(created.errorText) \(created.json)")
        let id = try #require(created.json["id"] as? String)
        let started = try await harness.server.admin("POST", "/inapp/campaigns/\(id)/start")
        try #require(started.status == 200, "\(started.status) \(started.json)")
        return id
    }

    /// A message to the harness's resource that `event` of `campaign` starts, with `extra` trigger
    /// fields; its id.
    static func message(
        _ harness: DeliveryHarness, _ event: String, campaign: String, _ extra: [String: Any] = [:]
    ) async throws -> String {
        var trigger: [String: Any] = ["event_name": event, "campaign_id": campaign, "delay_minutes": 1440]
        trigger.merge(extra) { _, new in new }
        let reply = try await harness.create([
            "title": "Still thinking about Premium?", "trigger": trigger,
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        return try #require(reply.json["id"] as? String)
    }

    /// `inapp/event` of `type` (a tap on `button`, an error for `reason`) of `campaign`, from the device `token` (none: a
    /// device without a push identity) or the JWT's person, with the idempotency key `key`.
    static func event(
        _ harness: DeliveryHarness, _ type: String, campaign: String, token: String?, button: String? = nil,
        jwt: String? = nil, key: String, reason: String? = nil
    ) async throws {
        var body: [String: Any] = [
            "smid": InAppSmid.make(campaignId: Int64(campaign) ?? 0, subject: token ?? "anonymous"),
            "campaign_id": campaign, "type": type, "at": "2026-12-01T08:30:00Z",
        ]
        if let token {
            body["provider"] = "ios-apns"
            body["subscription_id"] = token
        }
        if let button { body["button_id"] = button }
        if let reason { body["reason"] = reason }
        let reply = try await harness.server.sdk(.inAppEvent, body, jwt: jwt, key: key)
        try #require(reply.status == 200, "\(reply.status) \(reply.errorText)")
    }

    @Test(arguments: StoreFactory.all)
    func aTapOnTheNamedButtonSendsTheMessageAfterTheDelay(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        for token in ["ana", "bo", "cy", "dee"] { _ = try await harness.subscribe(token) }
        let campaign = try await Self.campaign(harness)
        let other = try await Self.campaign(harness)
        try await Self.event(harness, "clicked", campaign: campaign, token: "dee", button: "upgrade", key: "before")
        let id = try await Self.message(harness, "$inapp_clicked", campaign: campaign, ["button": "upgrade"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty, "a tap before the message starts nothing")

        // Another button, a display, another campaign's tap are not the message's.
        try await Self.event(harness, "clicked", campaign: campaign, token: "bo", button: "later", key: "bo-1")
        try await Self.event(harness, "shown", campaign: campaign, token: "cy", key: "cy-1")
        try await Self.event(harness, "closed", campaign: campaign, token: "cy", key: "cy-2")
        try await Self.event(harness, "clicked", campaign: other, token: "cy", button: "upgrade", key: "cy-3")
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
        try await Self.event(harness, "clicked", campaign: campaign, token: "ana", button: "upgrade", key: "ana-1")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 1)

        #expect(try await runner.pass() == 0, "not before the delay")
        harness.clock.advance(seconds: 86_401)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["ana"])
        let stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 1 && stats.int("sent") == 1, "\(stats)")
        let counted = try await harness.server.admin("GET", "/inapp/campaigns/\(campaign)/stats")
        #expect(counted.json["clicks_by_button"] as? [String: Int] == ["upgrade": 2, "later": 1], "\(counted.json)")

        // Cancelled, the message starts no more waits.
        #expect(try await harness.server.admin("POST", "/messages/\(id)/cancel").status == 200)
        try await Self.event(harness, "clicked", campaign: campaign, token: "bo", button: "upgrade", key: "bo-2")
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func withoutAButtonATapOnAnyStartsItAndADisplayStartsTheShownMessage(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        for token in ["ana", "bo", "cy"] { _ = try await harness.subscribe(token) }
        let campaign = try await Self.campaign(harness)
        let tapped = try await Self.message(harness, "$inapp_clicked", campaign: campaign, ["delay_minutes": 0])
        let seen = try await Self.message(harness, "$inapp_shown", campaign: campaign, ["delay_minutes": 60])
        try await Self.event(harness, "shown", campaign: campaign, token: "ana", key: "ana-1")
        try await Self.event(harness, "shown", campaign: campaign, token: "bo", key: "bo-1")
        try await Self.event(harness, "clicked", campaign: campaign, token: "bo", button: "later", key: "bo-2")
        try await Self.event(harness, "error", campaign: campaign, token: "cy", key: "cy-1", reason: "no image")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 3)

        #expect(try await runner.pass() == 1, "the tap's message, at once")
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.map(\.token) == ["bo"])
        harness.clock.advance(seconds: 3_601)
        #expect(try await runner.pass() == 2)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["ana", "bo", "bo"])
        #expect(try await harness.stats(tapped).int("sent") == 1)
        #expect(try await harness.stats(seen).int("sent") == 2)
    }

    @Test(arguments: StoreFactory.all)
    func aReplayedReportStartsNothingTwice(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        _ = try await harness.subscribe("ana")
        let campaign = try await Self.campaign(harness)
        let id = try await Self.message(
            harness, "$inapp_clicked", campaign: campaign, ["delay_minutes": 0, "reentry_after_minutes": 1])
        try await Self.event(harness, "clicked", campaign: campaign, token: "ana", button: "upgrade", key: "tap-1")
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        harness.clock.advance(seconds: 120)

        // Past the re-entry time, the same report again (its key) is the one recorded: no new wait.
        try await Self.event(harness, "clicked", campaign: campaign, token: "ana", button: "upgrade", key: "tap-1")
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
        let counted = try await harness.server.admin("GET", "/inapp/campaigns/\(campaign)/stats")
        #expect(counted.json["clicked"] as? Int == 1, "\(counted.json)")
        // A new tap (a new key) is a new report: it starts one.
        try await Self.event(harness, "clicked", campaign: campaign, token: "ana", button: "upgrade", key: "tap-2")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 1)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["ana", "ana"])
        let stats = try await harness.stats(id)
        #expect((stats["all_rounds"] as? [String: Any])?["sent"] as? Int == 2, "\(stats)")
    }

    @Test(arguments: StoreFactory.all)
    func aCancellingGoalEndsTheWaitOfThePersonWhoTapped(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let campaign = try await Self.campaign(harness)
        _ = try await Self.message(
            harness, "$inapp_clicked", campaign: campaign, ["button": "upgrade", "cancel_event_name": "purchase"])
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        // The JWT names the person; the device's push identity is left out.
        for person in [ana, bo] {
            try await Self.event(
                harness, "clicked", campaign: campaign, token: nil, button: "upgrade", jwt: person.jwt,
                key: person.token)
        }
        #expect(try await WelcomeTriggerTests.waits(harness).count == 2)
        try await TriggerTests.goal(harness, bo, "purchase")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 1)
        harness.clock.advance(seconds: 86_401)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token])
    }

    @Test(arguments: StoreFactory.all)
    func aDeviceWithoutAProfileOrAPersonWhoSkipsTriggersStartsNothing(factory: StoreFactory) async throws {
        let (harness, _) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let campaign = try await Self.campaign(harness, anonymous: true)
        _ = try await Self.message(harness, "$inapp_shown", campaign: campaign)
        let skipper = try await TriggerTests.person(harness, signer, "skipper", skipTriggers: true)
        // An anonymous campaign is shown to a device that never subscribed: no push identity, or
        // one no profile holds.
        try await Self.event(harness, "shown", campaign: campaign, token: nil, key: "nobody")
        try await Self.event(harness, "shown", campaign: campaign, token: "never-subscribed", key: "stranger")
        try await Self.event(harness, "shown", campaign: campaign, token: skipper.token, key: "skipper")
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
        _ = try await harness.subscribe("ana")
        try await Self.event(harness, "shown", campaign: campaign, token: "ana", key: "ana")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 1)
        let counted = try await harness.server.admin("GET", "/inapp/campaigns/\(campaign)/stats")
        #expect(counted.json["shown"] as? Int == 4, "every report counts: \(counted.json)")
    }

    @Test func anEditMayChangeTheCampaignAndTheButton() async throws {
        let (harness, _) = try await WelcomeTriggerTests.make(.sqlite)
        defer { Task { await harness.finish() } }
        _ = try await harness.subscribe("ana")
        let first = try await Self.campaign(harness)
        let second = try await Self.campaign(harness)
        let id = try await Self.message(harness, "$inapp_clicked", campaign: first, ["button": "upgrade"])
        func edit(_ trigger: [String: Any]) async throws -> InProcessServer.Reply {
            try await harness.server.admin(
                "PUT", "/messages/\(id)",
                json: [
                    "title": "Still thinking?", "trigger": trigger,
                    "audience": ["type": "resource", "resource_id": harness.resourceId],
                ])
        }
        let edited = try await edit(["event_name": "$inapp_clicked", "campaign_id": second, "button": "later"])
        try #require(edited.status == 200, "\(edited.errorText)")
        try await Self.event(harness, "clicked", campaign: first, token: "ana", button: "upgrade", key: "a-1")
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty, "the old campaign no longer starts it")
        try await Self.event(harness, "clicked", campaign: second, token: "ana", button: "later", key: "a-2")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 1)
        let refused = try await edit(["event_name": "$inapp_clicked", "campaign_id": second, "button": "gone"])
        #expect(refused.status == 400 && refused.errorText.contains("trigger.button: campaign \(second) has no button"))
    }

    @Test(arguments: StoreFactory.all)
    func anInAppTriggerIsChecked(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let campaign = try await Self.campaign(harness)
        let html = try await Self.campaign(
            harness, content: ["kind": "html", "html": "<button data-tern-button=\"buy\">Buy</button>"])
        let otherProject = try await harness.server.admin("POST", "/projects", json: ["name": "other"]).json.int("id")
        _ = try await harness.server.admin("POST", "/projects/\(otherProject)/databases", json: ["name": "main"])
        let otherResource = try await harness.server.admin(
            "POST", "/resources", json: ["project_id": otherProject, "name": "other app"]
        ).json.int("id")
        let foreign = try await Self.campaign(harness, project: otherProject, resource: otherResource)
        let resource: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let clicked = "$inapp_clicked"
        for (trigger, reason) in [
            (["event_name": clicked], "trigger.campaign_id is required with $inapp_clicked: name the in-app campaign"),
            (["event_name": "$inapp_shown"], "trigger.campaign_id is required with $inapp_shown"),
            (["event_name": clicked, "button": "upgrade"], "trigger.campaign_id is required with $inapp_clicked"),
            (
                ["event_name": "cart", "campaign_id": campaign],
                "trigger.campaign_id goes with trigger.event_name $inapp_clicked or $inapp_shown only"
            ),
            (
                ["event_name": "cart", "button": "upgrade"],
                "trigger.button goes with trigger.event_name $inapp_clicked"
            ),
            (
                ["event_name": "$inapp_shown", "campaign_id": campaign, "button": "upgrade"],
                "trigger.button goes with trigger.event_name $inapp_clicked only"
            ),
            (
                ["event_name": "$tag_set", "tag": "plan", "campaign_id": campaign],
                "trigger.campaign_id goes with trigger.event_name $inapp_clicked or $inapp_shown"
            ),
            (
                ["event_name": clicked, "campaign_id": "abc"],
                "trigger.campaign_id: \"abc\" is not an in-app campaign's"
            ),
            (["event_name": clicked, "campaign_id": "0"], "trigger.campaign_id: \"0\" is not an in-app campaign's"),
            (["event_name": clicked, "campaign_id": "99999"], "trigger.campaign_id: no in-app campaign 99999"),
            (
                ["event_name": clicked, "campaign_id": foreign],
                "trigger.campaign_id: campaign \(foreign) is a campaign of project \(otherProject)"
            ),
            (
                ["event_name": clicked, "campaign_id": campaign, "button": "gone"],
                "trigger.button: campaign \(campaign) has no button \"gone\" (its buttons: upgrade, later)"
            ),
            (["event_name": clicked, "campaign_id": campaign, "button": ""], "trigger.button: must be 1 to 64"),
            (["event_name": "$opened"], "$inapp_shown and $inapp_clicked (when a person sees an in-app campaign"),
        ] as [([String: Any], String)] {
            let reply = try await harness.create(["title": "Hi", "trigger": trigger, "audience": resource])
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reason): \(reply.errorText)")
        }
        // A key of the bootstrap project is told of the other project's campaign as of none.
        let key = try await harness.server.admin(
            "POST", "/keys", json: ["project_id": harness.server.bootstrap.projectId, "role": "send", "name": "s"])
        let secret = try #require(key.json["secret"] as? String, "\(key.errorText)")
        let body = try JSONSerialization.data(withJSONObject: [
            "title": "Hi", "trigger": ["event_name": clicked, "campaign_id": foreign], "audience": resource,
        ])
        let hidden = await harness.server.send(
            "POST", "/api/v1/admin/messages", body: body, headers: ["Authorization": "Bearer \(secret)"])
        #expect(hidden.status == 400, "\(hidden.errorText)")
        #expect(hidden.errorText.contains("no in-app campaign \(foreign)"), "\(hidden.errorText)")
        #expect(!hidden.errorText.contains("project \(otherProject)"), "\(hidden.errorText)")

        // An HTML campaign's buttons are its page's: any id is taken.
        for trigger in [
            ["event_name": clicked, "campaign_id": html, "button": "anything"],
            ["event_name": clicked, "campaign_id": campaign, "button": "later"],
            ["event_name": "$inapp_shown", "campaign_id": campaign],
        ] {
            let reply = try await harness.create(["title": "Hi", "trigger": trigger, "audience": resource])
            #expect(reply.status == 201, "\(trigger): \(reply.errorText)")
        }
    }
}
