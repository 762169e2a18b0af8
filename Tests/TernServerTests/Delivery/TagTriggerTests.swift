import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Messages a set tag starts (`trigger.event_name` `$tag_set`): `profile/tags/set` giving a
/// device's subscription in the message's resource the message's tag, with a value it did not have
/// (the message's `tag_value` when it names one), starts the wait of the person the call answers.
/// A repeat of the same value, another value than the message's, a device of another resource and
/// a device import's tags start nothing.
@Suite struct TagTriggerTests {
    /// A message to the harness's resource that `tag` (with `value`) starts, with `extra` trigger
    /// fields; its id.
    static func message(
        _ harness: DeliveryHarness, tag: String = "plan", value: String? = "premium", _ extra: [String: Any] = [:]
    ) async throws -> String {
        var trigger: [String: Any] = ["event_name": "$tag_set", "tag": tag, "delay_minutes": 10]
        if let value { trigger["tag_value"] = value }
        trigger.merge(extra) { _, new in new }
        let reply = try await harness.create([
            "title": "Welcome to Premium", "trigger": trigger,
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        return try #require(reply.json["id"] as? String)
    }

    /// `profile/tags/set` of `tags` on `token`'s subscription.
    static func setTags(
        _ harness: DeliveryHarness, _ token: String, _ tags: [String: String], rToken: String? = nil,
        jwt: String? = nil
    ) async throws {
        let reply = try await harness.server.sdk(
            .profileTagsSet, TagsAPITests.set(tags, token: token), rToken: rToken, jwt: jwt)
        try #require(reply.status == 200, "\(reply.status) \(reply.errorText)")
    }

    @Test(arguments: StoreFactory.all)
    func aTagSetToTheValueSendsTheMessageAfterTheDelayOnce(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        for token in ["ana", "bo", "cy"] { _ = try await harness.subscribe(token) }
        try await Self.setTags(harness, "cy", ["plan": "premium"])
        let id = try await Self.message(harness)
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)

        // Another value, or another tag, is not the message's.
        try await Self.setTags(harness, "ana", ["plan": "free", "city": "Lyon"])
        // The value cy had already starts nothing.
        try await Self.setTags(harness, "cy", ["plan": "premium", "city": "Oslo"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
        // A new value that matches does.
        try await Self.setTags(harness, "ana", ["plan": "premium"])
        try await Self.setTags(harness, "bo", ["plan": "premium"])
        #expect(try await WelcomeTriggerTests.waits(harness).count == 2)
        // A device of another resource of the project is not the message's.
        let other = try await harness.server.admin(
            "POST", "/resources", json: ["project_id": harness.server.bootstrap.projectId, "name": "second"])
        let rToken = try #require(other.json["rtoken"] as? String)
        let elsewhere = try await harness.server.sdk(
            .pushSubscribe, ["time": 1000, "provider": "ios-apns", "subscription_id": "tablet", "sync": true],
            rToken: rToken)
        #expect(elsewhere.status == 200, "\(elsewhere.errorText)")
        try await Self.setTags(harness, "tablet", ["plan": "premium"], rToken: rToken)
        // An imported device's tags were set long ago.
        let imported = try await DeviceImportTests.importDevices(
            harness, [["subscription_id": "imported", "tags": ["plan": "premium"]]])
        #expect(imported.status == 200 && imported.json.int("imported") == 1, "\(imported.errorText)")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 2)

        #expect(try await runner.pass() == 0, "not before the delay")
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 2)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["ana", "bo"])
        let stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 2 && stats.int("sent") == 2, "\(stats)")

        // Setting the same value again starts nothing.
        try await Self.setTags(harness, "bo", ["plan": "premium"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
        // Cancelled, the message starts no more waits.
        #expect(try await harness.server.admin("POST", "/messages/\(id)/cancel").status == 200)
        try await Self.setTags(harness, "cy", ["plan": "basic"])
        try await Self.setTags(harness, "cy", ["plan": "premium"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func withoutAValueAnyNewValueOfTheTagStartsIt(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        for token in ["ana", "bo", "cy"] { _ = try await harness.subscribe(token) }
        _ = try await Self.message(harness, value: nil)
        try await Self.setTags(harness, "ana", ["plan": "free"])
        try await Self.setTags(harness, "bo", ["city": "Lyon"])
        try await Self.setTags(harness, "cy", ["plan": ""])
        #expect(try await WelcomeTriggerTests.waits(harness).count == 2)
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 2)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["ana", "cy"])
    }

    @Test(arguments: StoreFactory.all)
    func aCancellingGoalEndsTheWaitOfThePersonTheTagsCallAnswers(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        _ = try await Self.message(harness, ["cancel_event_name": "purchase"])
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        try await Self.setTags(harness, ana.token, ["plan": "premium"], jwt: ana.jwt)
        try await Self.setTags(harness, bo.token, ["plan": "premium"], jwt: bo.jwt)
        #expect(try await WelcomeTriggerTests.waits(harness).count == 2)
        try await TriggerTests.goal(harness, bo, "purchase")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 1)
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token])
    }

    @Test func anEditMayChangeTheTagAndItsValue() async throws {
        let (harness, _) = try await WelcomeTriggerTests.make(.sqlite)
        defer { Task { await harness.finish() } }
        _ = try await harness.subscribe("ana")
        let id = try await Self.message(harness)
        let edited = try await harness.server.admin(
            "PUT", "/messages/\(id)",
            json: [
                "title": "Welcome, gold member",
                "trigger": ["event_name": "$tag_set", "tag": "tier", "tag_value": "gold", "delay_minutes": 10],
                "audience": ["type": "resource", "resource_id": harness.resourceId],
            ])
        try #require(edited.status == 200, "\(edited.errorText)")
        try await Self.setTags(harness, "ana", ["plan": "premium"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty, "the old tag no longer starts it")
        try await Self.setTags(harness, "ana", ["tier": "gold"])
        #expect(try await WelcomeTriggerTests.waits(harness).count == 1)
        let refused = try await harness.server.admin(
            "PUT", "/messages/\(id)",
            json: [
                "title": "Hi", "trigger": ["event_name": "$tag_set", "delay_minutes": 10],
                "audience": ["type": "resource", "resource_id": harness.resourceId],
            ])
        #expect(refused.status == 400 && refused.errorText.contains("trigger.tag is required with $tag_set"))
    }

    @Test func aTagTriggerIsChecked() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let resource: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let long = String(repeating: "x", count: TagLimits.maxValueBytes + 1)
        for (trigger, reason) in [
            (["event_name": "$tag_set"], "trigger.tag is required with $tag_set"),
            (["event_name": "$tag_set", "tag_value": "premium"], "trigger.tag is required with $tag_set"),
            (["event_name": "cart", "tag": "plan"], "trigger.tag goes with trigger.event_name $tag_set only"),
            (
                ["event_name": "$subscribed", "tag_value": "x"],
                "trigger.tag_value goes with trigger.event_name $tag_set"
            ),
            (["event_name": "$tag_set", "tag": ""], "trigger.tag: a tag key is empty"),
            (["event_name": "$tag_set", "tag": "pl\u{7}an"], "trigger.tag: tag key \"pl\u{7}an\" contains a control"),
            (["event_name": "$tag_set", "tag": "plan", "tag_value": long], "trigger.tag_value: the value of tag"),
            (["event_name": "$opened"], "it supports $subscribed (when a device subscribes), $tag_set"),
        ] as [([String: Any], String)] {
            let reply = try await harness.create(["title": "Hi", "trigger": trigger, "audience": resource])
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reason): \(reply.errorText)")
        }
    }
}
