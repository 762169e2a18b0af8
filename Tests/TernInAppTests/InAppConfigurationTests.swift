import Foundation
import TernSDKTestKit
import TernTestSupport
import Testing

@testable import TernInApp

@Suite("In-app checks its own configuration values")
struct InAppConfigurationTests {
    /// The check is in-app's part, run by the core's validator; the core alone reports nothing of it.
    @Test func badInAppValuesAreReportedAndReplacedByDefaultsByTheModulesCheck() throws {
        let configuration = TernConfiguration.Builder(apiUrl: "http://127.0.0.1:8080/api/v1/").setMaxPlacements(0)
            .setPlacementsRequestInterval(0).build()
        #expect(ConfigurationValidator.validate(configuration).events.isEmpty, "TernCore checks no in-app value")
        let check = try #require(InAppParts.parts.checkConfiguration)
        let outcome = ConfigurationValidator.validate(configuration, checks: [check])
        #expect(outcome.events.map(\.event.name) == ["maxPlacementsInvalid", "requestIntervalInvalid"])
        #expect(outcome.events.allSatisfy { $0.kind == .error })
        #expect(outcome.events[1].value?["placementsRequestInterval"] as? Double == 0)
        #expect(outcome.configuration?.maxPlacements == TernConfiguration.defaultMaxPlacements)
        #expect(outcome.configuration?.placementsRequestInterval == TernConfiguration.defaultPlacementsRequestInterval)
        #expect(outcome.configuration?.apiUrl == "http://127.0.0.1:8080/api/v1")
    }

    /// An unusable configuration fails in-app's calls with `configIsNotSet`; the ones that answer
    /// their caller still do: the status query's completion gets nil, `settle()` returns.
    @Test @MainActor func callsThatAnswerAreAnsweredUnderAnUnusableConfiguration() async throws {
        let sdk = try TestSDK(modules: ["TernInApp"])
        sdk.tern.initialization(configuration: TernConfiguration.Builder(apiUrl: "").build())
        let inApp = sdk.tern.inApp
        let status = await answer(within: 10) {
            await withCheckedContinuation { continuation in
                inApp.subscription.getSubscriptionStatus { continuation.resume(returning: $0) }
            }
        }
        #expect(status.map { $0 == nil } == true, "getSubscriptionStatus answered nil")
        #expect(await answer(within: 10) { await inApp.settle() } != nil)
        await sdk.settle()
        let failed = Set(sdk.events.all.filter { $0.name == "configIsNotSet" }.map(\.function))
        #expect(failed.isSuperset(of: ["getSubscriptionStatus", "settle"]))
        await sdk.close()
    }

    @Test(arguments: [-1.0, Double.infinity, Double.nan])
    func anIntervalNotAboveZeroOrNotFiniteIsInvalid(_ interval: Double) {
        func names(_ interval: Double) -> [String] {
            let configuration = TernConfiguration.Builder(apiUrl: "http://127.0.0.1:8080/api/v1")
                .setPlacementsRequestInterval(interval).build()
            return ConfigurationValidator.validate(configuration, checks: [InAppParts.checkConfiguration]).events.map(
                \.event.name)
        }
        #expect(names(interval) == ["requestIntervalInvalid"])
        #expect(names(0.5).isEmpty)
    }

    /// Through the SDK's initialization: `requestIntervalInvalid` is raised, and the default interval
    /// (300 s) holds automatic requests back, not the 0 the app passed.
    @Test func anIntervalOfZeroIsAnEventAndTheDefaultIntervalHolds() async throws {
        let api = try ScriptedServer(fallback: Fixtures.response([Fixtures.placement("c1")]))
        let device = try InAppDevice()
        device.start(apiUrl: api.apiUrl, autoRequest: true, interval: 0)
        let event = try #require(await device.events.first("requestIntervalInvalid"))
        #expect(event.isError)
        #expect(event.module == "inApp" && event.function == "initialization")
        _ = await device.events.first("inAppPlacementsRequestSuccessful")
        await device.settle()
        let placements = { await api.requests.filter { $0.path.hasSuffix("/inapp/placements") }.count }
        #expect(await placements() == 1)

        device.clock.advance(200)
        await device.restart()
        device.start(apiUrl: api.apiUrl, autoRequest: true, interval: 0)
        await device.settle()
        #expect(await placements() == 1, "200 s later the default 300 s interval still holds")

        device.clock.advance(101)
        await device.restart()
        device.start(apiUrl: api.apiUrl, autoRequest: true, interval: 0)
        await device.settle()
        #expect(await placements() == 2)
        await device.close()
        api.stop()
    }
}
