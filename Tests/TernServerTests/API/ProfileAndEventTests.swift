import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// profile/authenticate, profile/update, event/post (goals) and event/push.
@Suite struct ProfileAndEventTests {
    @Test func profileUpdateNeedsAJWT() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(.profileUpdate, ["profile_fields": ["_fname": "A"]])
        #expect(reply.status == 401)
        #expect(reply.errorText.contains("profile/update needs a JWT"))
    }

    @Test func profileUpdateAppliesFieldsToTheJWTProfile() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let jwt = try signer.token(["db_id": try await JWTAuthTests.databaseId(server), "email": "u@example.com"])
        let first = try await server.sdk(
            .profileUpdate, ["profile_fields": ["_fname": "Andrey", "n": 1], "skip_triggers": true], jwt: jwt)
        #expect(first.status == 200)
        #expect(first.profile?.subscription == nil)
        let second = try await server.sdk(
            .profileUpdate, ["profile_fields": ["n": ["action": "incr", "value": 4]]], jwt: jwt)
        #expect(second.profile?.id == first.profile?.id)
        let view = try await server.admin("GET", "/profiles/\(first.profile?.id ?? "")")
        let fields = view.json["fields"] as? [String: Any]
        #expect(fields?["n"] as? Int == 5)
        #expect(fields?["_fname"] as? String == "Andrey")
        #expect(fields?["_email"] as? String == "u@example.com")
        #expect(view.json["skip_triggers"] as? Bool == true)
    }

    @Test func authenticateCreatesTheJWTProfileAndShowsTheDevicesSubscription() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let jwt = try signer.token(["db_id": try await JWTAuthTests.databaseId(server), "email": "n@example.com"])
        let fresh = try await server.sdk(.profileAuthenticate, [:], jwt: jwt)
        #expect(fresh.status == 200)
        let id = try #require(fresh.profile?.id)
        _ = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: jwt)
        let again = try await server.sdk(
            .profileAuthenticate, ["provider": "ios-apns", "subscription_id": "token-1"], jwt: jwt)
        #expect(again.profile?.id == id)
        #expect(again.profile?.subscription?.subscriptionId == "token-1")
        let anonymous = try await server.sdk(.profileAuthenticate, ["provider": "ios-apns", "subscription_id": "x"])
        #expect(anonymous.status == 200)
        #expect(anonymous.json["profile"] is NSNull)
    }

    /// Counting deliveries that exist is OutboxTests' funnel test; ids no delivery has are ignored.
    @Test func pushEventsForDeliveriesThatDoNotExistAreIgnoredAndCounted() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let body: [String: Any] = [
            "events": [
                ["message_id": "m-1", "type": "delivery", "time": 10],
                ["message_id": "m-1", "type": "open", "time": 20],
            ]
        ]
        let first = try await server.sdk(.eventPush, body)
        let second = try await server.sdk(.eventPush, body)
        #expect(first.status == 200)
        #expect(first.json["profile"] is NSNull)
        #expect(second.status == 200)
        let events = try await server.admin("GET", "/push-events", query: ["message_id": "m-1"])
        #expect(events.array.isEmpty)
        #expect(server.metrics.render().contains("tern_push_events_ignored_total{reason=\"unknown_delivery\"} 4"))
        let wrongType = try await server.sdk(.eventPush, ["events": [["message_id": "m", "type": "click", "time": 1]]])
        #expect(wrongType.status == 400)
        #expect(wrongType.errorText.contains("events[0].type"))
        let empty = try await server.sdk(.eventPush, ["events": []])
        #expect(empty.status == 400)
    }

    @Test func goalWithEveryParameterIsRecordedAgainstItsPixel() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let project = server.bootstrap.projectId
        _ = try await server.admin("POST", "/projects/\(project)/pixels", json: ["sid": "pixel-1"])
        let goal: [String: Any] = [
            "sid": "pixel-1", "client_id": "acid-1", "event_name": "purchase", "send_message_id": "smid-1",
            "payload": ["sum": 99.5, "currency": "EUR", "first": true, "coupon": NSNull()],
            "matching": ["email": "m@example.com"], "matching_type": "email",
            "utm": [
                "campaign": "spring", "source": "ads", "medium": "cpc", "content": "c", "keyword": "k", "temp": "t",
            ],
            "time": 1_700_000_000_000,
        ]
        let reply = try await server.sdk(.eventPost, ["events": [goal]])
        #expect(reply.status == 200, "\(reply.errorText)")
        let goals = try await server.admin("GET", "/projects/\(project)/pixels/pixel-1/goals")
        let stored = try #require(goals.array.first)
        #expect(stored["event_name"] as? String == "purchase")
        #expect(stored["client_id"] as? String == "acid-1")
        #expect(stored["send_message_id"] as? String == "smid-1")
        #expect((stored["payload"] as? [String: Any])?["currency"] as? String == "EUR")
        #expect((stored["utm"] as? [String: Any])?["campaign"] as? String == "spring")
        #expect(stored["matching_type"] as? String == "email")
    }

    @Test func goalRefusesUnknownPixelsNonScalarPayloadsAndJWTOnlyParts() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        _ = try await server.admin("POST", "/projects/\(server.bootstrap.projectId)/pixels", json: ["sid": "p"])
        let unknown = try await server.sdk(.eventPost, ["events": [["sid": "nope", "event_name": "e", "time": 1]]])
        #expect(unknown.status == 404)
        #expect(unknown.errorText.contains("is not a pixel"))
        let nested = try await server.sdk(
            .eventPost, ["events": [["sid": "p", "event_name": "e", "time": 1, "payload": ["a": [1]]]]])
        #expect(nested.status == 400)
        #expect(nested.errorText.contains("payload field \"a\""))
        let fields = try await server.sdk(
            .eventPost, ["events": [["sid": "p", "event_name": "e", "time": 1, "profile_fields": ["a": 1]]]])
        #expect(fields.status == 400)
        #expect(fields.errorText.contains("need a JWT"))
    }

    @Test(arguments: [
        (#"{"channel": "email", "email": "g@example.com"}"#, "email"),
        (#"{"channel": "sms", "phone": "+37120000000"}"#, "sms"),
        (#"{"channel": "push", "provider": "ios-apns", "subscription_id": "goal-token"}"#, "push"),
        (#"{"channel": "telegram_bot", "cc_data": {"chat_id": 42}}"#, "telegram_bot"),
    ])
    func goalWithAJWTAddsItsSubscriptionAndProfileFields(subscriptionJSON: String, channel: String) async throws {
        let subscription = try #require(
            try JSONSerialization.jsonObject(with: Data(subscriptionJSON.utf8)) as? [String: Any])
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let project = server.bootstrap.projectId
        _ = try await server.admin("POST", "/projects/\(project)/pixels", json: ["sid": "p"])
        let resource = try await server.admin(
            "POST", "/resources",
            json: ["project_id": project, "name": "all", "channels": ["email", "sms", "push", "telegram_bot"]])
        let resourceId = try #require(resource.json["id"] as? Int)
        _ = try await server.admin("PUT", "/resources/\(resourceId)/categories/promo", json: [:])
        let signer = try await TestSigner.register(on: server)
        let jwt = try signer.token(
            ["db_id": try await JWTAuthTests.databaseId(server), "email": "g@example.com", "resource_id": resourceId])
        var wire = subscription
        wire["resource_id"] = resourceId
        wire["cats"] = ["promo"]
        wire["custom_fields"] = ["source": "goal"]
        let goal: [String: Any] = [
            "sid": "p", "event_name": "signup", "time": 5, "profile_fields": ["_fname": "G"], "subscription": wire,
        ]
        let reply = try await server.sdk(.eventPost, ["events": [goal]], jwt: jwt)
        #expect(reply.status == 200, "\(reply.errorText)")
        let profiles = try await server.admin(
            "GET", "/profiles",
            query: ["db_id": "\(try await JWTAuthTests.databaseId(server))", "email": "g@example.com"])
        let profile = try #require(profiles.array.first)
        #expect((profile["fields"] as? [String: Any])?["_fname"] as? String == "G")
        let subscriptions = try #require(profile["subscriptions"] as? [[String: Any]])
        let added = try #require(subscriptions.first { $0["channel"] as? String == channel })
        #expect(added["status"] as? String == "subscribed")
        #expect(added["cats"] as? [String: Bool] == ["promo": true])
        #expect((added["fields"] as? [String: Any])?["source"] as? String == "goal")
    }
}
