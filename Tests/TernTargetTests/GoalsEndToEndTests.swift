import Foundation
import TernPush
import TernSDKTestKit
import TernTarget
import TernTestSupport
import Testing

/// Goals from the SDK, through its outbox, to a real `tern serve`, read back through the admin API.
@Suite(.serialized) struct GoalsEndToEndTests {
    @Test func aGoalWithEveryParameterArrivesWithEachFieldIntact() async throws {
        let server = try await RealServer.start()
        let sid = try await server.pixel("checkout-pixel")
        let emailResource = try await server.resource("newsletter", channels: ["email"])
        try await server.category("news", resource: emailResource)
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl, rToken: server.rToken, jwt: try server.jwt(email: "ada@example.com"))

        sdk.tern.target.sendTarget(
            sid: sid, clientID: "client-42", eventName: "purchase", sendMessageId: "smid-9",
            payload: ["sum": 99.5, "items": 3, "gift": false, "coupon": "SPRING", "ref": nil],
            matching: ["email": "ada@example.com"], matchingType: "email",
            profileFields: ["_fname": "Ada", "purchases": ["action": "incr", "value": 1]],
            subscription: EmailSubscription(
                resourceId: emailResource, email: "ada@example.com", priority: 1, customFields: ["source": "checkout"],
                cats: ["news"]),
            utm: UTM(campaign: "spring", content: "banner", keyword: "shoes", medium: "cpc", source: "ads", temp: "t1"))
        let success = try #require(await sdk.events.first("mobileEventRequestSuccessful"), "the goal never landed")
        #expect(success.httpCode == 200)

        let goal = try #require(try await server.goals(sid: sid).first)
        #expect(goal["client_id"] as? String == "client-42")
        #expect(goal["event_name"] as? String == "purchase")
        #expect(goal["send_message_id"] as? String == "smid-9")
        #expect(goal["matching_type"] as? String == "email")
        #expect((goal["matching"] as? [String: Any])?["email"] as? String == "ada@example.com")
        let payload = try #require(goal["payload"] as? [String: Any])
        #expect(payload["sum"] as? Double == 99.5)
        #expect(payload["items"] as? Int == 3)
        #expect(payload["gift"] as? Bool == false)
        #expect(payload["coupon"] as? String == "SPRING")
        #expect(payload["ref"] is NSNull)
        #expect(
            goal["utm"] as? [String: String]
                == [
                    "campaign": "spring", "content": "banner", "keyword": "shoes", "medium": "cpc", "source": "ads",
                    "temp": "t1",
                ])
        #expect((goal["time"] as? Int ?? 0) > 1_700_000_000_000)
        #expect(goal["profile_id"] is Int, "a JWT goal is linked to its profile")

        let profile = try #require(try await server.profile(email: "ada@example.com"))
        let fields = try #require(profile["fields"] as? [String: Any])
        #expect(fields["_fname"] as? String == "Ada")
        #expect(fields["purchases"] as? Int == 1)
        let subscriptions = profile["subscriptions"] as? [[String: Any]] ?? []
        let email = try #require(subscriptions.first { $0["channel"] as? String == "email" })
        #expect(email["subscription_id"] as? String == "ada@example.com")
        #expect(email["resource_id"] as? Int == emailResource)
        #expect(email["priority"] as? Int == 1)
        #expect((email["fields"] as? [String: Any])?["source"] as? String == "checkout")
        #expect(email["cats"] as? [String: Bool] == ["news": true])
        await sdk.close()
        await server.stop()
    }

    @Test func eachOfTheFourSubscriptionTypesLandsOnTheProfile() async throws {
        let server = try await RealServer.start()
        let sid = try await server.pixel("signup")
        let email = try await server.resource("mail", channels: ["email"])
        let sms = try await server.resource("texts", channels: ["sms"])
        let bots = try await server.resource("bots", channels: ["telegram_bot", "whatsapp"])
        let push = Int(server.process.resourceId)
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl, rToken: server.rToken, jwt: try server.jwt(email: "grace@example.com"))

        let subscriptions: [any Subscription] = [
            EmailSubscription(resourceId: email, email: "grace@example.com"),
            SmsSubscription(resourceId: sms, phone: "+351912345678", status: "suspended"),
            PushSubscription(
                resourceId: push, provider: "ios-firebase", subscriptionId: "tablet-token", customFields: ["_os": "IOS"]
            ),
            CcDataSubscription(resourceId: bots, channel: "telegram_bot", ccData: ["chat_id": "424242"], priority: 3),
        ]
        for (index, subscription) in subscriptions.enumerated() {
            sdk.tern.target.sendTarget(sid: sid, eventName: "signup-\(index)", subscription: subscription)
        }
        // Goals go in one batch or several: count the goals the success events acknowledge.
        var acknowledged = 0
        var next = 0
        while acknowledged < 4 {
            let event = try #require(
                await sdk.events.first(
                    where: { $0.name == "mobileEventRequestSuccessful" || $0.name == "mobileEventRequestFailed" },
                    after: next))
            #expect(event.name == "mobileEventRequestSuccessful", "\(event.errorText ?? "")")
            acknowledged += event.count ?? 1
            next = event.index + 1
        }
        #expect(try await server.goals(sid: sid).count == 4)

        let profile = try #require(try await server.profile(email: "grace@example.com"))
        let stored = profile["subscriptions"] as? [[String: Any]] ?? []
        func channel(_ name: String) -> [String: Any]? { stored.first { $0["channel"] as? String == name } }
        #expect(channel("email")?["subscription_id"] as? String == "grace@example.com")
        #expect(channel("email")?["status"] as? String == "subscribed")
        #expect(channel("sms")?["subscription_id"] as? String == "+351912345678")
        #expect(channel("sms")?["status"] as? String == "suspended")
        #expect(channel("push")?["provider"] as? String == "ios-firebase")
        #expect(channel("push")?["subscription_id"] as? String == "tablet-token")
        #expect((channel("push")?["fields"] as? [String: Any])?["_os"] as? String == "IOS")
        let telegram = try #require(channel("telegram_bot"))
        #expect((telegram["cc_data"] as? [String: Any])?["chat_id"] as? String == "424242")
        #expect(telegram["priority"] as? Int == 3)
        #expect(telegram["resource_id"] as? Int == bots)
        await sdk.close()
        await server.stop()
    }

    /// An app that never logs users in: the device subscribes with the rToken, and its goal, which
    /// names the device's token, starts its person's triggered message on the real server (its
    /// runner takes the wait within two seconds: the message counts the device as targeted).
    @Test func anAnonymousDevicesGoalStartsItsTriggeredMessage() async throws {
        let server = try await RealServer.start()
        let sid = try await server.pixel("shop")
        let made = try await server.admin(
            "POST", "/messages",
            json: [
                "title": "Your cart is waiting", "trigger": ["event_name": "cart_abandoned"],
                "audience": ["type": "resource", "resource_id": Int(server.process.resourceId)],
            ])
        let message = try #require(made.json?["id"] as? String, "\(made.status) \(made.text)")
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl, rToken: server.rToken)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "e2e-anonymous-goal-token")
        sdk.tern.push.subscription.subscribe()
        let profile = try #require(await sdk.events.first("pushSubscribeRequestSuccessful")?.profile?.id)

        sdk.tern.target.sendTarget(sid: sid, eventName: "cart_abandoned")
        let success = try #require(await sdk.events.first("mobileEventRequestSuccessful"), "the goal never landed")
        #expect(success.httpCode == 200)
        #expect(try await server.goals(sid: sid).first?["profile_id"] is Int, "stored with the device's profile")
        var targeted = 0
        for _ in 0..<100 where targeted == 0 {
            let stats = try await server.admin("GET", "/messages/\(message)/stats")
            targeted = stats.json?["targeted"] as? Int ?? 0
            if targeted == 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(targeted == 1, "the runner took \(profile)'s wait")
        await sdk.close()
        await server.stop()
    }

    @Test func anUnknownSidGetsTheServers4xxWithItsReason() async throws {
        let server = try await RealServer.start()
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl, rToken: server.rToken)
        sdk.tern.target.sendTarget(sid: "no-such-pixel", eventName: "install")
        let failure = try #require(await sdk.events.first("mobileEventRequestFailed"))
        #expect(failure.isError && !failure.isRetry)
        #expect((400..<500).contains(failure.httpCode ?? 0), "the server refuses it: \(failure.httpCode ?? 0)")
        #expect(
            failure.errorText?.contains("\"no-such-pixel\" is not a pixel of project") == true,
            "\(failure.errorText ?? "")")
        await sdk.close()
        await server.stop()
    }
}
