import Foundation
import TernHTTP
import TernPush
import TernSDKTestKit
import Testing

@Suite("push.subscription sends status changes through the outbox")
struct SubscriptionTests {
    static let profileJSON = """
        {"id":"your id","status":"subscribed","is_test":false,"subscription":{"subscription_id":"tok-1",\
        "hash_id":"c52b28d2","provider":"ios-apns","status":"subscribed","fields":{"_device_type":"mob"},\
        "cats":[{"name":"developer_news","title":"dev_news","steady":false,"active":false}]}}
        """

    @Test @MainActor func subscribeSendsTheTokenTheFieldsAndTheDeviceInfo() async throws {
        let server = try ScriptedServer(fallback: ScriptedServer.ok(profileJSON: Self.profileJSON))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let request = sdk.tern.push.subscription.subscribe(
            sync: true, profileFields: ["_fname": "Andrey", "_lname": "Pogodin"], customFields: ["developer": true],
            cats: [CategoryData(name: "developer_news", active: true)], replace: false, skipTriggers: false)
        #expect(request.state == .queued)
        let success = try #require(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful))
        #expect(success.function == "subscribe")
        #expect(success.message == "successful request: push/subscribe")
        #expect(success.value?["http_code"] as? Int == 200)
        #expect(success.value?["error"] as? Int == 0)
        #expect(success.value?["error_text"] as? String == "")
        let profile = try #require(success.value?["profile"] as? ProfileData)
        #expect(profile.id == "your id" && profile.isTest == false)
        #expect(profile.subscription?.hashId == "c52b28d2")
        #expect(
            profile.subscription?.cats == [
                CategoryData(name: "developer_news", title: "dev_news", steady: false, active: false)
            ])

        let sent = try #require(await server.requests.first)
        #expect(sent.path == "/api/v1/push/subscribe")
        #expect(sent.header("Idempotency-Key") == request.id)
        #expect(sent.header("X-Tern-RToken") == "rt_test")
        let body = jsonObject(sent.body)
        #expect(body["provider"] as? String == "ios-apns")
        #expect(body["subscription_id"] as? String == "tok-1")
        #expect(body["sync"] as? Bool == true)
        #expect(body["replace"] as? Bool == false && body["skip_triggers"] as? Bool == false)
        #expect((body["profile_fields"] as? [String: Any])?["_fname"] as? String == "Andrey")
        let custom = try #require(body["custom_fields"] as? [String: Any])
        #expect(custom["developer"] as? Bool == true)
        #expect(custom["_os"] as? String == "IOS")
        #expect(custom["_device_type"] as? String == "mob")
        #expect(custom["_device_model"] as? String == "iPhone14,7")
        #expect(custom["_device_name"] as? String == "iPhone")
        #expect(custom["_ad_track"] as? Bool == false)
        #expect((custom["_os_ver"] as? [String: Any])?["ver"] as? String == "[\"18.0\", \"6.0\", \"2.0\"]")
        for key in ["_os_tz", "_os_language", "_session_count", "_foreground_time"] {
            #expect(custom[key] != nil, "\(key)")
        }
        let cats = body["cats"] as? [[String: Any]]
        #expect(cats?.first?["name"] as? String == "developer_news" && cats?.first?["active"] as? Bool == true)
        #expect((body["time"] as? Int ?? 0) > 1_700_000_000_000)
        await sdk.close()
    }

    @Test @MainActor func withSyncFalseTheProfileIsNil() async throws {
        let server = try ScriptedServer(fallback: ScriptedServer.ok(profileJSON: Self.profileJSON))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        sdk.tern.push.subscription.subscribe(sync: false)
        let success = try #require(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful))
        #expect(success.value?.keys.sorted() == ["error", "error_text", "http_code", "profile"])
        #expect(success.value?["profile"] as? ProfileData == nil)
        #expect(jsonObject(try #require(await server.requests.first).body)["sync"] as? Bool == false)
        await sdk.close()
    }

    @Test @MainActor func suspendAndUnsubscribeUseTheirEndpointsAndEventsInOrder() async throws {
        let server = try ScriptedServer(
            script: [ScriptedServer.failure(503, "try later")],
            fallback: ScriptedServer.ok(profileJSON: Self.profileJSON))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-firebase", pushToken: "fcm-1")
        sdk.tern.push.subscription.subscribe()
        sdk.tern.push.subscription.suspend()
        sdk.tern.push.subscription.unsubscribe()
        #expect(await events.first(PushModuleEvents.pushUnsubscribeRequestSuccessful) != nil)
        #expect(events.all(PushModuleEvents.pushSuspendRequestSuccessful).count == 1)
        #expect(events.all(PushModuleEvents.pushSubscribeRequestFailed).first is RetryEvent)
        let paths = await server.requests.map(\.path)
        #expect(
            paths == [
                "/api/v1/push/subscribe", "/api/v1/push/subscribe", "/api/v1/push/suspend", "/api/v1/push/unsubscribe",
            ])
        await sdk.close()
    }

    @Test @MainActor func nonScalarCustomFieldsAreRefusedAtOnceAndNothingIsSent() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let nested = sdk.tern.push.subscription.subscribe(customFields: ["prefs": ["a": 1]])
        let dated = sdk.tern.push.subscription.subscribe(profileFields: ["born": Date()])
        guard case .failed = nested.state, case .failed = dated.state else {
            Issue.record("bad input was queued")
            return
        }
        let objects = try #require(await events.first(CoreEvents.fieldsIsObjects))
        #expect(objects is ErrorEvent)
        #expect(objects.message == "invalid values: not all values are primitives")
        #expect(await events.first(PushModuleEvents.invalidSubRequestData) is ErrorEvent)
        #expect(await sdk.tern.flush(timeout: 10))
        #expect(await server.requests.isEmpty)
        await sdk.close()
    }

    @Test @MainActor func aChangeMadeBeforeTheTokenWaitsForIt() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.subscription.subscribe()
        #expect(await events.first(PushModuleEvents.pushTokenUpdateAwait) != nil)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: Data([0xde, 0xad, 0xbe, 0xef]))
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        let body = jsonObject(try #require(await server.requests.first).body)
        #expect(body["subscription_id"] as? String == "deadbeef")
        #expect(body["provider"] as? String == "ios-apns")
        await sdk.close()
    }
}
