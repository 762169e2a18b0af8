import Foundation
import TernCore
import TernCrypto
import TernProtocol
import TernPush
import TernSDKTestKit
import TernTestSupport
import Testing

/// Issue 14 end to end: SDKs of development and store builds subscribe to a real `tern serve`,
/// one `tern send` reaches each token through its own APNs gateway (two peers, each counting what
/// it got), a host category arrives as `aps.category`, and a test send reaches only test devices.
@Suite(.serialized) struct APNsEnvironmentTests {
    struct Device {
        let name: String
        let token: String
        let configured: APNsEnvironment?
        let build: APNsEnvironment?
    }

    /// The devices, and the gateway each must be reached through.
    static let devices: [(Device, APNsEnvironment)] = [
        // The app says sandbox itself (a development-signed build, as the reference's option).
        (
            Device(
                name: "configured-sandbox", token: String(repeating: "a1", count: 32), configured: .sandbox, build: nil),
            .sandbox
        ),
        // Nothing configured: the build's development profile says sandbox.
        (
            Device(
                name: "development-build", token: String(repeating: "b2", count: 32), configured: nil,
                build: developmentBuild), .sandbox
        ),
        // Nothing configured, nothing in the build (an App Store build): production.
        (
            Device(name: "store-build", token: String(repeating: "c3", count: 32), configured: nil, build: nil),
            .production
        ),
        // The configuration wins over the build.
        (
            Device(
                name: "configured-production", token: String(repeating: "d4", count: 32), configured: .production,
                build: developmentBuild), .production
        ),
    ]

    /// What a development build's `embedded.mobileprovision` says, read by the SDK's parser.
    static let developmentBuild = ProvisioningProfile.buildEnvironment(
        profile: SampleProvisioningProfile.data(apsEnvironment: "development"), simulator: false)

    static func makeSDK(_ directory: TemporaryDirectory, build: APNsEnvironment?) -> Tern {
        var environment = TernEnvironment.directory(
            directory.url, deviceInfo: HostDeviceInfo(model: "iPhone14,7", name: "iPhone", osVersion: "18.6.2"))
        environment.retryPolicy = RetryPolicy(baseDelay: 0.05, maxDelay: 0.5, budget: 120, maxRetryAfter: 2, jitter: 0)
        environment.buildAPNsEnvironment = { build }
        return Tern(environment: environment)
    }

    static func tokens(_ pushes: [[String: Any]]) -> [String] { pushes.compactMap { $0["token"] as? String }.sorted() }

    @Test func oneSendReachesEachTokenThroughItsGatewayAndATestSendOnlyTestDevices() async throws {
        try #require(Self.developmentBuild == .sandbox)
        let key = try JWTSigningKey.generate(.es256)
        let sandbox = try await APNsPeer(key: key)
        defer { sandbox.stop() }
        let production = try await APNsPeer(key: key)
        defer { production.stop() }
        let work = try TemporaryDirectory(prefix: "tern-e2e-env")
        defer { work.remove() }
        // One CA file trusting both peers' authorities.
        let caFile = work.path("providers-ca.pem")
        let authorities = try [sandbox.caFile, production.caFile].map {
            try String(contentsOfFile: $0, encoding: .utf8)
        }
        try authorities.joined(separator: "\n").write(toFile: caFile, atomically: true, encoding: .utf8)
        let server = try await ServerProcess.start(arguments: [
            "--apns-production-url", production.origin, "--apns-sandbox-url", sandbox.origin,
            "--provider-ca-file", caFile,
        ])
        _ = try await sandbox.configure(server)

        var sdks: [Tern] = []
        for (device, _) in Self.devices {
            let directory = try TemporaryDirectory(prefix: "tern-e2e-\(device.name)")
            let tern = Self.makeSDK(directory, build: device.build)
            let events = EventLog(tern)
            tern.setAppGroup(groupName: "group.tern.e2e")
            tern.initialization(
                configuration: TernConfiguration.Builder(apiUrl: server.apiURL.absoluteString)
                    .setRToken(server.rToken).setApnsEnvironment(device.configured).build())
            tern.push.token.setToken(provider: "ios-apns", pushToken: device.token)
            tern.push.subscription.subscribe()
            try #require(await events.next("pushSubscribeRequestSuccessful") != nil, "\(device.name) never subscribed")
            sdks.append(tern)
        }
        for (device, environment) in Self.devices {
            let stored = try await FirstSubscriptionTests.subscriptions(on: server, token: device.token)
            #expect(stored.first?["apns_environment"] as? String == environment.rawValue, "\(device.name): \(stored)")
        }

        // One send, with a category the app registered itself.
        let (status, output) = try await PushDeliveryTests.ternSend(
            [
                "--title", "Your order", "--body", "Shipped", "--ios-category", "ORDER_V1", "--resource",
                "\(server.resourceId)", "--json",
            ], server: server)
        try #require(status == 0, "tern send: \(output)")
        let expected = { (gateway: APNsEnvironment) in
            Self.devices.filter { $0.1 == gateway }.map(\.0.token).sorted()
        }
        let toSandbox = try await sandbox.accepted()
        let toProduction = try await production.accepted()
        #expect(Self.tokens(toSandbox) == expected(.sandbox))
        #expect(Self.tokens(toProduction) == expected(.production))
        for push in toSandbox + toProduction {
            let aps = (push["payload"] as? [String: Any])?["aps"] as? [String: Any]
            #expect(aps?["category"] as? String == "ORDER_V1", "\(push)")
        }
        #expect(try await sandbox.peer.stats()["connections"] ?? 0 >= 1)
        #expect(try await production.peer.stats()["connections"] ?? 0 >= 1)

        // A test send before any test device: refused, nothing sent.
        let refused = try await PushDeliveryTests.ternSend(
            ["--title", "Test", "--test", "--resource", "\(server.resourceId)"], server: server)
        #expect(refused.0 == 1, "\(refused.1)")
        #expect(refused.1.contains("no test device"), "\(refused.1)")

        // Mark the store build's device, then test: only it gets the push, through production.
        let storeToken = Self.devices[2].0.token
        let mark = try await TernCommand.run([
            "subscriptions", "test", "\(server.resourceId)", storeToken, "--data", server.dataDirectory.path("data"),
        ])
        try #require(mark.status == 0, "\(mark.output)\(mark.error)")
        #expect(mark.output.contains("\"is_test\" : true"), "\(mark.output)")
        let test = try await PushDeliveryTests.ternSend(
            ["--title", "Test", "--test", "--resource", "\(server.resourceId)", "--json"], server: server)
        try #require(test.0 == 0, "tern send --test: \(test.1)")
        #expect(test.1.contains("\"targeted\":1") || test.1.contains("\"targeted\" : 1"), "\(test.1)")
        #expect(Self.tokens(try await production.accepted()) == (expected(.production) + [storeToken]).sorted())
        #expect(Self.tokens(try await sandbox.accepted()) == expected(.sandbox), "a test send reached the sandbox")

        for tern in sdks { await tern.shutdown() }
        await server.stop()
    }
}
