import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// Messages that name a template (`template_id`), on each backend: the template fills the content
/// fields the request leaves out and the request's own win; the message keeps the merged content,
/// whatever later becomes of the template; a template of another project, or none, is refused with
/// what to do; an edit, an A/B test, a test send and a retried request each follow the rules their
/// documentation gives.
@Suite struct TemplateSendTests {
    static func audience(_ harness: DeliveryHarness) -> [String: Any] {
        ["type": "resource", "resource_id": harness.resourceId]
    }

    /// Saves a template in the bootstrap project; answers its id.
    static func template(_ harness: DeliveryHarness, _ content: [String: Any], name: String = "Welcome") async throws
        -> Int
    {
        var body = content
        body["name"] = name
        body["project_id"] = harness.server.bootstrap.projectId
        let made = try await harness.server.admin("POST", "/templates", json: body)
        try #require(made.status == 201, "\(made.errorText)")
        return try #require(made.json["id"] as? Int)
    }

    /// The payloads the sender was given, as JSON objects.
    static func payloads(_ harness: DeliveryHarness) throws -> [[String: Any]] {
        try harness.sender.pushes.map { push in
            try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
        }
    }

    static func alert(_ payload: [String: Any]) -> [String: Any] {
        (payload["aps"] as? [String: Any])?["alert"] as? [String: Any] ?? [:]
    }

    static var welcome: [String: Any] {
        [
            "title": "Welcome to Acme", "body": "Glad you're here", "sound": "default", "thread_id": "welcome",
            "data": ["screen": "home"], "buttons": [["id": "start", "title": "Start", "action": "open"]],
        ]
    }

    @Test(arguments: StoreFactory.all)
    func theTemplateFillsWhatTheRequestLeavesOutAndTheRequestWins(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let id = try await Self.template(harness, Self.welcome)
        let made = try await harness.create([
            "template_id": id, "body": "Your own body", "data": ["screen": "offers"],
            "audience": Self.audience(harness),
        ])
        try #require(made.status == 201, "\(made.errorText)")
        let request = try #require(made.json["request"] as? [String: Any])
        #expect(request["template_id"] as? Int == id && request["title"] as? String == "Welcome to Acme")
        #expect(request["body"] as? String == "Your own body" && request["sound"] as? String == "default")

        try await harness.engine.drain()
        let payload = try #require(try Self.payloads(harness).first)
        let aps = payload["aps"] as? [String: Any] ?? [:]
        #expect(Self.alert(payload)["title"] as? String == "Welcome to Acme")
        #expect(Self.alert(payload)["body"] as? String == "Your own body")
        #expect(aps["sound"] as? String == "default" && aps["thread-id"] as? String == "welcome", "\(aps)")
        #expect(payload["screen"] as? String == "offers", "the request's data wins whole: \(payload)")
        let tern = payload["tern"] as? [String: Any] ?? [:]
        #expect((tern["buttons"] as? [[String: Any]])?.first?["id"] as? String == "start", "\(tern)")
    }

    @Test(arguments: StoreFactory.all)
    func aMessageKeepsItsContentWhenItsTemplateIsLaterChangedOrDeleted(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let id = try await Self.template(harness, Self.welcome)
        let sendAt = ServerClock.milliseconds() + 60_000
        let messageId = try await harness.send(
            Self.audience(harness), extra: ["template_id": id, "send_at": sendAt, "title": NSNull(), "body": NSNull()])
        let changed = try await harness.server.admin(
            "PATCH", "/templates/\(id)", json: ["title": "Changed", "body": "Changed"])
        try #require(changed.status == 200, "\(changed.errorText)")
        let deleted = try await harness.server.admin("DELETE", "/templates/\(id)")
        try #require(deleted.status == 204)

        harness.clock.advance(seconds: 61)
        try await harness.engine.drain()
        let alerts = try Self.payloads(harness).map(Self.alert)
        #expect(alerts.map { $0["title"] as? String } == ["Welcome to Acme"], "\(alerts)")
        #expect(alerts.map { $0["body"] as? String } == ["Glad you're here"])
        let read = try await harness.server.admin("GET", "/messages/\(messageId)")
        #expect((read.json["request"] as? [String: Any])?["title"] as? String == "Welcome to Acme")
    }

    @Test(arguments: StoreFactory.all)
    func anUnknownOrAnotherProjectsTemplateIsRefused(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let unknown = try await harness.create(["template_id": 999, "audience": Self.audience(harness)])
        #expect(unknown.status == 404, "\(unknown.errorText)")
        #expect(unknown.errorText.contains("template_id: template 999 does not exist"), "\(unknown.errorText)")

        let other = try await harness.server.admin("POST", "/projects", json: ["name": "other"]).json.int("id")
        let theirs = try await harness.server.admin(
            "POST", "/templates", json: ["project_id": other, "name": "Theirs", "title": "Theirs"])
        let theirId = try #require(theirs.json["id"] as? Int, "\(theirs.errorText)")
        // The server key: the message goes from the bootstrap project, the template is the other's.
        let crossed = try await harness.create(["template_id": theirId, "audience": Self.audience(harness)])
        #expect(crossed.status == 400, "\(crossed.errorText)")
        #expect(
            crossed.errorText.contains(
                "template \(theirId) is a template of project \(other), and this message goes from project "
                    + "\(harness.server.bootstrap.projectId)"), "\(crossed.errorText)")
        let named = try await harness.create([
            "template_id": theirId, "project_id": harness.server.bootstrap.projectId,
            "audience": Self.audience(harness),
        ])
        #expect(named.status == 400 && named.errorText == crossed.errorText, "\(named.errorText)")

        // A key of the bootstrap project does not see the other project's template at all.
        let key = try await harness.server.admin(
            "POST", "/keys", json: ["project_id": harness.server.bootstrap.projectId, "role": "send", "name": "s"])
        let secret = try #require(key.json["secret"] as? String, "\(key.errorText)")
        let body = try JSONSerialization.data(withJSONObject: [
            "template_id": theirId, "audience": Self.audience(harness),
        ])
        let hidden = await harness.server.send(
            "POST", "/api/v1/admin/messages", body: body, headers: ["Authorization": "Bearer \(secret)"])
        #expect(hidden.status == 404, "\(hidden.errorText)")
        #expect(
            hidden.errorText.contains(
                "template \(theirId) does not exist in project \(harness.server.bootstrap.projectId)"),
            "\(hidden.errorText)")
        let live = try await harness.create([
            "template_id": theirId, "live_activity": ["event": "end"],
            "audience": ["type": "live_activity", "activity_id": "a1"],
        ])
        #expect(live.status == 400 && live.errorText.contains("template_id does not go with live_activity"))
        #expect(harness.sender.pushes.isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func anABTestsVersionsReplaceTheFilledContentFieldByField(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        for index in 0..<8 { try await harness.subscribe("phone-\(index)") }
        let id = try await Self.template(harness, Self.welcome)
        let made = try await harness.create([
            "template_id": id, "audience": Self.audience(harness),
            "variants": [["title": "Version A"], ["body": "Version B's body"]],
        ])
        try #require(made.status == 201, "\(made.errorText)")
        try await harness.engine.drain()
        let alerts = try Self.payloads(harness).map(Self.alert)
        #expect(alerts.count == 8)
        for alert in alerts {
            let title = alert["title"] as? String
            let body = alert["body"] as? String
            let isA = title == "Version A" && body == "Glad you're here"
            let isB = title == "Welcome to Acme" && body == "Version B's body"
            #expect(isA || isB, "\(alert)")
        }
    }

    @Test(arguments: StoreFactory.all)
    func anEditWithTheTemplateFillsFromItAsItIsNowAndOneWithoutTakesItsOwnContent(factory: StoreFactory)
        async throws
    {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let id = try await Self.template(harness, Self.welcome)
        let sendAt = ServerClock.milliseconds() + 3_600_000
        let made = try await harness.create(["template_id": id, "send_at": sendAt, "audience": Self.audience(harness)])
        let messageId = try #require(made.json["id"] as? String, "\(made.errorText)")
        let changed = try await harness.server.admin("PATCH", "/templates/\(id)", json: ["body": "New body"])
        try #require(changed.status == 200)

        func edit(_ json: [String: Any]) async throws -> InProcessServer.Reply {
            await harness.server.send(
                "PUT", "/api/v1/admin/messages/\(messageId)", body: try JSONSerialization.data(withJSONObject: json),
                headers: ["Authorization": "Bearer \(harness.server.bootstrap.adminKey)"])
        }
        let remerged = try await edit([
            "template_id": id, "title": "Edited", "send_at": sendAt, "audience": Self.audience(harness),
        ])
        try #require(remerged.status == 200, "\(remerged.errorText)")
        let request = try #require(remerged.json["request"] as? [String: Any])
        #expect(request["title"] as? String == "Edited" && request["body"] as? String == "New body", "\(request)")
        #expect(request["sound"] as? String == "default")

        let own = try await edit(["title": "Only this", "send_at": sendAt, "audience": Self.audience(harness)])
        try #require(own.status == 200, "\(own.errorText)")
        let plain = try #require(own.json["request"] as? [String: Any])
        #expect(plain["title"] as? String == "Only this" && plain["body"] == nil && plain["template_id"] == nil)
    }

    @Test(arguments: StoreFactory.all)
    func aTestSendTakesTheTemplateAndARetryAnswersAsTheFirstAfterItIsDeleted(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("tester")
        try await harness.subscribe("someone")
        let mark = try await harness.server.admin(
            "PUT", "/resources/\(harness.resourceId)/test-devices",
            json: ["provider": "ios-apns", "subscription_id": "tester", "is_test": true])
        try #require(mark.status == 200, "\(mark.errorText)")
        let id = try await Self.template(harness, Self.welcome)
        let body = try JSONSerialization.data(withJSONObject: [
            "template_id": id, "test": true, "audience": Self.audience(harness),
        ])
        let headers = ["Authorization": "Bearer \(harness.server.bootstrap.adminKey)", "Idempotency-Key": "t-1"]
        let first = await harness.server.send("POST", "/api/v1/admin/messages", body: body, headers: headers)
        try #require(first.status == 201, "\(first.errorText)")
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["tester"])
        #expect(try Self.payloads(harness).map { Self.alert($0)["title"] as? String } == ["Welcome to Acme"])

        let deleted = try await harness.server.admin("DELETE", "/templates/\(id)")
        try #require(deleted.status == 204)
        let retried = await harness.server.send("POST", "/api/v1/admin/messages", body: body, headers: headers)
        #expect(retried.status == 201 && retried.body == first.body, "\(retried.errorText)")
        let fresh = await harness.server.send(
            "POST", "/api/v1/admin/messages", body: body,
            headers: ["Authorization": "Bearer \(harness.server.bootstrap.adminKey)"])
        #expect(fresh.status == 404, "without the key it is a new request: \(fresh.errorText)")
    }

    @Test(arguments: StoreFactory.all)
    func aTriggeredAndARecurringMessageSendTheContentTheyWereMadeWithAfterTheTemplateGoes(factory: StoreFactory)
        async throws
    {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        _ = try await harness.server.admin(
            "POST", "/projects/\(harness.server.bootstrap.projectId)/pixels", json: ["sid": "shop"])
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let id = try await Self.template(harness, Self.welcome)
        let triggered = try await harness.create([
            "template_id": id, "trigger": ["event_name": "signup"], "audience": Self.audience(harness),
        ])
        try #require(triggered.status == 201, "\(triggered.errorText)")
        let recurring = try await harness.create([
            "template_id": id, "body": "Daily picks", "repeat": ["every_days": 1], "audience": Self.audience(harness),
        ])
        try #require(recurring.status == 201, "\(recurring.errorText)")
        let deleted = try await harness.server.admin("DELETE", "/templates/\(id)")
        try #require(deleted.status == 204)

        try await TriggerTests.goal(harness, ana, "signup")
        let triggers = TriggerRunner(
            messages: MessageService(store: harness.server.store, clock: harness.clock.function),
            logger: Logger(minimum: .error, sink: { _ in }))
        #expect(try await triggers.pass() == 1)
        #expect(try await RecurrenceTests.runner(harness).pass().count == 1)
        while try await harness.engine.drain() > 0 {}
        let alerts = try Self.payloads(harness).map(Self.alert)
        let shown = Set(alerts.map { "\($0["title"] as? String ?? "")/\($0["body"] as? String ?? "")" })
        #expect(shown == ["Welcome to Acme/Glad you're here", "Welcome to Acme/Daily picks"], "\(alerts)")
    }
}
