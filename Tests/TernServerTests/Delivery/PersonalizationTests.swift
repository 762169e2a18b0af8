import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `{{field}}` and `{{field|fallback}}` in a message's texts: each device's push, and each person's
/// inbox copy, is made with its person's profile fields (a version's texts too, in an A/B test); a
/// push made too large for its person fails alone, with why; a malformed placeholder is refused
/// by name when the message is made.
@Suite struct PersonalizationTests {
    @Test func aPlaceholderShowsTheFieldOrItsFallback() throws {
        let fields: [String: JSONValue] = [
            "name": .string("Ana"), "visits": .int(3), "score": .double(12.5), "vip": .bool(true), "blank": .string(""),
            "none": .null, "list": .array([.int(1)]),
        ]
        let cases: [(String, String)] = [
            ("Hi {{name|there}}!", "Hi Ana!"), ("Hi {{ missing | there }}!", "Hi there!"),
            ("{{visits}} visits", "3 visits"),
            ("{{score}}", "12.5"), ("{{vip}}", "true"), ("[{{blank|x}}][{{none|y}}][{{list|z}}]", "[x][y][z]"),
            ("{{missing}}.", "."), ("a }} b", "a }} b"), ("{{name}}{{name}}", "AnaAna"),
            ("no placeholder", "no placeholder"),
        ]
        for (text, shown) in cases {
            #expect(Personalization.render(text, fields: fields) == shown, "\(text)")
        }
        for (text, reason) in [
            ("Hi {{name", "title has a {{ with no }} after it"), ("{{first name}}", "whose field name is not valid"),
            ("{{}}", "whose field name is not valid"), ("{{9lives}}", "whose field name is not valid"),
            (String(repeating: "{{a}}", count: 21), "more than 20 placeholders"),
        ] {
            do {
                _ = try Personalization.parts(text, field: "title")
                Issue.record("\(text) was taken")
            } catch {
                #expect(error.reason.contains(reason), "\(text): \(error.reason)")
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func eachPersonGetsTheirOwnTexts(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        var profiles: [String: String] = [:]
        for (token, fields) in [
            ("ana", ["first_name": "Ana", "visits": 3] as [String: Any]),
            ("huge", ["first_name": String(repeating: "x", count: 4_000)]), ("new", [:]),
        ] {
            var body: [String: Any] = ["time": 1000, "provider": "ios-apns", "subscription_id": token, "sync": true]
            if !fields.isEmpty { body["profile_fields"] = fields }
            let reply = try await harness.server.sdk(.pushSubscribe, body)
            try #require(reply.status == 200, "\(reply.errorText)")
            profiles[token] = try #require(reply.profile?.id)
        }
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let id = try await harness.send(
            audience, extra: ["title": "Hi {{first_name|there}}", "body": "Visit number {{visits|one}}", "inbox": true])
        while try await harness.engine.drain() > 0 {}
        var shown: [String: (title: String?, body: String?)] = [:]
        for push in harness.sender.pushes {
            let seen = try MessageVariantTests.shown(push)
            #expect(seen.pushId == "\(id).\(push.deliveryId)")
            shown[push.token] = (seen.title, seen.body)
        }
        #expect(shown["ana"]?.title == "Hi Ana" && shown["ana"]?.body == "Visit number 3")
        #expect(shown["new"]?.title == "Hi there" && shown["new"]?.body == "Visit number one")
        #expect(shown["huge"] == nil, "too large for APNs once made for its person")
        let failed = try await harness.deliveries(id).filter { $0["status"] as? String == "failed" }
        #expect(failed.count == 1)
        let reason = failed.first?["reason"] as? String
        #expect(reason?.contains("personalized for its person") == true, "\(failed)")
        let inbox = try await harness.server.admin("GET", "/profiles/\(try #require(profiles["ana"]))/inbox")
        #expect((inbox.json["messages"] as? [[String: Any]])?.first?["title"] as? String == "Hi Ana", "\(inbox.json)")

        // An A/B test's versions are personalized as well.
        let before = harness.sender.pushes.count
        let test = try await harness.send(
            ["type": "profiles", "profile_ids": [profiles["ana"], profiles["new"]]],
            extra: ["title": "Hi {{first_name|there}}", "variants": [[:], ["title": "{{first_name|You}}: last day"]]])
        while try await harness.engine.drain() > 0 {}
        for push in harness.sender.pushes.dropFirst(before) {
            let seen = try MessageVariantTests.shown(push)
            let b = seen.pushId.hasPrefix("\(test).b.")
            let name = push.token == "ana" ? "Ana" : (b ? "You" : "there")
            #expect(seen.title == (b ? "\(name): last day" : "Hi \(name)"), "\(push.token) \(seen)")
        }
        #expect(harness.sender.pushes.count == before + 2)
    }

    /// A link and custom data name the person's fields too: each value percent-encoded in the
    /// link (so a field cannot break it), as written in the data; the inbox copy's link and data are
    /// the person's as well.
    @Test(arguments: StoreFactory.all)
    func aLinkAndCustomDataAreThePersonsToo(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        var profiles: [String: String] = [:]
        for (token, fields) in [
            ("ana", ["ref": "a b&c/d", "coupon": "ANA10"]), ("new", [:]),
        ] as [(String, [String: Any])] {
            var body: [String: Any] = ["time": 1000, "provider": "ios-apns", "subscription_id": token, "sync": true]
            if !fields.isEmpty { body["profile_fields"] = fields }
            let reply = try await harness.server.sdk(.pushSubscribe, body)
            try #require(reply.status == 200, "\(reply.errorText)")
            profiles[token] = try #require(reply.profile?.id)
        }
        _ = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId],
            extra: [
                "click_url": "https://example.com/r?ref={{ref|none}}", "inbox": true,
                "data": ["coupon": "{{coupon|WELCOME}}", "count": 3, "plain": "no placeholder"],
            ])
        while try await harness.engine.drain() > 0 {}
        var seen: [String: [String: Any]] = [:]
        for push in harness.sender.pushes {
            seen[push.token] = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
        }
        #expect(seen["ana"]?["coupon"] as? String == "ANA10")
        #expect(seen["new"]?["coupon"] as? String == "WELCOME")
        #expect(seen["ana"]?["count"] as? Int == 3 && seen["ana"]?["plain"] as? String == "no placeholder")
        let links = harness.sender.pushes.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(links.contains { $0.contains("ref=a%20b%26c%2Fd") }, "\(links)")
        #expect(links.contains { $0.contains("ref=none") }, "\(links)")
        let inbox = try await harness.server.admin("GET", "/profiles/\(try #require(profiles["ana"]))/inbox")
        let copy = try #require((inbox.json["messages"] as? [[String: Any]])?.first)
        #expect(copy["link"] as? String == "https://example.com/r?ref=a%20b%26c%2Fd", "\(copy)")
        #expect("\(copy["data"] ?? "")".contains("ANA10"), "\(copy)")
    }

    @Test func aMalformedPlaceholderIsRefusedByName() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        for (extra, reason) in [
            (["title": "Hi {{first_name"], "title has a {{ with no }} after it"),
            (["body": "{{first name}}"], "body has {{first name}}, whose field name is not valid"),
            (["variants": [[:], ["subtitle": "{{|x}}"]]], "variants[1] (b): subtitle has {{|x}}"),
            (["click_url": "https://example.com/{{ref"], "click_url has a {{ with no }} after it"),
            (["data": ["coupon": "{{2x}}"]], "data.coupon has {{2x}}, whose field name is not valid"),
            (["click_url": "{{link}}"], "click_url"),
        ] as [([String: Any], String)] {
            var json: [String: Any] = ["title": "Hi", "audience": audience]
            json.merge(extra) { _, new in new }
            let reply = try await harness.create(json)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reply.status) \(reply.errorText)")
        }
    }
}
