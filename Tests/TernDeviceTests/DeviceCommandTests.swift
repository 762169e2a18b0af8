import Foundation
import TernTestSupport
import Testing

@Suite("tern device runs the SDK against a real server and prints its events", .serialized)
struct DeviceCommandTests {
    /// The JSON lines a run printed.
    static func lines(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func events(_ output: String) -> [String] {
        lines(output).compactMap { $0["event"] as? String }
    }

    @Test func aDeviceSetsItsTokenSubscribesAndAsksForItsStatus() async throws {
        let server = try await ServerProcess.start()
        let data = try TemporaryDirectory(prefix: "tern-device-cli")
        defer { data.remove() }
        let base = ["--data", data.url.path, "--api-url", server.apiURL.absoluteString, "--rtoken", server.rToken]

        let token = try await DeviceProcess.run(
            base + ["set-token", "--provider", "ios-apns", "--token", "cli-token-1"])
        #expect(token.status == 0)
        // The push module initializes with the core now (whatever was touched first): the call may
        // come while it does and say it waited (`initAwait`).
        #expect(
            Self.events(token.output).filter { $0 != "core.initAwait" } == ["core.configSet", "push.pushProviderSet"])

        let subscribe = try await DeviceProcess.run(
            base + ["subscribe", "--profile-field", "_fname=Ada", "--custom-field", "developer=true"])
        #expect(subscribe.status == 0)
        let success = try #require(
            Self.lines(subscribe.output).first { $0["event"] as? String == "push.pushSubscribeRequestSuccessful" },
            "output: \(subscribe.output)")
        let value = try #require(success["value"] as? [String: Any])
        #expect(value["http_code"] as? Int == 200)
        let profile = value["profile"] as? [String: Any]
        let subscription = profile?["subscription"] as? [String: Any]
        #expect(subscription?["subscription_id"] as? String == "cli-token-1")
        #expect(subscription?["status"] as? String == "subscribed")
        #expect((subscription?["fields"] as? [String: Any])?["developer"] as? Bool == true)

        let status = try await DeviceProcess.run(base + ["status", "current"])
        #expect(status.status == 0)
        let answer = try #require(Self.lines(status.output).first { $0["http_code"] != nil })
        let current = (answer["response"] as? [String: Any])?["profile"] as? [String: Any]
        #expect((current?["subscription"] as? [String: Any])?["status"] as? String == "subscribed")

        let outbox = try await DeviceProcess.run(base + ["--quiet", "outbox"])
        let counts = try #require(Self.lines(outbox.output).first)
        #expect(counts["ordered"] as? Int == 0 && counts["events"] as? Int == 0)
        #expect(counts["acknowledged_total"] as? Int == 2)
        await server.stop()
    }

    @Test func aRequestMadeWhileTheServerIsDownIsSentByTheNextRun() async throws {
        let data = try TemporaryDirectory(prefix: "tern-device-cli")
        defer { data.remove() }
        let server = try await ServerProcess.start()
        let online = ["--data", data.url.path, "--api-url", server.apiURL.absoluteString, "--rtoken", server.rToken]
        let offline = ["--data", data.url.path, "--api-url", "http://127.0.0.1:9/api/v1", "--rtoken", server.rToken]
        _ = try await DeviceProcess.run(online + ["set-token", "--provider", "ios-firebase", "--token", "cli-token-2"])
        let down = try await DeviceProcess.run(offline + ["--wait", "0.5", "suspend"])
        #expect(down.status == 3)
        #expect(Self.lines(down.output).contains { $0["class"] as? String == "RetryEvent" })
        let up = try await DeviceProcess.run(online + ["flush"])
        #expect(up.status == 0)
        #expect(Self.events(up.output).contains("push.pushSuspendRequestSuccessful"))
        await server.stop()
    }

    @Test func aDeviceSaysItsTokensAPNsEnvironment() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let base = ["--api-url", server.apiURL.absoluteString, "--rtoken", server.rToken, "--quiet"]
        func environment(of token: String) async throws -> String? {
            var url = URLComponents(url: server.url("admin/subscriptions"), resolvingAgainstBaseURL: false)!
            url.queryItems = [
                URLQueryItem(name: "resource_id", value: "\(server.resourceId)"),
                URLQueryItem(name: "provider", value: "ios-apns"), URLQueryItem(name: "subscription_id", value: token),
            ]
            let answer = try await JSONHTTPClient().get(
                url.url!, headers: ["Authorization": "Bearer \(server.adminKey)"])
            let found = try #require(answer.jsonArray as? [[String: Any]], "HTTP \(answer.status) \(answer.text)")
            return found.first?["apns_environment"] as? String
        }
        for (token, flag, expected) in [
            ("dev-build", ["--apns-environment", "sandbox"], "sandbox"),
            ("store-build", ["--apns-environment", "production"], "production"),
            ("unsaid", [], "production"),
        ] {
            let data = try TemporaryDirectory(prefix: "tern-device-cli")
            defer { data.remove() }
            let device = base + ["--data", data.url.path] + flag
            let set = try await DeviceProcess.run(device + ["set-token", "--provider", "ios-apns", "--token", token])
            #expect(set.status == 0)
            let subscribe = try await DeviceProcess.run(device + ["subscribe", "--sync", "true"])
            #expect(subscribe.status == 0)
            #expect(try await environment(of: token) == expected, "\(token)")
        }
        let wrong = try await DeviceProcess.run(base + ["--apns-environment", "development", "token"])
        #expect(wrong.status == 2)
        let help = try await DeviceProcess.run(["--help"])
        #expect(help.output.contains("--apns-environment ENV"), "\(help.output)")
    }

    @Test func badUsageIsExplained() async throws {
        let missing = try await DeviceProcess.run([
            "--data", "/tmp/unused", "--bootstrap", "/nonexistent.json", "token",
        ])
        #expect(missing.status == 2)
        let help = try await DeviceProcess.run(["--help"])
        #expect(help.status == 0 && help.output.contains("tern device [options] <command>"))
    }
}
