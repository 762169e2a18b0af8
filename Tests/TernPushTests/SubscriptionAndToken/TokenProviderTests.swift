import Foundation
import TernHTTP
import TernPush
import TernSDKTestKit
import Testing

@Suite("push.token asks the providers in priority order and moves the subscription with the token")
struct TokenProviderTests {
    @Test @MainActor func theFirstProviderInPriorityOrderWithATokenWins() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        sdk.fastProviders()
        let apns = FakeTokenProvider(token: nil)
        let fcm = FakeTokenProvider(token: "fcm-1")
        let hms = FakeTokenProvider(token: "hms-1")
        sdk.tern.push.token.setHMSTokenProvider(hms)
        sdk.tern.push.token.setAPNSTokenProvider(apns)
        sdk.tern.push.token.setFCMTokenProvider(fcm)
        // Once all three are set, APNs (asked three times, nothing) gives way to Firebase.
        #expect(await events.firstEvent(where: { $0.message == "push provider set: ios-firebase" }) != nil)
        #expect(await sdk.tern.push.token.getToken() == TokenData(provider: "ios-firebase", token: "fcm-1"))
        #expect(await apns.asked >= 3)
        await sdk.close()
    }

    @Test @MainActor func aProviderIsAskedAgainUntilItGivesAToken() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        sdk.fastProviders()
        let apns = FakeTokenProvider(token: "a1b2c3", nilAnswers: 2)
        sdk.tern.push.token.setAPNSTokenProvider(apns)
        #expect(await events.first(PushModuleEvents.pushProviderSet)?.message == "push provider set: ios-apns")
        #expect(await apns.asked == 3)
        #expect(await sdk.tern.push.token.getToken() == TokenData(provider: "ios-apns", token: "a1b2c3"))
        await sdk.close()
    }

    @Test @MainActor func aProviderThatNeverAnswersIsGivenUpWithAReason() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        sdk.tern.push.token.setFetchPolicy(ProviderFetchPolicy(attempts: 2, delay: 0, timeout: 0.05))
        sdk.tern.push.token.setFCMTokenProvider(FakeTokenProvider(token: "never", silent: true))
        let missing = try #require(await events.first(PushModuleEvents.pushTokenIsNil))
        #expect(missing is ErrorEvent)
        #expect((missing.value?["reason"] as? String)?.contains("ios-firebase") == true)
        #expect(await sdk.tern.push.token.getToken() == nil)
        await sdk.close()
    }

    @Test @MainActor func changingThePriorityMovesTheSubscriptionWithPushUpdate() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.fastProviders()
        sdk.tern.push.token.setAPNSTokenProvider(FakeTokenProvider(token: "apns-1"))
        sdk.tern.push.token.setFCMTokenProvider(FakeTokenProvider(token: "fcm-1"))
        #expect(await events.first(PushModuleEvents.pushProviderSet) != nil)
        sdk.tern.push.subscription.subscribe()
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        sdk.tern.push.token.changeProviderPriority([
            PushConstants.ProviderName.firebase, PushConstants.ProviderName.apns, PushConstants.ProviderName.huawei,
        ])
        let updated = try #require(await events.first(PushModuleEvents.tokenUpdateRequestSuccessful))
        #expect(updated.function == "changeProviderPriority")
        let requests = await server.requests
        #expect(requests.map(\.path) == ["/api/v1/push/subscribe", "/api/v1/push/update"])
        let body = jsonObject(requests[1].body)
        #expect(body["old_provider"] as? String == "ios-apns" && body["old_subscription_id"] as? String == "apns-1")
        #expect(body["provider"] as? String == "ios-firebase" && body["subscription_id"] as? String == "fcm-1")
        await sdk.close()
    }

    @Test @MainActor func anInvalidPriorityListIsRefusedWithItsReason() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        sdk.tern.push.token.changeProviderPriority([])
        sdk.tern.push.token.changeProviderPriority(["ios-apns", "android-fcm"])
        sdk.tern.push.token.changeProviderPriority(["ios-apns", "ios-apns"])
        #expect(await events.count(PushModuleEvents.invalidPushProviders, reaches: 3))
        let refused = events.all(PushModuleEvents.invalidPushProviders)
        #expect(refused.allSatisfy { $0 is ErrorEvent })
        #expect(refused.first?.message == "invalid provider. Available - ios-apns, ios-firebase, ios-huawei.")
        let reasons = refused.compactMap { $0.value?["reason"] as? String }
        #expect(reasons.count == 3)
        #expect(reasons[1].contains("android-fcm"))
        await sdk.close()
    }

    @Test @MainActor func forcedTokenUpdateRenewsTheFirebaseTokenAndMovesTheSubscription() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.fastProviders()
        let fcm = FakeTokenProvider(token: "fcm-1")
        sdk.tern.push.token.setFCMTokenProvider(fcm)
        #expect(await events.first(PushModuleEvents.pushProviderSet) != nil)
        sdk.tern.push.subscription.subscribe()
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        await sdk.tern.push.token.forcedTokenUpdate()
        #expect(await fcm.deleted == 1)
        #expect(await sdk.tern.push.token.getToken() == TokenData(provider: "ios-firebase", token: "fcm-1-renewed"))
        #expect(await events.first(PushModuleEvents.tokenUpdateRequestSuccessful) != nil)
        let update = try #require(await server.requests.last)
        #expect(update.path == "/api/v1/push/update")
        #expect(jsonObject(update.body)["old_subscription_id"] as? String == "fcm-1")
        #expect(jsonObject(update.body)["subscription_id"] as? String == "fcm-1-renewed")
        await sdk.close()
    }

    @Test @MainActor func apnsTokensCannotBeDeletedOrForcedAndUnknownProvidersAreRefused() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "apns-1")
        await sdk.tern.push.token.forcedTokenUpdate()
        await sdk.tern.push.token.deleteToken(provider: "ios-apns")
        await sdk.tern.push.token.deleteToken(provider: "android-fcm")
        #expect(await events.count(PushModuleEvents.apnsIsNotUpdated, reaches: 2))
        #expect(
            events.all(PushModuleEvents.apnsIsNotUpdated).first?.message
                == "forcing a push token update is not possible: the operation is not supported for APNs.")
        #expect(await events.first(PushModuleEvents.invalidPushProvider) != nil)
        #expect(await sdk.tern.push.token.getToken() == TokenData(provider: "ios-apns", token: "apns-1"))
        await sdk.close()
    }

    @Test func theAPNsDeviceTokenIsSentAsLowerCaseHex() {
        #expect(TokenAPI.hexString(deviceToken: Data([0x00, 0xAB, 0x0F, 0xF0])) == "00ab0ff0")
    }
}
