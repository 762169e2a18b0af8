import Foundation
import TernProtocol
import TernServer
import Testing

/// push/subscribe, push/suspend, push/unsubscribe with an rToken, as the reference describes them.
@Suite struct PushSubscriptionAPITests {
    @Test func subscribeCreatesProfileAndSubscriptionAndAnswersTheProfile() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(
            .pushSubscribe,
            InProcessServer.subscription(extra: [
                "profile_fields": ["_fname": "Andrey"], "custom_fields": ["_os": "IOS", "developer": true],
            ]))
        #expect(reply.status == 200)
        #expect(reply.error == 0)
        #expect(reply.errorText == "")
        let profile = try #require(reply.profile)
        #expect(profile.id?.count == 24)
        #expect(profile.status == "subscribed")
        #expect(profile.isTest == false)
        let subscription = try #require(profile.subscription)
        #expect(subscription.subscriptionId == "token-1")
        #expect(subscription.provider == "ios-apns")
        #expect(subscription.status == "subscribed")
        #expect(subscription.hashId?.count == 8)
        #expect(subscription.fields == ["_os": "IOS", "developer": true])
        #expect(subscription.cats == [])
    }

    @Test func syncFalseAnswersWithoutProfile() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(sync: false))
        #expect(reply.status == 200)
        #expect(reply.body == Data(#"{"error":0,"error_text":"","profile":null}"#.utf8))
    }

    @Test func syncMayBeLeftOutAndDefaultsToTrue() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(
            .pushSubscribe, ["time": 1, "provider": "ios-apns", "subscription_id": "t"])
        #expect(reply.status == 200)
        #expect(reply.profile?.subscription?.subscriptionId == "t")
    }

    @Test func theSameTokenKeepsOneProfileAndOneSubscription() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let first = try await server.sdk(.pushSubscribe, InProcessServer.subscription(time: 1))
        let second = try await server.sdk(.pushSuspend, InProcessServer.subscription(time: 2))
        #expect(first.profile?.id == second.profile?.id)
        #expect(first.profile?.subscription?.hashId == second.profile?.subscription?.hashId)
        #expect(second.profile?.subscription?.status == "suspended")
        #expect(second.profile?.status == "suspended")
        let found = try await server.admin(
            "GET", "/subscriptions",
            query: [
                "resource_id": "\(server.bootstrap.resourceId)", "provider": "ios-apns", "subscription_id": "token-1",
            ])
        #expect(found.array.count == 1)
    }

    @Test func unsubscribeSetsStatusUnsubscribed() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        _ = try await server.sdk(.pushSubscribe, InProcessServer.subscription(time: 1))
        let reply = try await server.sdk(.pushUnsubscribe, InProcessServer.subscription(time: 2))
        #expect(reply.profile?.subscription?.status == "unsubscribed")
        #expect(reply.profile?.status == "unsubscribed")
    }

    @Test func olderChangeArrivingLateDoesNotOverwriteTheNewer() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        _ = try await server.sdk(.pushUnsubscribe, InProcessServer.subscription(time: 2000))
        let late = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(time: 1000, extra: ["custom_fields": ["late": true]]))
        #expect(late.status == 200)
        #expect(late.profile?.subscription?.status == "unsubscribed")
        #expect(late.profile?.subscription?.fields?["late"] == nil)
    }

    @Test func customFieldThatIsNotAScalarIsRefusedWithTheReferenceText() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(extra: ["custom_fields": ["nested": ["a": 1]]]))
        #expect(reply.status == 400)
        #expect(reply.error == 400)
        #expect(
            reply.errorText
                == "Platform profile processing error: field \"nested\" is not valid: failed convert custom field")
        #expect(reply.json["profile"] is NSNull)
    }

    @Test func unknownCategoryIsRefusedWithTheReferenceText() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(extra: ["cats": [["name": "football", "active": true]]]))
        #expect(reply.status == 400)
        #expect(
            reply.errorText
                == "Platform profile processing error: field \"subscriptions.cats\" is not valid: category not found in resource"
        )
        let nothing = try await server.admin(
            "GET", "/subscriptions",
            query: [
                "resource_id": "\(server.bootstrap.resourceId)", "provider": "ios-apns", "subscription_id": "token-1",
            ])
        #expect(nothing.array.isEmpty)
    }

    @Test func categoriesAnswerWithTitleSteadyAndActive() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let resource = server.bootstrap.resourceId
        _ = try await server.admin(
            "PUT", "/resources/\(resource)/categories/developer_news", json: ["title": "dev_news"])
        _ = try await server.admin(
            "PUT", "/resources/\(resource)/categories/alerts", json: ["title": "Alerts", "steady": true])
        let reply = try await server.sdk(
            .pushSubscribe,
            InProcessServer.subscription(extra: ["cats": [["name": "developer_news", "active": true]]]))
        #expect(reply.status == 200)
        #expect(
            reply.profile?.subscription?.cats == [
                CategoryData(name: "alerts", title: "Alerts", steady: true, active: false),
                CategoryData(name: "developer_news", title: "dev_news", steady: false, active: true),
            ])
    }

    /// The resource's categories are kept a few seconds between subscribes; a category made in that
    /// while is read again, not refused, and the answer names it.
    @Test func aCategoryMadeAMomentAgoIsAcceptedThoughTheCategoriesAreKept() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let resource = server.bootstrap.resourceId
        let before = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "token-a"))
        #expect(before.status == 200 && before.profile?.subscription?.cats == [])
        _ = try await server.admin("PUT", "/resources/\(resource)/categories/sale", json: ["title": "Sale"])
        let reply = try await server.sdk(
            .pushSubscribe,
            InProcessServer.subscription(token: "token-b", extra: ["cats": [["name": "sale", "active": true]]]))
        #expect(reply.status == 200, "\(reply.errorText)")
        #expect(
            reply.profile?.subscription?.cats == [
                CategoryData(name: "sale", title: "Sale", steady: false, active: true)
            ])
    }

    @Test func invalidProfileFieldIsRefusedWithTheReferenceText() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        _ = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(extra: ["profile_fields": ["count": "x"]]))
        let reply = try await server.sdk(
            .pushSubscribe,
            InProcessServer.subscription(
                time: 2000, extra: ["profile_fields": ["count": ["action": "incr", "value": 1]]]))
        #expect(reply.status == 400)
        #expect(reply.errorText == "Platform profile processing error: with field \"count\": Incorrect field")
    }

    @Test func profileFieldsTakeEveryShapeAndActionOperation() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let fields: [String: Any] = [
            "_fname": "Andrey", "age": 30, "vip": true, "score": 1.5, "nothing": NSNull(),
            "address": ["city": "Riga"], "tags": ["a", "b"], "orders": [["id": 1], ["id": 2]],
        ]
        let first = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(extra: ["profile_fields": fields]))
        let operations: [String: Any] = [
            "age": ["action": "incr", "value": 2], "tags": ["action": "add", "value": "c"],
            "vip": ["action": "unset"], "address": ["action": "upsert", "value": ["zip": "LV-1"]],
            "orders": ["action": "delete", "value": ["id": 1]], "_lname": ["action": "set", "value": "Pogodin"],
        ]
        let second = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(time: 2000, extra: ["profile_fields": operations]))
        #expect(second.status == 200)
        let profileId = try #require(first.profile?.id)
        let view = try await server.admin("GET", "/profiles/\(profileId)")
        let stored = try #require(view.json["fields"] as? [String: Any])
        #expect(stored["age"] as? Int == 32)
        #expect(stored["tags"] as? [String] == ["a", "b", "c"])
        #expect(stored["vip"] == nil)
        #expect(stored["address"] as? [String: String] == ["city": "Riga", "zip": "LV-1"])
        #expect((stored["orders"] as? [[String: Int]]) == [["id": 2]])
        #expect(stored["_lname"] as? String == "Pogodin")
        #expect(stored["nothing"] is NSNull)
        #expect(stored["score"] as? Double == 1.5)
    }

    @Test func replaceUnsubscribesOtherProfilesWithTheSameToken() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let db = try #require(
            try await server.admin("GET", "/projects/\(server.bootstrap.projectId)/databases").array.first?["id"]
                as? Int)
        let alice = try signer.token(["db_id": db, "email": "alice@example.com"])
        let bob = try signer.token(["db_id": db, "email": "bob@example.com"])
        let first = try await server.sdk(.pushSubscribe, InProcessServer.subscription(time: 1), jwt: alice)
        let second = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(time: 2, extra: ["replace": true]), jwt: bob)
        #expect(first.profile?.id != second.profile?.id)
        let all = try await server.admin(
            "GET", "/subscriptions",
            query: [
                "resource_id": "\(server.bootstrap.resourceId)", "provider": "ios-apns", "subscription_id": "token-1",
            ])
        let statuses = Dictionary(
            uniqueKeysWithValues: all.array.map { ($0["profile_id"] as? String ?? "", $0["status"] as? String ?? "") })
        #expect(statuses[first.profile?.id ?? ""] == "unsubscribed")
        #expect(statuses[second.profile?.id ?? ""] == "subscribed")
    }

    @Test func resourceWithoutAPushChannelRefusesPushSubscriptions() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let email = try await server.admin(
            "POST", "/resources",
            json: ["project_id": server.bootstrap.projectId, "name": "mail", "channels": ["email"]])
        let rToken = try #require(email.json["rtoken"] as? String)
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), rToken: rToken)
        #expect(reply.status == 400)
        #expect(reply.errorText.contains("has no push channel"))
    }

    @Test func unknownProviderAndEmptyTokenAreRefusedWithReasons() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let provider = try await server.sdk(
            .pushSubscribe, ["time": 1, "provider": "android-fcm", "subscription_id": "t", "sync": true])
        #expect(provider.status == 400)
        #expect(provider.errorText.contains("ios-apns, ios-firebase, ios-huawei"))
        let empty = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: ""))
        #expect(empty.status == 400)
        #expect(empty.errorText.contains("subscription_id is empty"))
    }
}
