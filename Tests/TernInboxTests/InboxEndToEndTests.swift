import Foundation
import Synchronization
import TernInbox
import TernProfile
import TernSDKTestKit
import TernTestSupport
import Testing

/// The inbox, preferences and topics from the SDK through its outbox to a real `tern serve`: two
/// simulated devices of one person (two SDK instances, two databases, one JWT subject).
@Suite(.serialized) struct InboxEndToEndTests {
    /// A person with a profile (made by a profile update) and its public id.
    static func person(_ server: RealServer, _ email: String) async throws -> (jwt: String, profileId: String) {
        let jwt = try server.jwt(email: email)
        let made = try await server.sdk("profile/update", json: ["profile_fields": ["_fname": "A"]], jwt: jwt)
        guard made.status == 200 else { throw HarnessError("profile/update: \(made.text)") }
        let id = try #require(try await server.profile(email: email)?["id"] as? String)
        return (jwt, id)
    }

    static func put(_ server: RealServer, _ profileId: String, _ title: String, extra: [String: Any] = [:]) async throws
    {
        var body: [String: Any] = ["title": title, "audience": ["type": "profile", "profile_id": profileId]]
        body.merge(extra) { _, new in new }
        let reply = try await server.admin("POST", "/inbox", json: body)
        guard reply.status == 201 else { throw HarnessError("inbox put: \(reply.text)") }
    }

    @Test func twoDevicesOfOnePersonAgreeOnReadDeletedDroppedAndExpired() async throws {
        let server = try await RealServer.start()
        let ada = try await Self.person(server, "ada@example.com")
        let a = try TestSDK()
        let b = try TestSDK()
        a.configure(apiUrl: server.apiUrl, rToken: server.rToken, jwt: ada.jwt)
        b.configure(apiUrl: server.apiUrl, rToken: server.rToken, jwt: ada.jwt)

        try await Self.put(server, ada.profileId, "Your order shipped")
        let onA = try await a.tern.inbox.sync()
        let onB = try await b.tern.inbox.sync()
        #expect(onA.messages.map(\.title) == ["Your order shipped"] && onA.unread == 1)
        #expect(onB.messages.map(\.title) == ["Your order shipped"])
        let id = try #require(onA.messages.first?.id)

        // Read on A: at once on A, and on B after B syncs.
        let seen = a.events.count
        a.tern.inbox.markRead(id: id)
        #expect(await a.tern.inbox.unreadCount() == 0)
        _ = try #require(await a.events.first(where: { $0.name == "markReadRequestSuccessful" }, after: seen))
        let bAfterRead = try await b.tern.inbox.sync()
        #expect(bAfterRead.messages.first?.read == true && bAfterRead.unread == 0)

        // Deleted on B: gone from A after A syncs.
        b.tern.inbox.delete(id: id)
        _ = try #require(await b.events.first("deleteRequestSuccessful"))
        #expect(try await a.tern.inbox.sync().messages.isEmpty)

        // Another id (not the person's): the error event, and the cache as it was.
        try await Self.put(server, ada.profileId, "keep me")
        let before = try await a.tern.inbox.sync()
        a.tern.inbox.markRead(id: "i_999999")
        let failed = try #require(await a.events.first("markReadRequestFailed"))
        #expect(failed.httpCode == 404)
        #expect(await a.tern.inbox.snapshot() == before)

        // The 251st drops the oldest, on both.
        for index in 1...250 { try await Self.put(server, ada.profileId, "m\(index)") }
        let full = try await b.tern.inbox.sync()
        #expect(full.messages.count == 250)
        #expect(full.messages.contains { $0.title == "keep me" } == false)
        #expect(full.messages.last?.title == "m1" && full.messages.first?.title == "m250")

        // An expired one disappears.
        // Five seconds to see it synced (a loaded run can take seconds for a put and a sync), then
        // as long as is left of them and a little more.
        let soon = Int64(Date().timeIntervalSince1970 * 1000) + 5000
        try await Self.put(server, ada.profileId, "flash", extra: ["expires_at": soon])
        #expect(try await a.tern.inbox.sync().messages.first?.title == "flash")
        try await Task.sleep(for: .milliseconds(max(0, soon - Int64(Date().timeIntervalSince1970 * 1000)) + 300))
        let afterExpiry = try await a.tern.inbox.sync()
        #expect(afterExpiry.messages.contains { $0.title == "flash" } == false)
        // "flash" pushed m1 out as the 251st, then left: 249 remain.
        #expect(afterExpiry.messages.count == 249 && afterExpiry.messages.last?.title == "m2")

        await a.close()
        await b.close()
        await server.stop()
    }

    @Test func theCacheShowsOfflineAndObserversSeeChanges() async throws {
        let server = try await RealServer.start()
        let ada = try await Self.person(server, "ada@example.com")
        let a = try TestSDK()
        a.configure(apiUrl: server.apiUrl, rToken: server.rToken, jwt: ada.jwt)
        let updates = a.tern.inbox.updates()
        let seen = SnapshotBox()
        let observation = a.tern.inbox.observe { seen.set($0) }
        try await Self.put(server, ada.profileId, "hello")
        _ = try await a.tern.inbox.sync()
        var iterator = updates.makeAsyncIterator()
        var last: InboxSnapshot?
        while let next = await iterator.next() {
            last = next
            if next.messages.count == 1 { break }
        }
        #expect(last?.messages.first?.title == "hello")
        #expect(seen.value?.messages.first?.title == "hello")
        observation.cancel()

        // Offline: the server is gone, a sync fails with its event, and the cache stays.
        await server.stop()
        await #expect(throws: (any Error).self) { try await a.tern.inbox.sync() }
        _ = try #require(await a.events.first("syncInboxRequestFailed"))
        #expect(await a.tern.inbox.messages().map(\.title) == ["hello"])
        await a.close()
    }

    @Test func preferencesSkipAPushAndTopicsReachTheirFollowers() async throws {
        let server = try await RealServer.start()
        let ada = try await Self.person(server, "ada@example.com")
        let a = try TestSDK()
        a.configure(apiUrl: server.apiUrl, rToken: server.rToken, jwt: ada.jwt)
        let profile = a.tern.profile

        var preferences = try await profile.preferences()
        #expect(preferences.isEmpty)
        preferences["push", default: [:]]["marketing"] = false
        preferences["email", default: [:]]["news"] = true
        try await profile.setPreferences(preferences)
        #expect(try await profile.preferences() == ["push": ["marketing": false], "email": ["news": true]])
        let stored = try await server.admin("GET", "/profiles/\(ada.profileId)/preferences")
        #expect(stored.json?["preferences"] as? [String: [String: Bool]] == preferences)

        // Bad input: refused before sending, with the field, and the stored switches are kept.
        await #expect(throws: PreferencesError.self) { try await profile.setPreferences(["fax": ["news": false]]) }
        let invalid = try #require(await a.events.first("invalidPreferencesRequestData"))
        #expect(invalid.reason?.hasPrefix("preferences.fax: unknown channel") == true)
        await #expect(throws: PreferencesError.self) {
            try await profile.follow(topic: String(repeating: "t", count: 65))
        }
        #expect(try await profile.preferences() == preferences)

        // A push to category marketing skips Ada (off for push) and reaches Bob; the funnel says so.
        let bob = try await Self.person(server, "bob@example.com")
        for (jwt, token) in [(ada.jwt, "t-ada"), (bob.jwt, "t-bob")] {
            let subscribed = try await server.sdk(
                "push/subscribe",
                json: ["time": 1000, "provider": "ios-apns", "subscription_id": token, "sync": true] as [String: Any],
                jwt: jwt)
            #expect(subscribed.status == 200, "\(subscribed.text)")
        }
        let resource = Int(server.process.resourceId)
        try await server.category("marketing", resource: resource)
        let sent = try await server.admin(
            "POST", "/messages",
            json: [
                "title": "Sale", "category": "marketing", "audience": ["type": "resource", "resource_id": resource],
            ] as [String: Any])
        #expect(sent.status == 201, "\(sent.text)")
        let messageId = try #require(sent.json?["id"] as? String)
        let funnel = try await server.admin("GET", "/messages/\(messageId)/stats")
        #expect(funnel.json?["targeted"] as? Int == 1)
        #expect(funnel.json?["skipped_by_preference"] as? Int == 1)

        try await profile.follow(topic: "release-notes")
        let followers = try await server.admin(
            "GET", "/projects/\(server.process.projectId)/topics/release-notes/followers")
        #expect(followers.json?["profile_ids"] as? [String] == [ada.profileId])
        try await profile.unfollow(topic: "release-notes")
        let after = try await server.admin(
            "GET", "/projects/\(server.process.projectId)/topics/release-notes/followers")
        #expect((after.json?["profile_ids"] as? [String])?.isEmpty == true)

        // The completion forms.
        let done = await withCheckedContinuation { continuation in
            profile.follow(topic: "news") { continuation.resume(returning: $0) }
        }
        #expect((try? done.get()) != nil)
        await a.close()
        await server.stop()
    }
}

/// The last snapshot a callback saw.
final class SnapshotBox: Sendable {
    private let state = Mutex<InboxSnapshot?>(nil)
    func set(_ snapshot: InboxSnapshot) { state.withLock { $0 = snapshot } }
    var value: InboxSnapshot? { state.withLock { $0 } }
}
