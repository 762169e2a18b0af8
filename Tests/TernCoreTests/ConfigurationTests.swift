import Foundation
import Testing

@testable import TernCore

@Suite("The configuration is validated with the reference's events")
struct ConfigurationTests {
    static func kinds(_ outcome: ConfigurationValidator.Outcome) -> [String] {
        outcome.events.map(\.event.name)
    }

    @Test func builderDefaultsFollowTheReference() {
        let config = TernConfiguration.Builder(apiUrl: "https://push.example.com/api/v1").build()
        #expect(config.providerPriorityList == ["ios-apns", "ios-firebase", "ios-huawei"])
        #expect(config.rToken == nil)
        #expect(config.inAppAutoRequest == false)
        #expect(config.collectionEnabled)
        let chained = TernConfiguration.Builder(apiUrl: "https://x.example/api/v1").setRToken("rt_1")
            .setProviderPriorityList(["ios-firebase", "ios-apns"]).setMaxPlacements(3).setPlacementsRequestInterval(60)
            .setInAppAutoRequest(true).setCollectionEnabled(false).build()
        #expect(chained.rToken == "rt_1" && chained.maxPlacements == 3 && chained.placementsRequestInterval == 60)
        #expect(chained.providerPriorityList == ["ios-firebase", "ios-apns"] && !chained.collectionEnabled)
    }

    @Test(arguments: ["", "   ", "not a url", "ftp://x.example", "http://", "/api/v1"])
    func anInvalidURLIsUnusable(_ url: String) {
        let outcome = ConfigurationValidator.validate(TernConfiguration.Builder(apiUrl: url).build())
        #expect(outcome.configuration == nil)
        #expect(Self.kinds(outcome) == ["invalidUrlValue"])
        #expect(outcome.events.first?.kind == .error)
    }

    @Test func anEmptyRTokenIsUnusable() {
        let outcome = ConfigurationValidator.validate(
            TernConfiguration.Builder(apiUrl: "http://127.0.0.1:8080/api/v1").setRToken("  ").build())
        #expect(outcome.configuration == nil)
        #expect(Self.kinds(outcome) == ["invalidRTokenValue"])
    }

    @Test func aGoodConfigurationRaisesNothing() {
        let outcome = ConfigurationValidator.validate(
            TernConfiguration.Builder(apiUrl: "https://push.example.com/api/v1").setRToken("rt_1").build())
        #expect(outcome.events.isEmpty)
        #expect(outcome.configuration?.rToken == "rt_1")
    }
}
