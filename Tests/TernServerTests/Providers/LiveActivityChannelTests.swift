import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// APNs broadcast channels through a real `tern serve` and the APNs peer (which answers both the
/// channel management service and the broadcasts): an operator makes a channel, a device of its
/// environment looks its id up through the SDK's `live-activity/channel`, a broadcast reaches APNs
/// once with the channel's id, and removing the channel removes it at APNs.
@Suite struct LiveActivityChannelTests {
    static func start(_ fixture: APNsFixture) async throws -> ServerProcess {
        let origin = fixture.peer.origin.absoluteString
        return try await ServerProcess.start(arguments: [
            "--apns-production-url", origin, "--apns-sandbox-url", origin, "--apns-channels-production-url", origin,
            "--apns-channels-sandbox-url", origin, "--provider-ca-file", fixture.peer.caFile,
        ])
    }

    static func call(_ server: ServerProcess, _ method: String, _ path: String, _ json: [String: Any]? = nil)
        async throws -> (status: Int, json: [String: Any], list: [[String: Any]], text: String)
    {
        let base = server.url("admin/projects/\(server.projectId)/live-activity-channels").absoluteString
        let answer = try await JSONHTTPClient().send(
            method, try #require(URL(string: base + path)),
            body: try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data(),
            headers: ProviderEndToEndTests.admin(server))
        let object = try? JSONSerialization.jsonObject(with: answer.body)
        return (answer.status, object as? [String: Any] ?? [:], object as? [[String: Any]] ?? [], answer.text)
    }

    static func lookUp(_ server: ServerProcess, device: String, name: String) async throws -> (Int, [String: Any]) {
        let answer = try await JSONHTTPClient().post(
            server.url("live-activity/channel"),
            json: ["provider": "ios-apns", "subscription_id": device, "name": name],
            headers: ["X-Tern-RToken": server.rToken])
        return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:])
    }

    @Test func aChannelIsMadeLookedUpBroadcastOnAndRemovedAtAPNs() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let server = try await Self.start(fixture)
        defer { Task { await server.stop() } }
        try await fixture.configure(server)

        let made = try await Self.call(server, "POST", "", ["name": "match-4471", "storage": "none"])
        try #require(made.status == 201, "\(made.text)")
        let channelId = try #require(made.json["channel_id"] as? String)
        #expect(made.json["apns_environment"] as? String == "production")
        #expect(made.json["storage"] as? String == "none")
        let created = try await fixture.peer.log().filter { $0["channel_request"] as? String == "create" }
        #expect(created.count == 1)
        #expect(created.first?["channel"] as? String == channelId)
        #expect(created.first?["bundle"] as? String == APNsFixture.topic)
        #expect(created.first?["storage"] as? Int == 0)

        // The same name again is refused before APNs is asked; a sandbox one of that name is another.
        let again = try await Self.call(server, "POST", "", ["name": "match-4471"])
        #expect(again.status == 409, "\(again.text)")
        let sandbox = try await Self.call(server, "POST", "", ["name": "match-4471", "apns_environment": "sandbox"])
        #expect(sandbox.status == 201, "\(sandbox.text)")
        #expect(sandbox.json["storage"] as? String == "most_recent")
        #expect(try await fixture.peer.log().filter { $0["channel_request"] as? String == "create" }.count == 2)

        // A device looks the id up for its own environment (production: it named none).
        try await ProviderEndToEndTests.subscribe(server, APNsFixture.token(1), provider: "ios-apns")
        let (status, found) = try await Self.lookUp(server, device: APNsFixture.token(1), name: "match-4471")
        #expect(status == 200)
        #expect(found["channel_id"] as? String == channelId)
        #expect(found["apns_environment"] as? String == "production")
        let (missing, _) = try await Self.lookUp(server, device: APNsFixture.token(1), name: "match-9999")
        #expect(missing == 404)
        let (stranger, strangerAnswer) = try await Self.lookUp(
            server, device: APNsFixture.token(2), name: "match-4471")
        #expect(stranger == 409, "a device not subscribed yet is not a missing channel")
        #expect((strangerAnswer["error_text"] as? String)?.contains("push/subscribe") == true, "\(strangerAnswer)")

        // One broadcast: one request to APNs, on the channel, with the activity's content.
        let sent = try await Self.call(
            server, "POST", "/match-4471/broadcasts",
            [
                "event": "update", "content_state": ["home": 2, "away": 1], "title": "Goal!", "body": "2-1",
                "priority": 5, "ttl": 60,
            ])
        try #require(sent.status == 200, "\(sent.text)")
        #expect(sent.json["event"] as? String == "update")
        #expect((sent.json["apns_unique_id"] as? String)?.isEmpty == false)
        let broadcasts = try await fixture.peer.log().filter { $0["status"] as? Int == 200 && $0["channel"] != nil }
        try #require(broadcasts.count == 1)
        let headers = broadcasts[0]["headers"] as? [String: String] ?? [:]
        #expect(headers["apns-channel-id"] == channelId)
        #expect(headers["apns-push-type"] == "liveactivity")
        #expect(headers["apns-priority"] == "5")
        #expect(Int64(headers["apns-expiration"] ?? "") ?? 0 > Int64(Date().timeIntervalSince1970))
        let aps = (broadcasts[0]["payload"] as? [String: Any])?["aps"] as? [String: Any] ?? [:]
        #expect(aps["event"] as? String == "update")
        #expect((aps["content-state"] as? [String: Any])?["home"] as? Int == 2)
        #expect((aps["alert"] as? [String: Any])?["title"] as? String == "Goal!")

        let listed = try await Self.call(server, "GET", "")
        #expect(listed.list.count == 2)
        let production = listed.list.first { $0["apns_environment"] as? String == "production" }
        #expect(production?["broadcasts"] as? Int == 1)
        #expect(production?["last_event"] as? String == "update")

        // Removed at APNs, then here: a broadcast on it is a 404, and APNs no longer has it.
        let removed = try await Self.call(server, "DELETE", "/match-4471")
        #expect(removed.status == 204, "\(removed.text)")
        let deleted = try await fixture.peer.log().filter { $0["channel_request"] as? String == "delete" }
        #expect(deleted.first?["channel"] as? String == channelId)
        let gone = try await Self.call(server, "POST", "/match-4471/broadcasts", ["event": "end"])
        #expect(gone.status == 404, "\(gone.text)")
        #expect(try await Self.call(server, "GET", "").list.count == 1)
    }

    @Test func badRequestsAndAPNsRefusalsAnswerWhatToDo() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let server = try await Self.start(fixture)
        defer { Task { await server.stop() } }

        // No credentials yet: nothing reaches APNs.
        let early = try await Self.call(server, "POST", "", ["name": "final"])
        #expect(early.status == 409)
        #expect(early.text.contains("no APNs credentials"), "\(early.text)")
        try await fixture.configure(server)

        for (body, fragment) in [
            (["name": "a b"], "letters, digits"), (["name": ""], "name is empty"),
            (["name": String(repeating: "x", count: 129)], "longer than 128"),
            (["name": "ok", "storage": "forever"], "storage must be"),
        ] as [([String: Any], String)] {
            let refused = try await Self.call(server, "POST", "", body)
            #expect(refused.status == 400, "\(body)")
            #expect(refused.text.contains(fragment), "\(refused.text)")
        }
        #expect(try await fixture.peer.log().isEmpty)

        // APNs' limit of channels: its reason, and what to do.
        try await fixture.peer.script("_channels", [["status": 400, "reason": "CannotCreateChannelConfig"]])
        let full = try await Self.call(server, "POST", "", ["name": "final"])
        #expect(full.status == 409)
        #expect(full.text.contains("CannotCreateChannelConfig") && full.text.contains("remove some"), "\(full.text)")
        #expect(try await Self.call(server, "GET", "").list.isEmpty)

        let made = try await Self.call(server, "POST", "", ["name": "final"])
        try #require(made.status == 201, "\(made.text)")
        for (body, fragment) in [
            (["event": "start", "content_state": [:]], "update or end"),
            (["event": "update"], "content_state is required"),
            (["event": "update", "content_state": ["a": 1], "priority": 1], "priority must be"),
            (["event": "update", "content_state": ["a": 1], "ttl": -1], "ttl must be"),
            (["event": "update", "content_state": ["a": 1], "dismissal_date": 5], "dismissal_date goes with end"),
            (["event": "update", "content_state": ["blob": String(repeating: "x", count: 6000)]], "over APNs' limit"),
        ] as [([String: Any], String)] {
            let refused = try await Self.call(server, "POST", "/final/broadcasts", body)
            #expect(refused.status == 400, "\(body)")
            #expect(refused.text.contains(fragment), "\(refused.text)")
        }
        #expect(try await fixture.peer.log().filter { $0["channel"] != nil && $0["channel_request"] == nil }.isEmpty)
        let environment = try await Self.call(
            server, "POST", "/final/broadcasts?apns_environment=moon", ["event": "end"])
        #expect(environment.status == 400)
        let elsewhere = try await Self.call(
            server, "POST", "/final/broadcasts?apns_environment=sandbox", ["event": "end"])
        #expect(elsewhere.status == 404)
        #expect(elsewhere.text.contains("sandbox"), "\(elsewhere.text)")
    }

    @Test func theCommandLineMakesBroadcastsOnAndRemovesAChannel() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let server = try await Self.start(fixture)
        defer { Task { await server.stop() } }
        try await fixture.configure(server)
        let project = "\(server.projectId)"
        func tern(_ arguments: [String]) async throws -> (Int32, String, String) {
            try await AdminCommandTests.tern(["live-activity-channels"] + arguments, server: server)
        }

        let (made, madeOut, _) = try await tern(["create", project, "final", "--sandbox", "--storage", "none"])
        #expect(made == 0 && madeOut.contains("\"apns_environment\" : \"sandbox\""), "\(madeOut)")
        let (sent, sentOut, _) = try await tern([
            "broadcast", project, "final", "--sandbox", "--event", "update", "--content-state", #"{"home": 3}"#,
            "--title", "Goal", "--priority", "5",
        ])
        #expect(sent == 0 && sentOut.contains("\"event\" : \"update\""), "\(sentOut)")
        let broadcast = try #require(try await fixture.peer.log().first { $0["payload"] != nil })
        let aps = (broadcast["payload"] as? [String: Any])?["aps"] as? [String: Any] ?? [:]
        #expect((aps["content-state"] as? [String: Any])?["home"] as? Int == 3)
        #expect((broadcast["headers"] as? [String: String])?["apns-priority"] == "5")
        let (_, listed, _) = try await tern(["list", project])
        #expect(listed.contains("\"broadcasts\" : 1"), "\(listed)")
        let (bad, _, badErr) = try await tern(["broadcast", project, "final", "--content-state", "[1]"])
        #expect(bad == 2 && badErr.contains("needs --event"), "\(badErr)")
        let (notJSON, _, notJSONErr) = try await tern([
            "broadcast", project, "final", "--event", "update", "--content-state", "[1]",
        ])
        #expect(notJSON == 2 && notJSONErr.contains("JSON object"), "\(notJSONErr)")
        // Production has no channel of that name: the server's 404 says where to look.
        let (wrong, _, wrongErr) = try await tern(["remove", project, "final"])
        #expect(wrong != 0 && wrongErr.contains("sandbox"), "\(wrongErr)")
        let (removed, _, _) = try await tern(["remove", project, "final", "--sandbox"])
        #expect(removed == 0)
        #expect(try await fixture.peer.log().contains { $0["channel_request"] as? String == "delete" })
    }

    @Test func aStartOnAChannelReachesThePushToStartTokensOfItsEnvironmentAndNamesTheChannel() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let server = try await Self.start(fixture)
        defer { Task { await server.stop() } }
        try await fixture.configure(server)
        let made = try await Self.call(server, "POST", "", ["name": "final"])
        try #require(made.status == 201, "\(made.text)")
        let channelId = try #require(made.json["channel_id"] as? String)
        // Two devices with push-to-start tokens for MatchAttributes: one of production, one of the sandbox.
        for (number, environment) in [(1, "production"), (2, "sandbox")] {
            try await ProviderEndToEndTests.subscribe(server, APNsFixture.token(number), provider: "ios-apns")
            let registered = try await JSONHTTPClient().post(
                server.url("live-activity/token"),
                json: [
                    "time": 1, "provider": "ios-apns", "subscription_id": APNsFixture.token(number),
                    "activity_type": "MatchAttributes", "token": String(repeating: "c\(number)", count: 32),
                    "apns_environment": environment,
                ], headers: ["X-Tern-RToken": server.rToken])
            try #require(registered.status == 200, "\(registered.text)")
        }
        func start(_ live: [String: Any]) async throws -> (Int, String, String?) {
            let answer = try await JSONHTTPClient().post(
                server.url("admin/messages"),
                json: [
                    "live_activity": live, "title": "Kick-off", "body": "Lyon - Nantes",
                    "audience": ["type": "resource", "resource_id": server.resourceId],
                ], headers: ProviderEndToEndTests.admin(server))
            let id = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["id"] as? String
            return (answer.status, answer.text, id)
        }
        let live: [String: Any] = [
            "event": "start", "activity_type": "MatchAttributes", "attributes": ["home": "Lyon"],
            "content_state": ["home": 0, "away": 0], "channel": "final",
        ]
        let (status, text, id) = try await start(live)
        try #require(status == 201, "\(text)")
        _ = try await ProviderEndToEndTests.finished(server, try #require(id))
        let pushes = try await fixture.peer.accepted().filter { $0["token"] as? String != nil }
        #expect(pushes.count == 1, "\(pushes)")
        #expect(pushes.first?["token"] as? String == String(repeating: "c1", count: 32))
        let aps = (pushes.first?["payload"] as? [String: Any])?["aps"] as? [String: Any] ?? [:]
        #expect(aps["input-push-channel"] as? String == channelId)
        #expect(aps["input-push-token"] == nil)
        #expect(aps["event"] as? String == "start")

        var unknown = live
        unknown["channel"] = "semi-final"
        let (missing, why, _) = try await start(unknown)
        #expect(missing == 404 && why.contains("no Live Activity channel named semi-final"), "\(why)")
        var sandbox = live
        sandbox["channel"] = "final"
        let sandboxed = try await JSONHTTPClient().post(
            server.url("admin/messages"),
            json: [
                "live_activity": sandbox, "title": "Kick-off", "environment": "sandbox",
                "audience": ["type": "resource", "resource_id": server.resourceId],
            ], headers: ProviderEndToEndTests.admin(server))
        #expect(sandboxed.status == 404 && sandboxed.text.contains("sandbox"), "\(sandboxed.text)")
        let update = try await JSONHTTPClient().post(
            server.url("admin/messages"),
            json: [
                "live_activity": ["event": "update", "content_state": ["home": 1], "channel": "final"],
                "audience": ["type": "live_activity", "activity_id": "match"],
            ], headers: ProviderEndToEndTests.admin(server))
        #expect(update.status == 400 && update.text.contains("channel goes with start only"), "\(update.text)")
    }

    @Test func aBroadcastRepeatedWithItsKeyIsAnsweredAgainAndSentOnce() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let server = try await Self.start(fixture)
        defer { Task { await server.stop() } }
        try await fixture.configure(server)
        for name in ["final", "semi-final"] {
            let made = try await Self.call(server, "POST", "", ["name": name])
            try #require(made.status == 201, "\(made.text)")
        }
        let base = "admin/projects/\(server.projectId)/live-activity-channels"
        func send(_ channel: String, key: String, _ body: [String: Any]) async throws -> JSONHTTPClient.Answer {
            var headers = ProviderEndToEndTests.admin(server)
            headers["Idempotency-Key"] = key
            return try await JSONHTTPClient().post(
                server.url("\(base)/\(channel)/broadcasts"), json: body, headers: headers)
        }
        let update: [String: Any] = ["event": "update", "content_state": ["home": 1]]
        let first = try await send("final", key: "goal-1", update)
        try #require(first.status == 200, "\(first.text)")
        let again = try await send("final", key: "goal-1", update)
        #expect(again.status == 200)
        #expect(again.body == first.body)
        #expect(again.headers["Idempotent-Replayed"] == "true" || again.headers["idempotent-replayed"] == "true")
        let sent = try await fixture.peer.log().filter { $0["payload"] != nil && $0["channel"] != nil }
        #expect(sent.count == 1, "\(sent)")
        // The same key for another body, or another channel, is another request: refused.
        let otherBody = try await send("final", key: "goal-1", ["event": "update", "content_state": ["home": 2]])
        #expect(otherBody.status == 422, "\(otherBody.text)")
        let otherChannel = try await send("semi-final", key: "goal-1", update)
        #expect(otherChannel.status == 422, "\(otherChannel.text)")
        let list = try await Self.call(server, "GET", "").list
        #expect(list.first { $0["name"] as? String == "final" }?["broadcasts"] as? Int == 1)
    }
}
