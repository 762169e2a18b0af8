import Foundation
import TernSDKTestKit
import TernTestSupport
import Testing

@testable import TernCore

/// The APNs environment read from a build: a provisioning-profile-shaped file written by the tests,
/// and the rule that picks the environment the SDK sends.
@Suite struct ProvisioningProfileTests {
    /// The profile as the app's bundle holds it: a file, read back.
    static func profileFile(_ apsEnvironment: String?) throws -> Data {
        let directory = try TemporaryDirectory(prefix: "tern-profile")
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("embedded.mobileprovision"))
        try SampleProvisioningProfile.data(apsEnvironment: apsEnvironment).write(to: url)
        return try Data(contentsOf: url)
    }

    @Test func aDevelopmentProfileIsTheSandboxAndADistributionOneProduction() throws {
        let development = try Self.profileFile("development")
        #expect(ProvisioningProfile.apsEnvironment(in: development) == "development")
        #expect(ProvisioningProfile.apnsEnvironment(in: development) == .sandbox)
        #expect(ProvisioningProfile.apnsEnvironment(in: try Self.profileFile("production")) == .production)
        let plist = try #require(ProvisioningProfile.propertyList(in: development))
        #expect(plist["Name"] as? String == "iOS Team Provisioning Profile: com.example.tern")
    }

    @Test func aProfileWithoutTheEntitlementOrUnreadableSaysNothing() throws {
        #expect(ProvisioningProfile.apnsEnvironment(in: try Self.profileFile(nil)) == nil)
        #expect(ProvisioningProfile.apnsEnvironment(in: try Self.profileFile("staging")) == nil)
        #expect(ProvisioningProfile.apnsEnvironment(in: Data([0x30, 0x80, 0x06, 0x09])) == nil)
        var cut = SampleProvisioningProfile.data(apsEnvironment: "development")
        cut = cut.prefix(cut.count / 2)
        #expect(ProvisioningProfile.apnsEnvironment(in: cut) == nil, "a plist cut short is no plist")
        let broken = Data("junk<?xml version=\"1.0\"?><plist><dict><key>Entitlements</key></plist>".utf8)
        #expect(ProvisioningProfile.apnsEnvironment(in: broken) == nil)
    }

    @Test func theBuildsEnvironmentFollowsWhatItCarries() throws {
        let development = try Self.profileFile("development")
        #expect(ProvisioningProfile.buildEnvironment(profile: nil, simulator: false) == .production, "App Store")
        #expect(ProvisioningProfile.buildEnvironment(profile: development, simulator: false) == .sandbox)
        #expect(ProvisioningProfile.buildEnvironment(profile: nil, simulator: true) == .sandbox, "the simulator")
        #expect(ProvisioningProfile.buildEnvironment(profile: try Self.profileFile(nil), simulator: false) == nil)
    }

    @Test func theConfigurationWinsOverTheBuildAndProductionIsTheDefault() {
        let url = "http://127.0.0.1:8080/api/v1"
        #expect(TernConfiguration.Builder(apiUrl: url).build().apnsEnvironment == nil)
        let sandbox = TernConfiguration.Builder(apiUrl: url).setApnsEnvironment(.sandbox).build()
        #expect(sandbox.apnsEnvironment == .sandbox)
        // The validator keeps it.
        #expect(ConfigurationValidator.validate(sandbox).configuration?.apnsEnvironment == .sandbox)
        #expect(
            TernConfiguration.Builder(apiUrl: url, apnsEnvironment: .production).build().apnsEnvironment == .production)
        #expect(APNsEnvironment(entitlement: "development") == .sandbox)
        #expect(APNsEnvironment(entitlement: "production") == .production)
        #expect(APNsEnvironment(entitlement: "sandbox") == nil)
    }
}
