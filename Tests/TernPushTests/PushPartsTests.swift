import Foundation
import TernCore
import TernSDKTestKit
import Testing

@testable import TernPush

@Suite("Push brings its own parts: the provider check and the token splice")
struct PushPartsTests {
    @Test func unknownProvidersAreReportedByPushsCheck() {
        let configuration = TernConfiguration.Builder(apiUrl: "https://x.example/api/v1")
            .setProviderPriorityList(["android-fcm"]).build()
        let outcome = ConfigurationValidator.validate(configuration, checks: [PushParts.checkProviders])
        #expect(outcome.events.map(\.event.name) == ["invalidPushProviders"])
        #expect(outcome.configuration?.providerPriorityList == TernConfiguration.defaultProviderPriorityList)
        // TernCore alone knows nothing of providers.
        #expect(ConfigurationValidator.validate(configuration).events.isEmpty)
    }
}

@Suite("Open and delivery reports take their place in the mailbox when the app makes them")
struct ReportOrderTests {
    /// A report made before `clear()` is in the outbox before the clear, so the clear removes it; a
    /// report queued from a task of its own could land after the clear and survive it.
    @Test @MainActor func aReportMadeBeforeClearIsCleared() async throws {
        let sdk = try TestSDK()
        // A server that never answers: nothing leaves the outbox by itself.
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        #expect(await sdk.tern.isConfigured)
        for round in 0..<20 {
            sdk.tern.push.pushEvents.deliveryEvent(from: PushEventsAPITests.userInfo("m-d\(round)"))
            sdk.tern.push.pushEvents.openEvent(from: PushEventsAPITests.userInfo("m-o\(round)"))
            sdk.tern.clear()
            await sdk.tern.flushQueues()
            let pending = await sdk.tern.outboxStatistics()?.pending.values.reduce(0, +)
            #expect(pending == 0, "round \(round): a report landed after clear()")
        }
        await sdk.close()
    }
}
