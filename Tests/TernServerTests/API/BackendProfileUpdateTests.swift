import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `POST /api/v1/admin/databases/{db_id}/profiles/update`: the operator's backend writes people's
/// fields by email, phone, profile id or a field; each entry is answered alone, a bad one refused
/// with its reason while its neighbours apply; `create` makes the profile a later log-in finds.
@Suite struct BackendProfileUpdateTests {
    static func path(_ dbId: Int) -> String { "/databases/\(dbId)/profiles/update" }

    /// The backend's update with the bootstrap (server) key, or `key`'s.
    static func update(
        _ server: InProcessServer, dbId: Int, _ entries: [[String: Any]], key: String? = nil,
        idempotencyKey: String? = nil
    ) async throws -> InProcessServer.Reply {
        let body = try JSONSerialization.data(withJSONObject: ["profiles": entries], options: [.sortedKeys])
        return await raw(server, dbId: dbId, body, key: key, idempotencyKey: idempotencyKey)
    }

    static func raw(
        _ server: InProcessServer, dbId: Int, _ body: Data, key: String? = nil, idempotencyKey: String? = nil
    ) async -> InProcessServer.Reply {
        var headers = ["Authorization": "Bearer \(key ?? server.bootstrap.adminKey)"]
        if let idempotencyKey { headers[Wire.idempotencyKeyHeader] = idempotencyKey }
        return await server.send("POST", "/api/v1/admin" + path(dbId), body: body, headers: headers)
    }

    static func results(_ reply: InProcessServer.Reply) throws -> [[String: Any]] {
        try #require(reply.status == 200, "\(reply.status) \(reply.errorText)")
        return try #require(reply.json["results"] as? [[String: Any]])
    }

    /// A person the SDK made with a JWT naming `matching` (as an app's log-in does); their profile id.
    static func signedIn(
        _ server: InProcessServer, _ signer: TestSigner, _ matching: [String: Any], fields: [String: Any] = [:]
    ) async throws -> String {
        var claims = matching
        claims["db_id"] = try await JWTAuthTests.databaseId(server)
        let reply = try await server.sdk(.profileUpdate, ["profile_fields": fields], jwt: try signer.token(claims))
        try #require(reply.status == 200, "\(reply.errorText)")
        return try #require(reply.profile?.id)
    }

    static func fields(_ server: InProcessServer, _ profileId: String) async throws -> [String: Any] {
        let reply = try await server.admin("GET", "/profiles/\(profileId)")
        try #require(reply.status == 200, "\(reply.errorText)")
        return try #require(reply.json["fields"] as? [String: Any])
    }

    @Test(arguments: StoreFactory.all)
    func eachMatchingKindUpdatesItsPersonAndARepeatIsUnchanged(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let dbId = try await JWTAuthTests.databaseId(server)
        let ann = try await Self.signedIn(server, signer, ["email": "ann@example.com"])
        let bo = try await Self.signedIn(server, signer, ["phone": "+15550100"])
        let cy = try await Self.signedIn(server, signer, ["field_name": "customer_id", "field_value": 42])
        let dan = try await Self.signedIn(server, signer, ["email": "dan@example.com"])
        let entries: [[String: Any]] = [
            ["matching": ["email": "ann@example.com"], "profile_fields": ["plan": "gold"]],
            ["matching": ["phone": "+15550100"], "profile_fields": ["plan": "silver"]],
            ["matching": ["field_name": "customer_id", "field_value": 42], "profile_fields": ["plan": "bronze"]],
            ["matching": ["profile_id": dan], "profile_fields": ["plan": "free", "tier": 2]],
        ]
        let results = try Self.results(try await Self.update(server, dbId: dbId, entries))
        #expect(results.map { $0["result"] as? String } == ["updated", "updated", "updated", "updated"])
        #expect(results.map { $0["index"] as? Int } == [0, 1, 2, 3])
        #expect(results.map { $0["profile_id"] as? String } == [ann, bo, cy, dan])
        #expect(results.allSatisfy { $0["reason"] == nil })
        #expect(try await Self.fields(server, ann)["plan"] as? String == "gold")
        #expect(try await Self.fields(server, bo)["plan"] as? String == "silver")
        #expect(try await Self.fields(server, cy)["plan"] as? String == "bronze")
        let danFields = try await Self.fields(server, dan)
        #expect(danFields["plan"] as? String == "free" && danFields["tier"] as? Int == 2)

        // The same values again change nothing; a removal of an absent field neither.
        let again = try Self.results(
            try await Self.update(
                server, dbId: dbId,
                entries + [["matching": ["email": "ann@example.com"], "profile_fields": ["gone": ["action": "unset"]]]])
        )
        #expect(again.map { $0["result"] as? String } == Array(repeating: "unchanged", count: 5))
        #expect(again[0]["profile_id"] as? String == ann)
    }

    @Test(arguments: StoreFactory.all)
    func anIncrementIsAppliedOnceUnderARepeatedIdempotencyKey(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let dbId = try await JWTAuthTests.databaseId(server)
        let ann = try await Self.signedIn(server, signer, ["email": "ann@example.com"], fields: ["orders": 2])
        let entries: [[String: Any]] = [
            ["matching": ["email": "ann@example.com"], "profile_fields": ["orders": ["action": "incr", "value": 1]]]
        ]
        let first = try await Self.update(server, dbId: dbId, entries, idempotencyKey: "order-1001")
        #expect(try Self.results(first).first?["result"] as? String == "updated")
        let second = try await Self.update(server, dbId: dbId, entries, idempotencyKey: "order-1001")
        #expect(second.status == 200 && second.body == first.body)
        #expect(second.header(Answer.replayedHeader) == "true")
        #expect(try await Self.fields(server, ann)["orders"] as? Int == 3, "incremented once")
        // Another body under the key is another request; another key is applied.
        let other = try await Self.update(
            server, dbId: dbId, [["matching": ["email": "ann@example.com"], "profile_fields": ["orders": 9]]],
            idempotencyKey: "order-1001")
        #expect(other.status == 422, "\(other.errorText)")
        _ = try await Self.update(server, dbId: dbId, entries, idempotencyKey: "order-1002")
        #expect(try await Self.fields(server, ann)["orders"] as? Int == 4)
    }

    @Test(arguments: StoreFactory.all)
    func createMakesTheProfileALaterLogInLandsOn(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let dbId = try await JWTAuthTests.databaseId(server)
        let matchings: [[String: Any]] = [
            ["email": "eve@example.com"], ["phone": "+15550199"], ["field_name": "customer_id", "field_value": 7],
        ]
        // Without create, no one is made.
        let missing = try Self.results(
            try await Self.update(
                server, dbId: dbId, matchings.map { ["matching": $0, "profile_fields": ["plan": "gold"]] }))
        #expect(missing.map { $0["result"] as? String } == ["not_found", "not_found", "not_found"])
        #expect(missing.allSatisfy { $0["profile_id"] is NSNull })
        #expect(
            try await server.store.read { try $0.profiles(dbId: Int64(dbId), field: "plan", value: "gold") }.isEmpty)

        let made = try Self.results(
            try await Self.update(
                server, dbId: dbId,
                matchings.map { ["matching": $0, "profile_fields": ["plan": "gold"], "create": true] }))
        #expect(made.map { $0["result"] as? String } == ["created", "created", "created"])
        let ids = made.compactMap { $0["profile_id"] as? String }
        #expect(Set(ids).count == 3)
        #expect(try await Self.fields(server, ids[0])["_email"] as? String == "eve@example.com")

        // The app installed later: its log-in with a JWT naming the person finds the profile made,
        // with the fields set before.
        for (matching, id) in zip(matchings, ids) {
            var claims = matching
            claims["db_id"] = dbId
            let subscribed = try await server.sdk(
                .pushSubscribe, InProcessServer.subscription(token: "phone-\(id)"), jwt: try signer.token(claims))
            try #require(subscribed.status == 200, "\(subscribed.errorText)")
            #expect(subscribed.profile?.id == id, "\(matching)")
            #expect(try await Self.fields(server, id)["plan"] as? String == "gold")
        }
        // A second create finds them; a profile id that names no one is not made.
        let again = try Self.results(
            try await Self.update(
                server, dbId: dbId,
                [
                    ["matching": matchings[0], "profile_fields": ["plan": "platinum"], "create": true],
                    [
                        "matching": ["profile_id": "0123456789abcdef01234567"], "profile_fields": ["a": 1],
                        "create": true,
                    ],
                ]))
        #expect(again[0]["result"] as? String == "updated" && again[0]["profile_id"] as? String == ids[0])
        #expect(again[1]["result"] as? String == "not_found")
        #expect((again[1]["reason"] as? String)?.contains("never with a given id") == true)
    }

    @Test(arguments: StoreFactory.all)
    func aBadEntryIsRefusedAloneWithItsReason(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let dbId = try await JWTAuthTests.databaseId(server)
        let ann = try await Self.signedIn(server, signer, ["email": "ann@example.com"], fields: ["city": "Lyon"])
        let ann_ = ["email": "ann@example.com"]
        let entries: [Any] = [
            ["matching": ann_, "profile_fields": ["plan": "gold"]],
            ["matching": ann_, "profile_fields": ["1st": "x"]],
            ["matching": ann_, "profile_fields": ["city": ["action": "incr", "value": 1]]],
            ["matching": ann_, "profile_fields": ["city": ["action": "explode", "value": 1]]],
            ["matching": ["email": "ann@example.com", "phone": "+1555"], "profile_fields": ["a": 1]],
            ["matching": ["email": 5], "profile_fields": ["a": 1]],
            ["matching": ["profile_id": 12], "profile_fields": ["a": 1]],
            ["matching": ann_, "profile_fields": ["a": 1], "create": "yes"],
            ["matching": ann_, "fields": ["a": 1]],
            "ann@example.com",
            ["matching": ann_, "profile_fields": ["orders": ["action": "incr", "value": 5]]],
        ]
        let body = try JSONSerialization.data(withJSONObject: ["profiles": entries])
        let results = try Self.results(await Self.raw(server, dbId: dbId, body))
        #expect(
            results.map { $0["result"] as? String }
                == ["updated"] + Array(repeating: "refused", count: 9) + ["updated"])
        #expect(results.map { $0["index"] as? Int } == Array(0..<11))
        let reasons = results.map { $0["reason"] as? String ?? "" }
        #expect(reasons[1].contains("\"1st\" is not a valid field name"), "\(reasons[1])")
        #expect(reasons[2].contains("profile_fields.city: incr") && reasons[2].contains("\"Lyon\""), "\(reasons[2])")
        #expect(reasons[3].contains("not one of set, unset, incr"), "\(reasons[3])")
        #expect(reasons[4].contains("exactly one of email, phone") && reasons[4].contains("found 2"), "\(reasons[4])")
        #expect(reasons[5].contains("matching.email is not valid"), "\(reasons[5])")
        #expect(reasons[6].contains("matching.profile_id is not valid"), "\(reasons[6])")
        #expect(reasons[7].contains("create must be true or false"), "\(reasons[7])")
        #expect(reasons[8].contains("fields is not a member of an entry"), "\(reasons[8])")
        #expect(reasons[9].contains("an entry must be a JSON object"), "\(reasons[9])")
        #expect(results[2]["profile_id"] as? String == ann, "a refusal after the person was found names them")
        let fields = try await Self.fields(server, ann)
        #expect(
            fields["plan"] as? String == "gold" && fields["orders"] as? Int == 5 && fields["city"] as? String == "Lyon")
        #expect(fields["a"] == nil && fields["1st"] == nil)
    }

    @Test(arguments: StoreFactory.all)
    func aKeyThatMatchesSeveralProfilesIsRefusedNamingThem(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let dbId = try await JWTAuthTests.databaseId(server)
        let ann = try await Self.signedIn(server, signer, ["email": "ann@example.com"], fields: ["team": "red"])
        let bo = try await Self.signedIn(server, signer, ["email": "bo@example.com"], fields: ["team": "red"])
        let results = try Self.results(
            try await Self.update(
                server, dbId: dbId,
                [
                    [
                        "matching": ["field_name": "team", "field_value": "red"], "profile_fields": ["x": 1],
                        "create": true,
                    ]
                ]))
        #expect(results.first?["result"] as? String == "refused")
        let reason = try #require(results.first?["reason"] as? String)
        #expect(reason.contains("names 2 profiles") && reason.contains(ann) && reason.contains(bo), "\(reason)")
        #expect(try await Self.fields(server, ann)["x"] == nil)
        #expect(try await Self.fields(server, bo)["x"] == nil)
        #expect(
            try await server.store.read { try $0.profiles(dbId: Int64(dbId), field: "team", value: "red") }.count == 2)
    }

    @Test(arguments: StoreFactory.all)
    func aMalformedBodyIsA400(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let dbId = try await JWTAuthTests.databaseId(server)
        let good: [String: Any] = ["matching": ["email": "a@example.com"], "profile_fields": ["a": 1]]
        let cases: [(Data, String)] = [
            (Data("[1]".utf8), "must be a JSON object"),
            (Data("{}".utf8), "\"profiles\" is required"),
            (Data(#"{"profiles": {}}"#.utf8), "\"profiles\" has the wrong type"),
            (Data(#"{"profiles": []}"#.utf8), "profiles is empty"),
            (try JSONSerialization.data(withJSONObject: ["profiles": Array(repeating: good, count: 1_001)]), "1000"),
        ]
        for (body, expected) in cases {
            let reply = await Self.raw(server, dbId: dbId, body)
            #expect(reply.status == 400, "\(String(decoding: body.prefix(40), as: UTF8.self))")
            #expect(reply.errorText.contains(expected), "\(reply.errorText)")
        }
        let thousand = try Self.results(
            await Self.raw(
                server, dbId: dbId,
                try JSONSerialization.data(withJSONObject: ["profiles": Array(repeating: good, count: 1_000)])))
        #expect(thousand.count == 1_000 && thousand.allSatisfy { $0["result"] as? String == "not_found" })
        let notANumber = await server.send(
            "POST", "/api/v1/admin/databases/main/profiles/update", body: Data(#"{"profiles": [{}]}"#.utf8),
            headers: ["Authorization": "Bearer \(server.bootstrap.adminKey)"])
        #expect(notANumber.status == 400 && notANumber.errorText.contains("db_id must be an integer"))
    }

    @Test(arguments: StoreFactory.all)
    func aReadKeyIsRefusedAndAnotherProjectsDatabaseIsNotFound(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let dbId = try await JWTAuthTests.databaseId(server)
        let ann = try await Self.signedIn(server, signer, ["email": "ann@example.com"])
        func key(_ project: Int64, _ role: String) async throws -> String {
            let made = try await server.admin(
                "POST", "/keys", json: ["project_id": project, "role": role, "name": role])
            return try #require(made.json["secret"] as? String, "\(made.errorText)")
        }
        let project = server.bootstrap.projectId
        let entry: [[String: Any]] = [["matching": ["email": "ann@example.com"], "profile_fields": ["plan": "gold"]]]

        let read = try await Self.update(server, dbId: dbId, entry, key: try await key(project, "read"))
        #expect(read.status == 403 && read.errorText.contains("send"), "\(read.errorText)")
        #expect(try await Self.fields(server, ann)["plan"] == nil)
        for role in ["send", "full"] {
            let reply = try await Self.update(
                server, dbId: dbId, [["matching": ["email": "ann@example.com"], "profile_fields": ["plan": role]]],
                key: try await key(project, role))
            #expect(try Self.results(reply).first?["result"] as? String == "updated")
        }
        #expect(try await Self.fields(server, ann)["plan"] as? String == "full")

        let other = try await server.admin("POST", "/projects", json: ["name": "other"]).json.int("id")
        let otherDb = try await server.admin("POST", "/projects/\(other)/databases", json: ["name": "theirs"])
        let otherDbId = Int(try #require(otherDb.json["id"] as? Int))
        let foreign = try await Self.update(server, dbId: otherDbId, entry, key: try await key(project, "full"))
        #expect(
            foreign.status == 404 && foreign.errorText.contains("not in project \(project)"), "\(foreign.errorText)")
        let absent = try await Self.update(server, dbId: 999_999, entry)
        #expect(absent.status == 404 && absent.errorText.contains("database 999999"), "\(absent.errorText)")
    }

    @Test(arguments: StoreFactory.all)
    func eachRequestIsOneLineOfTheAuditLog(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let dbId = try await JWTAuthTests.databaseId(server)
        let entries: [[String: Any]] = (0..<3).map {
            ["matching": ["email": "p\($0)@example.com"], "profile_fields": ["n": $0], "create": true]
        }
        _ = try Self.results(try await Self.update(server, dbId: dbId, entries))
        let audit = try await server.admin("GET", "/audit")
        let lines = audit.array.filter { ($0["action"] as? String)?.contains("profiles/update") == true }
        #expect(lines.count == 1, "\(audit.array)")
        #expect(lines.first?["target"] as? String == "/api/v1/admin" + Self.path(dbId))
        #expect(lines.first?["action"] as? String == "POST admin/profiles/update")
    }
}
