import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// `tern serve`'s options, environment and bootstrap file.
@Suite struct ServerOptionsTests {
    @Test func defaultsRunOnLoopback8080WithDataInDotTern() throws {
        let configuration = try ServerOptions.parse([], environment: [:])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.dataDirectory == "./.tern")
        #expect(configuration.benchRoutes == false)
        #expect(configuration.apiURL(port: 8080) == "http://127.0.0.1:8080/api/v1")
    }

    @Test func flagsWinOverTheEnvironment() throws {
        let configuration = try ServerOptions.parse(
            ["--port", "9000", "--data=/tmp/x", "--bench-routes", "--log-level", "warn"],
            environment: ["TERN_PORT": "7000", "TERN_HOST": "0.0.0.0", "TERN_THREADS": "3"])
        #expect(configuration.port == 9000)
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.threads == 3)
        #expect(configuration.dataDirectory == "/tmp/x")
        #expect(configuration.benchRoutes)
        #expect(configuration.logLevel == .warn)
    }

    @Test func badValuesNameTheOption() {
        #expect(throws: ConfigurationError.self) { try ServerOptions.parse(["--port", "70000"], environment: [:]) }
        #expect(throws: ConfigurationError.self) { try ServerOptions.parse(["--nope"], environment: [:]) }
        #expect(throws: ConfigurationError.self) { try ServerOptions.parse(["--port"], environment: [:]) }
        #expect(throws: ConfigurationError.self) {
            try ServerOptions.parse([], environment: ["TERN_LOG_LEVEL": "loud"])
        }
    }

    @Test func deliveryRetentionIsOffUnlessGivenAndZeroKeepsEverything() throws {
        #expect(try ServerOptions.parse([], environment: [:]).deliveryRetentionDays == nil)
        #expect(
            try ServerOptions.parse(["--delivery-retention-days", "0"], environment: [:]).deliveryRetentionDays == nil)
        let configured = try ServerOptions.parse([], environment: ["TERN_DELIVERY_RETENTION_DAYS": "90"])
        #expect(configured.deliveryRetentionDays == 90)
        for bad in ["-1", "36501", "ninety"] {
            #expect(throws: ConfigurationError.self) {
                try ServerOptions.parse(["--delivery-retention-days", bad], environment: [:])
            }
        }
    }

    @Test func bootstrapIsReusedRewrittenForANewAddressAndReissuedWhenLost() async throws {
        let directory = try TemporaryDirectory(prefix: "bootstrap")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("tern.sqlite"))
        let path = directory.path("bootstrap.json")
        let (created, first) = try await Bootstrapper.run(store: store, path: path, apiURL: "http://a/api/v1", now: 1)
        #expect(first == .created)
        let (moved, second) = try await Bootstrapper.run(store: store, path: path, apiURL: "http://b/api/v1", now: 2)
        #expect(second == .reused)
        #expect(moved.adminKey == created.adminKey)
        #expect(moved.rToken == created.rToken)
        let onDisk = try JSONDecoder().decode(BootstrapInfo.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(onDisk.apiURL == "http://b/api/v1")
        try FileManager.default.removeItem(atPath: path)
        let (reissued, third) = try await Bootstrapper.run(store: store, path: path, apiURL: "http://b/api/v1", now: 3)
        #expect(third == .reissued)
        #expect(reissued.adminKey != created.adminKey)
        #expect(reissued.resourceId == created.resourceId)
        #expect(try await store.read { try $0.projects().count } == 1)
        await store.close()
    }
}
