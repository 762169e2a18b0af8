import Foundation
import TernSDKTestKit
import TernTestSupport
import Testing

/// `tern inbox …`, `tern preferences show`, `tern topics …` against a real server.
@Suite(.serialized) struct InboxCommandTests {
    @Test func theCommandsPutListAndReadBack() async throws {
        let server = try await RealServer.start()
        let ada = try await InboxEndToEndTests.person(server, "ada@example.com")
        let connection = ["--url", server.apiUrl, "--admin-key", server.process.adminKey]
        let put = try await TernCommand.run(
            [
                "inbox", "put", "--profile", ada.profileId, "--title", "Shipped", "--link", "https://e.com/o/1",
                "--custom", #"{"order":"A-1"}"#, "--days", "7",
            ] + connection)
        #expect(put.status == 0, "\(put.error)")
        #expect(put.output.contains(#""profiles" : 1"#))
        let list = try await TernCommand.run(["inbox", "list", ada.profileId] + connection)
        #expect(list.output.contains("Shipped") && list.output.contains(#""unread" : 1"#), "\(list.output)")
        let expiry = try await TernCommand.run(
            ["inbox", "expiry", String(server.process.projectId), "30"] + connection)
        #expect(expiry.output.contains(#""expiry_days" : 30"#))
        let badDays = try await TernCommand.run(
            ["inbox", "expiry", String(server.process.projectId), "0"] + connection)
        #expect(badDays.status == 1 && badDays.error.contains("expiry_days: must be 1 to 3650"))

        _ = try await server.sdk(
            "profile/preferences/set", json: ["preferences": ["push": ["news": false]]], jwt: ada.jwt)
        _ = try await server.sdk("profile/topics/follow", json: ["topic": "release-notes"], jwt: ada.jwt)
        let preferences = try await TernCommand.run(["preferences", "show", ada.profileId] + connection)
        #expect(preferences.output.contains(#""news" : false"#), "\(preferences.output)")
        let topics = try await TernCommand.run(["topics", "list", String(server.process.projectId)] + connection)
        #expect(topics.output.contains(#""followers" : 1"#) && topics.output.contains("release-notes"))
        let followers = try await TernCommand.run(
            ["topics", "followers", String(server.process.projectId), "release-notes"] + connection)
        #expect(followers.output.contains(ada.profileId))
        let unknown = try await TernCommand.run(
            ["topics", "followers", String(server.process.projectId), "nope"] + connection)
        #expect(unknown.status == 1 && unknown.error.contains("has no topic nope"))

        // `tern send --to-topic`: the followers' devices, and only theirs.
        let bob = try await InboxEndToEndTests.person(server, "bob@example.com")
        for (jwt, token) in [(ada.jwt, "t-ada"), (bob.jwt, "t-bob")] {
            let subscribed = try await server.sdk(
                "push/subscribe",
                json: ["time": 1000, "provider": "ios-apns", "subscription_id": token, "sync": true] as [String: Any],
                jwt: jwt)
            #expect(subscribed.status == 200, "\(subscribed.text)")
        }
        let sent = try await TernCommand.run(
            ["send", "--title", "v2 is out", "--to-topic", "release-notes", "--interval", "0.05", "--json"]
                + connection)
        #expect(sent.status == 0, "\(sent.error)")
        let funnel =
            try JSONSerialization.jsonObject(
                with: Data((sent.output.split(separator: "\n").last ?? "").utf8)) as? [String: Any]
        #expect(funnel?["targeted"] as? Int == 1, "only Ada follows release-notes: \(sent.output)")
        await server.stop()
    }
}
