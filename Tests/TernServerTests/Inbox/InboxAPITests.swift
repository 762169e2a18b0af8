import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The inbox, preferences and topics through the router: SDK routes with a JWT, the management API,
/// and the funnel of a send with a category.
@Suite struct InboxAPITests {
    struct Person {
        let jwt: String
        let profileId: String
    }

    /// A signed-in person with a push subscription (`token`), so pushes reach them.
    static func person(_ server: InProcessServer, _ signer: TestSigner, _ email: String, token: String) async throws
        -> Person
    {
        let dbId = try await JWTAuthTests.databaseId(server)
        let jwt = try signer.token(["db_id": dbId, "email": email])
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: token), jwt: jwt)
        try #require(reply.status == 200, "\(reply.errorText)")
        return Person(jwt: jwt, profileId: try #require(reply.profile?.id))
    }

    static func list(_ server: InProcessServer, _ jwt: String, cursor: String? = nil) async throws -> InboxListAnswer {
        var body: [String: Any] = [:]
        if let cursor { body["cursor"] = cursor }
        let reply = try await server.sdk(.inboxList, body, jwt: jwt)
        try #require(reply.status == 200, "\(reply.status) \(reply.errorText)")
        return try JSONDecoder().decode(InboxListAnswer.self, from: reply.body)
    }

    static func put(_ server: InProcessServer, _ profileId: String, _ title: String, extra: [String: Any] = [:])
        async throws -> InProcessServer.Reply
    {
        var body: [String: Any] = ["title": title, "audience": ["type": "profile", "profile_id": profileId]]
        body.merge(extra) { _, new in new }
        return try await server.admin("POST", "/inbox", json: body)
    }

    @Test func aListOfProfilesAndAResourceEachReachTheInboxesTheyName() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let ada = try await Self.person(server, signer, "ada@example.com", token: "t-ada")
        let bob = try await Self.person(server, signer, "bob@example.com", token: "t-bob")
        let cy = try await Self.person(server, signer, "cy@example.com", token: "t-cy")

        let listed = try await server.admin(
            "POST", "/inbox",
            json: [
                "title": "For two", "audience": ["type": "profiles", "profile_ids": [ada.profileId, cy.profileId]],
            ])
        #expect(listed.status == 201, "\(listed.errorText)")
        #expect(listed.json["profiles"] as? Int == 2)
        #expect(try await Self.list(server, ada.jwt).messages.map(\.title) == ["For two"])
        #expect(try await Self.list(server, bob.jwt).messages.isEmpty)
        #expect(try await Self.list(server, cy.jwt).messages.map(\.title) == ["For two"])

        let everyone = try await server.admin(
            "POST", "/inbox",
            json: ["title": "For all", "audience": ["type": "resource", "resource_id": server.bootstrap.resourceId]])
        #expect(everyone.status == 201, "\(everyone.errorText)")
        #expect(everyone.json["profiles"] as? Int == 3)
        #expect(try await Self.list(server, bob.jwt).messages.map(\.title) == ["For all"])
        #expect(try await Self.list(server, ada.jwt).messages.map(\.title) == ["For all", "For two"])
    }

    @Test func readOnOneDeviceIsReadOnTheOtherAndDeletedIsGoneFromBoth() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let ada = try await Self.person(server, signer, "ada@example.com", token: "t-ada")
        let put = try await Self.put(server, ada.profileId, "Your order shipped", extra: ["link": "https://e.com/o/1"])
        #expect(put.status == 201, "\(put.errorText)")
        #expect(put.json["profiles"] as? Int == 1)

        // Device A and device B: the same JWT subject, each with its own cursor.
        let a = try await Self.list(server, ada.jwt)
        let b = try await Self.list(server, ada.jwt)
        #expect(a.reset && a.messages.map(\.title) == ["Your order shipped"] && a.unread == 1)
        let id = try #require(a.messages.first?.id)
        #expect(a.messages.first?.link == "https://e.com/o/1")

        let read = try await server.sdk(.inboxRead, ["id": id], jwt: ada.jwt, key: "read-1")
        #expect(read.status == 200, "\(read.errorText)")
        let readAgain = try await server.sdk(.inboxRead, ["id": id], jwt: ada.jwt, key: "read-2")
        #expect(readAgain.status == 200)
        let bSynced = try await Self.list(server, ada.jwt, cursor: b.cursor)
        #expect(!bSynced.reset && bSynced.messages.map(\.id) == [id] && bSynced.messages.first?.read == true)
        #expect(bSynced.unread == 0)

        let deleted = try await server.sdk(.inboxDelete, ["id": id], jwt: ada.jwt, key: "delete-1")
        #expect(deleted.status == 200)
        let aSynced = try await Self.list(server, ada.jwt, cursor: a.cursor)
        #expect(aSynced.messages.isEmpty)
        #expect(aSynced.removed == [InboxRemoved(id: id, reason: .deleted)])
        // Deleting again changes nothing and answers the same; nothing more to sync.
        #expect(try await server.sdk(.inboxDelete, ["id": id], jwt: ada.jwt).status == 200)
        let nothing = try await Self.list(server, ada.jwt, cursor: aSynced.cursor)
        #expect(nothing.messages.isEmpty && nothing.removed.isEmpty)
        #expect(try await Self.list(server, ada.jwt).messages.isEmpty)
    }

    @Test func theTwoHundredFiftyFirstDropsTheOldestAndExpiredOnesLeave() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let ada = try await Self.person(server, signer, "ada@example.com", token: "t-ada")
        for index in 1...250 { _ = try await Self.put(server, ada.profileId, "m\(index)") }
        let first = try await Self.list(server, ada.jwt)
        #expect(first.messages.count == 250 && first.messages.last?.title == "m1")
        let oldest = try #require(first.messages.last?.id)
        _ = try await Self.put(server, ada.profileId, "m251")
        let next = try await Self.list(server, ada.jwt, cursor: first.cursor)
        #expect(next.messages.map(\.title) == ["m251"])
        #expect(next.removed == [InboxRemoved(id: oldest, reason: .dropped)])
        #expect(try await Self.list(server, ada.jwt).messages.count == 250)

        // Five seconds to see it listed (a loaded run can take seconds for a put and a list), then
        // as long as is left of them and a little more.
        let soon = ServerClock.milliseconds() + 5000
        let expiring = try await Self.put(server, ada.profileId, "flash sale", extra: ["expires_at": soon])
        #expect(expiring.status == 201, "\(expiring.errorText)")
        let before = try await Self.list(server, ada.jwt, cursor: next.cursor)
        let flash = try #require(before.messages.first { $0.title == "flash sale" }?.id)
        try await Task.sleep(for: .milliseconds(max(0, soon - ServerClock.milliseconds()) + 300))
        let after = try await Self.list(server, ada.jwt, cursor: before.cursor)
        #expect(after.removed.contains(InboxRemoved(id: flash, reason: .expired)))
        #expect(try await Self.list(server, ada.jwt).messages.contains { $0.id == flash } == false)
    }

    @Test func anotherPersonsMessageIs404AndTheInboxNeedsAJWT() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let ada = try await Self.person(server, signer, "ada@example.com", token: "t-ada")
        let bob = try await Self.person(server, signer, "bob@example.com", token: "t-bob")
        _ = try await Self.put(server, ada.profileId, "for Ada")
        let id = try #require(try await Self.list(server, ada.jwt).messages.first?.id)
        for endpoint in [Endpoint.inboxRead, .inboxDelete] {
            let reply = try await server.sdk(endpoint, ["id": id], jwt: bob.jwt)
            #expect(reply.status == 404)
            #expect(reply.errorText.hasPrefix("id: no message"))
            let malformed = try await server.sdk(endpoint, ["id": "nope"], jwt: bob.jwt)
            #expect(malformed.status == 404)
        }
        #expect(try await Self.list(server, bob.jwt).messages.isEmpty)
        #expect(try await Self.list(server, ada.jwt).messages.first?.read == false)
        let anonymous = try await server.sdk(.inboxList, [:])
        #expect(anonymous.status == 401 && anonymous.errorText.contains("JWT"))
        let badLimit = try await server.sdk(.inboxList, ["limit": 0], jwt: ada.jwt)
        #expect(badLimit.status == 400 && badLimit.errorText.hasPrefix("limit:"))
        let unread = try await server.sdk(.inboxUnread, [:], jwt: ada.jwt)
        #expect(unread.json["unread"] as? Int == 1)
        let admin = try await server.admin("GET", "/profiles/\(ada.profileId)/inbox")
        #expect((admin.json["messages"] as? [[String: Any]])?.count == 1)
    }

    @Test func theProjectsExpiryAppliesToNewMessages() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let ada = try await Self.person(server, signer, "ada@example.com", token: "t-ada")
        let project = server.bootstrap.projectId
        #expect(try await server.admin("GET", "/projects/\(project)/inbox").json["expiry_days"] as? Int == 90)
        let bad = try await server.admin("PUT", "/projects/\(project)/inbox", json: ["expiry_days": 0])
        #expect(bad.status == 400 && bad.errorText.hasPrefix("expiry_days:"))
        #expect(try await server.admin("PUT", "/projects/\(project)/inbox", json: ["expiry_days": 7]).status == 200)
        let put = try await Self.put(server, ada.profileId, "week")
        let message = try #require(try await Self.list(server, ada.jwt).messages.first)
        #expect(message.expiresAt - message.createdAt == 7 * 86_400_000)
        #expect(put.json["expires_at"] as? Int64 == message.expiresAt)
    }

    @Test func aPushWithInboxTrueIsCopiedToEachPersonItReaches() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let ada = try await Self.person(server, signer, "ada@example.com", token: "t-ada")
        let send = try await server.admin(
            "POST", "/messages",
            json: [
                "title": "Sale", "body": "30% off", "inbox": true, "click_url": "https://e.com/sale",
                "audience": ["type": "profile", "profile_id": ada.profileId],
            ])
        #expect(send.status == 201, "\(send.errorText)")
        let messages = try await Self.list(server, ada.jwt).messages
        #expect(messages.map(\.title) == ["Sale"] && messages.first?.link == "https://e.com/sale")
        // The push itself says the inbox changed; the inbox copy keeps only the sender's data.
        let request = send.json["request"] as? [String: Any]
        #expect(request?["inbox"] as? Bool == true)
        #expect(messages.first?.data[InboxPush.payloadKey] == nil)
    }

    @Test func aPushKeptInTheInboxTellsTheAppItsInboxChanged() throws {
        var request = MessageRequest(audience: MessageAudience(type: .profile, profileId: "p"))
        request.title = "Sale"
        request.inbox = true
        let kept = try MessagePlan(request, publicId: "m_1").template
        #expect(String(decoding: kept.prefix + kept.suffix, as: UTF8.self).contains(#""tern_inbox":true"#))
        request.inbox = nil
        let plain = try MessagePlan(request, publicId: "m_1").template
        #expect(!String(decoding: plain.prefix + plain.suffix, as: UTF8.self).contains("tern_inbox"))
    }

    @Test func aCategoryTurnedOffForPushIsSkippedAndCountedInTheFunnel() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let ada = try await Self.person(server, signer, "ada@example.com", token: "t-ada")
        let bob = try await Self.person(server, signer, "bob@example.com", token: "t-bob")
        let resource = server.bootstrap.resourceId
        #expect(
            try await server.admin("PUT", "/resources/\(resource)/categories/marketing", json: ["title": "M"]).status
                == 200)
        let set = try await server.sdk(
            .profilePreferencesSet, ["preferences": ["push": ["marketing": false], "email": ["news": true]]],
            jwt: ada.jwt)
        #expect(set.status == 200, "\(set.errorText)")
        let got = try await server.sdk(.profilePreferencesGet, [:], jwt: ada.jwt)
        #expect(
            got.json["preferences"] as? [String: [String: Bool]] == [
                "push": ["marketing": false], "email": ["news": true],
            ])
        let admin = try await server.admin("GET", "/profiles/\(ada.profileId)/preferences")
        #expect(
            admin.json["preferences"] as? [String: [String: Bool]] == [
                "push": ["marketing": false], "email": ["news": true],
            ])

        func send(_ category: String, to profile: String? = nil) async throws -> [String: Any] {
            let audience: [String: Any] =
                profile.map { ["type": "profile", "profile_id": $0, "resource_id": resource] }
                ?? ["type": "resource", "resource_id": resource]
            let reply = try await server.admin(
                "POST", "/messages", json: ["title": "Hi", "category": category, "audience": audience])
            try #require(reply.status == 201, "\(reply.errorText)")
            let id = try #require(reply.json["id"] as? String)
            return try await server.admin("GET", "/messages/\(id)/stats").json
        }
        let marketing = try await send("marketing")
        #expect(marketing["targeted"] as? Int == 1)
        #expect(marketing["skipped_by_preference"] as? Int == 1)
        let toAda = try await send("marketing", to: ada.profileId)
        #expect(toAda["targeted"] as? Int == 0 && toAda["skipped_by_preference"] as? Int == 1)
        let toBob = try await send("marketing", to: bob.profileId)
        #expect(toBob["targeted"] as? Int == 1 && toBob["skipped_by_preference"] as? Int == 0)
        #expect(
            try await server.admin("PUT", "/resources/\(resource)/categories/transactional", json: ["title": "T"])
                .status == 200)
        let transactional = try await send("transactional")
        #expect(transactional["targeted"] as? Int == 2 && transactional["skipped_by_preference"] as? Int == 0)
    }

    @Test func followThenSendReachesUnfollowThenSendDoesNot() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let ada = try await Self.person(server, signer, "ada@example.com", token: "t-ada")
        let follow = try await server.sdk(.profileTopicsFollow, ["topic": "release-notes"], jwt: ada.jwt, key: "f1")
        #expect(follow.status == 200, "\(follow.errorText)")
        #expect(try await server.sdk(.profileTopicsFollow, ["topic": "release-notes"], jwt: ada.jwt).status == 200)
        let project = server.bootstrap.projectId
        let topics = try await server.admin("GET", "/projects/\(project)/topics")
        #expect(
            topics.array.first?["name"] as? String == "release-notes" && topics.array.first?["followers"] as? Int == 1)
        let followers = try await server.admin("GET", "/projects/\(project)/topics/release-notes/followers")
        #expect(followers.json["profile_ids"] as? [String] == [ada.profileId])

        func send() async throws -> Int? {
            let reply = try await server.admin(
                "POST", "/messages", json: ["title": "v2", "audience": ["type": "topic", "topic": "release-notes"]])
            try #require(reply.status == 201, "\(reply.errorText)")
            return try await server.admin("GET", "/messages/\(reply.json["id"] as? String ?? "")/stats")
                .json["targeted"] as? Int
        }
        #expect(try await send() == 1)
        #expect(try await server.sdk(.profileTopicsUnfollow, ["topic": "release-notes"], jwt: ada.jwt).status == 200)
        #expect(try await send() == 0)
        let inbox = try await server.admin(
            "POST", "/inbox", json: ["title": "t", "audience": ["type": "topic", "topic": "release-notes"]])
        #expect(inbox.json["profiles"] as? Int == 0)
    }

    @Test(
        arguments: [
            (
                Endpoint.profilePreferencesSet, #"{"preferences":{"fax":{"news":false}}}"#,
                "preferences.fax: unknown channel"
            ),
            (.profilePreferencesSet, #"{"preferences":{"push":{"bad cat":false}}}"#, "preferences.push.bad cat:"),
            (
                .profilePreferencesSet, #"{"preferences":{"push":{"transactional":false}}}"#,
                "transactional is always on"
            ),
            (
                .profileTopicsFollow, #"{"topic":"\#(String(repeating: "t", count: 65))"}"#,
                "topic is longer than 64 bytes"
            ),
            (.profileTopicsFollow, #"{"topic":"a b"}"#, "topic takes letters"),
            (.inboxRead, #"{"id":""}"#, "id is empty"),
        ] as [(Endpoint, String, String)])
    func badInputIs400NamingTheField(endpoint: Endpoint, text: String, reason: String) async throws {
        let body = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let ada = try await Self.person(server, signer, "ada@example.com", token: "t-ada")
        let reply = try await server.sdk(endpoint, body, jwt: ada.jwt)
        #expect(reply.status == 400, "\(reply.errorText)")
        #expect(reply.errorText.contains(reason), "\(reply.errorText)")
    }
}
