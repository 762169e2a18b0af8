import Foundation
import TernCore
import TernProtocol
import TernPush
import TernSDKTestKit
import TernTestSupport
import Testing

/// Issue 14's built-in segments end to end: SDKs with different app versions go to the foreground
/// a different number of times (each session reported by the SDK itself, `device/report`), a
/// segment `session_count ≥ 3 and app_version ≥ 2.0` made with `tern segments create` previews
/// and sends (through the real APNs client to the APNs stand-in) to exactly the right devices;
/// bad filters are refused naming the part and the reason, and a segment that matches nobody
/// previews 0 and refuses to send.
@Suite(.serialized) struct SegmentTests {
    /// Name, app version, sessions; `10.1` is above `2.0` as a version (not as text), `2.0.1` is
    /// above it with too few sessions, `1.9` below it with many.
    static let devices: [(String, String, Int)] = [
        ("a", "2.0", 5), ("b", "10.1", 3), ("c", "2.5", 2), ("d", "1.9", 7), ("e", "2.0.1", 1), ("f", "3.0", 4),
    ]
    static let expected: Set<String> = ["a", "b", "f"]

    static func token(_ name: String) -> String {
        String(repeating: name.unicodeScalars.first.map { String(format: "%02x", $0.value) } ?? "00", count: 32)
    }

    static func makeSDK(_ directory: TemporaryDirectory, _ lifecycle: ManualAppLifecycle) -> Tern {
        var environment = TernEnvironment.directory(
            directory.url, deviceInfo: HostDeviceInfo(model: "iPhone14,7", name: "iPhone", osVersion: "18.6.2"))
        environment.retryPolicy = RetryPolicy(baseDelay: 0.05, maxDelay: 0.5, budget: 120, maxRetryAfter: 2, jitter: 0)
        environment.lifecycle = lifecycle
        environment.sessionTimeout = 0
        return Tern(environment: environment)
    }

    @Test func aSegmentOnSessionsAndVersionPreviewsAndSendsToExactlyTheRightDevices() async throws {
        let peer = try await APNsPeer()
        defer { peer.stop() }
        let server = try await ServerProcess.start(arguments: [
            "--apns-production-url", peer.origin, "--provider-ca-file", peer.caFile,
        ])
        let admin = try await peer.configure(server)

        // The devices: subscribe, then come to the foreground as many times as their sessions.
        var sdks: [(Tern, TemporaryDirectory)] = []
        for (name, version, sessions) in Self.devices {
            let directory = try TemporaryDirectory(prefix: "tern-e2e-seg-\(name)")
            let lifecycle = ManualAppLifecycle()
            let tern = Self.makeSDK(directory, lifecycle)
            let events = EventLog(tern)
            tern.setAppGroup(groupName: "group.tern.e2e")
            tern.initialization(
                configuration: TernConfiguration.Builder(apiUrl: server.apiURL.absoluteString).setRToken(server.rToken)
                    .setAppInfo(AppInfo(appID: "com.example.tern", appIID: "iid-\(name)", appVer: version)).build())
            tern.push.token.setToken(provider: "ios-apns", pushToken: Self.token(name))
            tern.push.subscription.subscribe()
            try #require(await events.next("pushSubscribeRequestSuccessful") != nil, "\(name) never subscribed")
            for _ in 0..<sessions {
                await lifecycle.set(.foreground)
                try await Task.sleep(for: .milliseconds(2))
                await lifecycle.set(.background)
                try await Task.sleep(for: .milliseconds(2))
            }
            sdks.append((tern, directory))
        }
        // Each device's last report (its session count) reaches the server.
        for (name, _, sessions) in Self.devices {
            var count: Int?
            for _ in 0..<300 {
                let found = try await FirstSubscriptionTests.subscriptions(on: server, token: Self.token(name))
                count = (found.first?["fields"] as? [String: Any])?["_session_count"] as? Int
                if count == sessions { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            try #require(count == sessions, "device \(name) reported \(String(describing: count)) sessions")
        }

        // The operator: the segment, through tern.
        let made = try await TernCommand.run([
            "segments", "create", "--project", "\(server.projectId)", "--name", "engaged on 2.x", "--resource",
            "\(server.resourceId)", "--where", "session_count >= 3 and app_version >= 2.0", "--data",
            server.dataDirectory.path("data"),
        ])
        try #require(made.status == 0, "tern segments create: \(made.output) \(made.error)")
        let segment = try #require(
            (try JSONSerialization.jsonObject(with: Data(made.output.utf8)) as? [String: Any])?["id"] as? Int)

        let preview = try await JSONHTTPClient().get(
            server.url("admin/segments/\(segment)/preview"), headers: admin)
        try #require(preview.status == 200, "\(preview.text)")
        #expect(preview.json?["count"] as? Int == Self.expected.count, "\(preview.text)")
        let sampled = Set(
            (preview.json?["sample"] as? [[String: Any]] ?? []).compactMap { $0["subscription_id"] as? String })
        #expect(sampled == Set(Self.expected.map(Self.token)))

        let (status, output) = try await PushDeliveryTests.ternSend(
            ["--title", "For engaged users", "--segment", "\(segment)", "--json"], server: server)
        try #require(status == 0, "tern send --segment: \(output)")
        let received = Set(try await peer.accepted().compactMap { $0["token"] as? String })
        #expect(received == Set(Self.expected.map(Self.token)), "the stand-in got \(received)")

        // Nobody matches: a preview of 0, and a send that says so instead of sending nothing.
        let empty = try await JSONHTTPClient().send(
            "POST", server.url("admin/segments"),
            body: Data(
                #"{"project_id": \#(server.projectId), "name": "nobody", "filter": {"field": "session_count", "op": ">", "value": 100}}"#
                    .utf8), headers: admin)
        try #require(empty.status == 201, "\(empty.text)")
        let nobody = try #require(empty.json?["id"] as? Int)
        let zero = try await JSONHTTPClient().get(server.url("admin/segments/\(nobody)/preview"), headers: admin)
        #expect(zero.json?["count"] as? Int == 0 && (zero.json?["sample"] as? [Any])?.isEmpty == true, "\(zero.text)")
        let refused = try await JSONHTTPClient().send(
            "POST", server.url("admin/messages"),
            body: Data(#"{"title": "x", "audience": {"type": "segment", "segment_id": \#(nobody)}}"#.utf8),
            headers: admin)
        #expect(refused.status == 409, "\(refused.text)")
        #expect(refused.text.contains("segment \(nobody) matches no push subscription"), "\(refused.text)")
        let (emptyStatus, emptyOutput) = try await PushDeliveryTests.ternSend(
            ["--title", "x", "--segment", "\(nobody)"], server: server)
        #expect(emptyStatus == 1 && emptyOutput.contains("matches no push subscription"), "\(emptyOutput)")
        #expect(try await peer.accepted().count == Self.expected.count, "nothing more was sent")

        for (tern, directory) in sdks {
            await tern.shutdown()
            directory.remove()
        }
        await server.stop()
    }

    /// Engagement conditions in `--where` reach the server as the JSON filter: `tern segments` saves
    /// one, and a condition naming a message that does not exist is refused by `tern segments preview`
    /// and `tern send`, naming the condition.
    @Test func engagementConditionsInTheTextFormReachTheServer() async throws {
        let server = try await ServerProcess.start(arguments: [])
        let data = server.dataDirectory.path("data")
        let preview = try await TernCommand.run([
            "segments", "preview", "--project", "\(server.projectId)", "--where",
            "opened m_nope or opened_any within 30 days", "--data", data,
        ])
        #expect(preview.status != 0, "\(preview.output)")
        #expect(
            (preview.output + preview.error).contains("filter.or[0].message: no message has the id m_nope"),
            "\(preview.output) \(preview.error)")
        let made = try await TernCommand.run([
            "segments", "create", "--project", "\(server.projectId)", "--name", "openers", "--where",
            "opened_any within 30 days", "--data", data,
        ])
        try #require(made.status == 0, "tern segments create: \(made.output) \(made.error)")
        let saved = try JSONSerialization.jsonObject(with: Data(made.output.utf8)) as? [String: Any]
        let filter = saved?["filter"] as? [String: Any]
        #expect(filter?["engagement"] as? String == "opened_any" && filter?["value"] as? Int == 30, "\(made.output)")
        let (status, output) = try await PushDeliveryTests.ternSend(
            ["--title", "Reminder", "--resource", "\(server.resourceId)", "--where", "not opened m_nope"],
            server: server)
        #expect(status != 0 && output.contains("audience.filter.message: no message has the id m_nope"), "\(output)")
        await server.stop()
    }

    @Test func badFiltersAreRefusedNamingThePartAndTheReason() async throws {
        let server = try await ServerProcess.start(arguments: [])
        let admin = ["Authorization": "Bearer \(server.adminKey)", "Content-Type": "application/json"]
        let cases: [(String, String)] = [
            (#"{"field": "session_count", "op": "like", "value": 3}"#, "filter.op: unknown operator \"like\""),
            (#"{"field": "language", "op": ">", "value": "en"}"#, "filter: gt does not fit language, a text field"),
            (
                #"{"field": "sesion_count", "op": ">=", "value": 3}"#,
                "filter.field: unknown built-in field \"sesion_count\""
            ),
            (
                #"{"and": [{"field": "session_count", "op": ">=", "value": "three"}]}"#,
                "filter.and[0].value: must be a number"
            ),
            (#"{"or": [{"field": "tags.tier", "op": "<", "value": "b"}]}"#, "filter.or[0]: lt does not fit tags.tier"),
            (#"{"field": "fields.plan", "op": ">", "value": "gold"}"#, "filter.value: gt compares numbers"),
        ]
        for (filter, reason) in cases {
            for path in ["admin/segments", "admin/audience/preview"] {
                let answer = try await JSONHTTPClient().send(
                    "POST", server.url(path),
                    body: Data(#"{"project_id": \#(server.projectId), "name": "bad", "filter": \#(filter)}"#.utf8),
                    headers: admin)
                #expect(answer.status == 400, "\(path) \(filter): \(answer.text)")
                let text = answer.json?["error_text"] as? String ?? ""
                #expect(text.hasPrefix(reason), "\(path) \(filter): \(answer.text)")
            }
        }
        // A message's own filter goes through the same checks, under audience.filter.
        let message = try await JSONHTTPClient().send(
            "POST", server.url("admin/messages"),
            body: Data(
                #"{"title": "x", "audience": {"type": "resource", "resource_id": \#(server.resourceId), "filter": {"field": "app_version", "op": "before", "value": "2.0"}}}"#
                    .utf8), headers: admin)
        #expect(message.status == 400, "\(message.text)")
        #expect(message.text.contains("audience.filter: before does not fit app_version"), "\(message.text)")
        await server.stop()
    }
}
