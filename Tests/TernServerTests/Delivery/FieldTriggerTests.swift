import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Messages a profile field's new value starts (`trigger.event_name` `$field_set`): a write that
/// gives one of a person's profile fields the message's field, with a value it did not have (the
/// message's `field_value` when it names one), starts that person's wait: `profile/update`, the
/// `profile_fields` of `push/subscribe` and of a goal. A repeat of the same value, another value
/// than the message's, a removal and a device import's fields start nothing.
@Suite struct FieldTriggerTests {
    /// A message to the harness's resource that `field` (with `value`) starts, with `extra` trigger
    /// fields; its id.
    static func message(
        _ harness: DeliveryHarness, field: String = "plan", value: Any? = "premium", _ extra: [String: Any] = [:]
    ) async throws -> String {
        var trigger: [String: Any] = ["event_name": "$field_set", "field": field, "delay_minutes": 10]
        if let value { trigger["field_value"] = value }
        trigger.merge(extra) { _, new in new }
        let reply = try await harness.create([
            "title": "Welcome to Premium", "trigger": trigger,
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        return try #require(reply.json["id"] as? String)
    }

    /// `profile/update` of `person`'s `fields`.
    static func update(
        _ harness: DeliveryHarness, _ person: TriggerTests.Person, _ fields: [String: Any], skipTriggers: Bool? = nil
    ) async throws {
        var body: [String: Any] = ["profile_fields": fields]
        if let skipTriggers { body["skip_triggers"] = skipTriggers }
        let reply = try await harness.server.sdk(.profileUpdate, body, jwt: person.jwt)
        try #require(reply.status == 200, "\(reply.status) \(reply.errorText)")
    }

    @Test(arguments: StoreFactory.all)
    func aFieldSetToTheValueSendsTheMessageAfterTheDelayOnce(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        let cy = try await TriggerTests.person(harness, signer, "cy")
        let dan = try await TriggerTests.person(harness, signer, "dan")
        try await Self.update(harness, cy, ["plan": "premium"])
        let id = try await Self.message(harness)
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)

        // Another value, or another field, is not the message's.
        try await Self.update(harness, ana, ["plan": "free", "city": "Lyon"])
        try await Self.update(harness, bo, ["city": "Oslo"])
        // The value cy had already starts nothing.
        try await Self.update(harness, cy, ["plan": "premium", "city": "Oslo"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
        // A new value that matches does: by profile/update, a subscribe's, an in-app subscribe's and
        // a goal's fields.
        try await Self.update(harness, ana, ["plan": "premium"])
        let subscribed = try await harness.server.sdk(
            .pushSubscribe,
            [
                "time": 1000, "provider": "ios-apns", "subscription_id": "eve", "sync": true,
                "profile_fields": ["plan": "premium"],
            ])
        #expect(subscribed.status == 200, "\(subscribed.errorText)")
        let goal = try await harness.server.sdk(
            .eventPost,
            [
                "events": [
                    ["sid": "shop", "event_name": "upgrade", "time": 5_000, "profile_fields": ["plan": "premium"]]
                ]
            ], jwt: bo.jwt)
        #expect(goal.status == 200, "\(goal.errorText)")
        let inApp = try await harness.server.sdk(
            .inAppSubscribe, ["time": 1000, "profile_fields": ["plan": "premium"]], jwt: dan.jwt)
        #expect(inApp.status == 200, "\(inApp.errorText)")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 4)
        // An imported device's fields were set long ago.
        let imported = try await DeviceImportTests.importDevices(
            harness, [["subscription_id": "imported", "profile_fields": ["plan": "premium"]]])
        #expect(imported.status == 200 && imported.json.int("imported") == 1, "\(imported.errorText)")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 4)

        #expect(try await runner.pass() == 0, "not before the delay")
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 4)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token, bo.token, dan.token, "eve"].sorted())
        let stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 4 && stats.int("sent") == 4, "\(stats)")

        // Setting the same value again starts nothing.
        try await Self.update(harness, ana, ["plan": "premium"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
        // Cancelled, the message starts no more waits.
        #expect(try await harness.server.admin("POST", "/messages/\(id)/cancel").status == 200)
        try await Self.update(harness, cy, ["plan": "basic"])
        try await Self.update(harness, cy, ["plan": "premium"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func anyNewValueOrTheNamedOneStartsItAndARemovalNothing(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        let cy = try await TriggerTests.person(harness, signer, "cy")
        let dan = try await TriggerTests.person(harness, signer, "dan")
        for person in [bo, cy] { try await Self.update(harness, person, ["plan": "basic", "orders": 2]) }
        let any = try await Self.message(harness, value: nil)
        let third = try await Self.message(harness, field: "orders", value: 3)
        let vip = try await Self.message(harness, field: "vip", value: true)

        // Any new value of plan; removed (null or unset) or skipping triggers, nothing.
        try await Self.update(harness, ana, ["plan": "free"])
        try await Self.update(harness, bo, ["plan": NSNull()])
        try await Self.update(harness, cy, ["plan": ["action": "unset"]])
        try await Self.update(harness, dan, ["plan": "gold"], skipTriggers: true)
        // orders reaching 3, by an operation or plainly; another number is not 3.
        try await Self.update(harness, bo, ["orders": ["action": "incr", "value": 1]])
        try await Self.update(harness, cy, ["orders": 4])
        // vip true, not "true".
        try await Self.update(harness, cy, ["vip": "true"])
        try await Self.update(harness, ana, ["vip": true])
        let waits = try await WelcomeTriggerTests.waits(harness)
        let ids = try await harness.server.store.read { tx in
            try [any, third, vip].map { try tx.message(publicId: $0)?.id ?? -1 }
        }
        #expect(waits.map(\.messageId).sorted() == ids.sorted(), "\(waits)")

        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 3)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token, ana.token, bo.token].sorted())
    }

    @Test(arguments: StoreFactory.all)
    func aCancellingGoalEndsTheWaitAFieldStarted(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        _ = try await Self.message(harness, ["cancel_event_name": "purchase"])
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        for person in [ana, bo] { try await Self.update(harness, person, ["plan": "premium"]) }
        #expect(try await WelcomeTriggerTests.waits(harness).count == 2)
        try await TriggerTests.goal(harness, bo, "purchase")
        #expect(try await WelcomeTriggerTests.waits(harness).count == 1)
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token])
    }

    @Test func fieldsStartNothingWithoutTheirMessagesAndAnEditMayMakeOne() async throws {
        let (harness, _) = try await WelcomeTriggerTests.make(.sqlite)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let ana = try await TriggerTests.person(harness, signer, "ana")
        // A goal's message and a tag's, with names a field shares: a field is neither.
        let resource: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let goal = try await harness.create([
            "title": "Hi", "trigger": ["event_name": "plan"], "audience": resource,
        ])
        try #require(goal.status == 201, "\(goal.errorText)")
        let tag = try await TagTriggerTests.message(harness)
        try await Self.update(harness, ana, ["plan": "premium"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)

        // The tag's message made a field's: the next new value starts it.
        let edited = try await harness.server.admin(
            "PUT", "/messages/\(tag)",
            json: [
                "title": "Welcome to Premium",
                "trigger": ["event_name": "$field_set", "field": "plan", "delay_minutes": 10],
                "audience": resource,
            ])
        try #require(edited.status == 200, "\(edited.errorText)")
        try await Self.update(harness, ana, ["plan": "premium"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty, "the value it had")
        try await Self.update(harness, ana, ["plan": "gold"])
        #expect(try await WelcomeTriggerTests.waits(harness).count == 1)
    }

    @Test func aFieldTriggerIsChecked() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let resource: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        for (trigger, reason) in [
            (["event_name": "$field_set"], "trigger.field is required with $field_set: name the field"),
            (["event_name": "$field_set", "field_value": "premium"], "trigger.field is required with $field_set"),
            (["event_name": "cart", "field": "plan"], "trigger.field goes with trigger.event_name $field_set only"),
            (
                ["event_name": "$subscribed", "field_value": 3],
                "trigger.field_value goes with trigger.event_name $field_set"
            ),
            (
                ["event_name": "$field_set", "field": "plan", "tag": "plan"],
                "trigger.tag goes with trigger.event_name $tag_set only"
            ),
            (
                ["event_name": "$tag_set", "tag": "plan", "field": "plan"],
                "trigger.field goes with trigger.event_name $field_set only"
            ),
            (["event_name": "$field_set", "field": "9lives"], "trigger.field: field name \"9lives\" is not valid"),
            (["event_name": "$field_set", "field": ""], "trigger.field: field name \"\" is not valid"),
            (
                ["event_name": "$field_set", "field": "plan", "field_value": ["premium"]],
                "trigger.field_value: must be a string, a number or true/false"
            ),
            (
                ["event_name": "$field_set", "field": "plan", "field_value": ["a": 1]],
                "trigger.field_value: must be a string"
            ),
            (["event_name": "$opened"], "$field_set (when a profile field is set, with trigger.field)"),
        ] as [([String: Any], String)] {
            let reply = try await harness.create(["title": "Hi", "trigger": trigger, "audience": resource])
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reason): \(reply.errorText)")
        }
        for trigger in [
            ["event_name": "$field_set", "field": "_fname"], ["event_name": "$field_set", "field": "vip-level"],
            ["event_name": "$field_set", "field": "orders", "field_value": 2.5],
        ] as [[String: Any]] {
            let reply = try await harness.create(["title": "Hi", "trigger": trigger, "audience": resource])
            #expect(reply.status == 201, "\(trigger): \(reply.errorText)")
        }
    }
}
