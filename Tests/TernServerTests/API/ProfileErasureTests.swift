import Foundation
import TernProtocol
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// `DELETE /api/v1/admin/profiles/{profile_id}`: everything that says who a person is or reaches
/// them goes, on both backends, while another profile's rows stay as they were.
@Suite struct ProfileErasureTests {
    /// Runs a statement on either backend (rows the API has no call to write directly).
    static func run(_ tx: any StoreTransaction, _ sql: String, _ parameters: [any SQLiteBindable]) throws {
        if let tx = tx as? SQLiteTransaction {
            _ = try tx.database.run(sql, parameters)
            return
        }
        _ = try #require(tx as? PostgresTransaction).database.run(sql, parameters)
    }

    /// A subscribed device's profile, with one row in every table that holds a profile's data.
    struct Person {
        var publicId: String
        var id: Int64
        var subscriptionId: Int64
        var installationId: Int64
    }

    static func person(
        _ server: InProcessServer, token: String, pixelId: Int64, topicId: Int64, goals: Int
    ) async throws -> Person {
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: token))
        try #require(reply.status == 200, "\(reply.errorText)")
        let publicId = try #require(reply.profile?.id)
        let resourceId = server.bootstrap.resourceId
        return try await server.store.write { tx in
            let profile = try #require(try tx.profile(publicId: publicId))
            let subscription = try #require(try tx.subscriptions(profileId: profile.id).first)
            let id = profile.id
            try run(
                tx, "INSERT INTO profile_fields (profile_id, name, value) VALUES (?, 'email', ?)",
                [id, "\"\(token)@example.com\""])
            try run(
                tx,
                "INSERT INTO subscription_tags (subscription_id, name, value, updated_at) VALUES (?, 'plan', 'gold', 1)",
                [subscription.id])
            for index in 0..<goals {
                try run(
                    tx,
                    """
                    INSERT INTO goals (pixel_id, profile_id, resource_id, client_id, event_name, payload, time, received_at)
                    VALUES (?, ?, ?, ?, 'purchase', '{"sum":1}', ?, ?)
                    """, [pixelId, id, resourceId, "client-\(token)", Int64(index), Int64(index)])
            }
            try run(
                tx,
                """
                INSERT INTO inbox_messages (profile_id, title, data, created_at, expires_at, read, version)
                VALUES (?, 'hello', '{}', 1, 9999999999999, ?, 1)
                """, [id, false])
            try run(tx, "INSERT INTO inbox_versions (profile_id, version) VALUES (?, 1)", [id])
            try run(
                tx,
                "INSERT INTO preferences (profile_id, channel, category, enabled, updated_at) VALUES (?, 'push', 'news', ?, 1)",
                [id, false])
            try run(
                tx, "INSERT INTO topic_followers (topic_id, profile_id, created_at) VALUES (?, ?, 1)", [topicId, id])
            try run(
                tx,
                "INSERT INTO invalid_tokens (provider, token, reason, marked_at) VALUES ('ios-apns', ?, 'Unregistered', 1)",
                [token])
            try run(
                tx,
                """
                INSERT INTO identity_installations (resource_id, provider, token, binding_id, external_id,
                    profile_id, anonymous_profile_id, version, updated_at)
                VALUES (?, 'ios-apns', ?, 'b', ?, ?, ?, 1, 1)
                """, [resourceId, token, "user-\(token)", id, id])
            let installation = try integerRows(
                tx, "SELECT id FROM identity_installations WHERE profile_id = ?", [id])[0][0]
            try run(
                tx,
                """
                INSERT INTO identity_operations (installation_id, operation_id, fingerprint, status, answer, created_at)
                VALUES (?, 'op', 'f', 200, '{}', 1)
                """, [installation])
            return Person(publicId: publicId, id: id, subscriptionId: subscription.id, installationId: installation)
        }
    }

    /// A pixel for the people's goals and a topic for them to follow, in the bootstrap project.
    static func pixelAndTopic(_ server: InProcessServer) async throws -> (pixelId: Int64, topicId: Int64) {
        let project = server.bootstrap.projectId
        _ = try await server.admin("POST", "/projects/\(project)/pixels", json: ["sid": "shop"])
        return try await server.store.write { tx in
            let pixel = try integerRows(tx, "SELECT id FROM pixels WHERE sid = 'shop'", [])[0][0]
            try run(tx, "INSERT INTO topics (project_id, name, created_at) VALUES (?, 'sales', 1)", [project])
            return (pixel, try integerRows(tx, "SELECT id FROM topics", [])[0][0])
        }
    }

    /// The person's rows, table by table.
    static func rows(_ store: any Store, _ person: Person) async throws -> [String: Int64] {
        let id = person.id
        let byProfile = [
            "profile_fields", "subscriptions", "goals", "inbox_messages", "inbox_versions", "preferences",
            "topic_followers",
        ]
        return try await store.read { tx in
            var rows: [String: Int64] = [:]
            for table in byProfile {
                rows[table] = try integerRows(tx, "SELECT COUNT(*) FROM \(table) WHERE profile_id = ?", [id])[0][0]
            }
            rows["identity_installations"] =
                try integerRows(
                    tx, "SELECT COUNT(*) FROM identity_installations WHERE profile_id = ? OR anonymous_profile_id = ?",
                    [id, id])[0][0]
            rows["identity_operations"] =
                try integerRows(
                    tx, "SELECT COUNT(*) FROM identity_operations WHERE installation_id = ?", [person.installationId])[
                    0][0]
            rows["subscription_tags"] =
                try integerRows(
                    tx, "SELECT COUNT(*) FROM subscription_tags WHERE subscription_id = ?", [person.subscriptionId])[0][
                    0]
            return rows
        }
    }

    static func audience(_ store: any Store) async throws -> Int64 {
        try await store.read { tx in
            try integerRows(tx, "SELECT COALESCE(SUM(n), 0) FROM audience_counts", [])[0][0]
        }
    }

    static func invalidMarks(_ store: any Store, _ token: String) async throws -> Int {
        try await store.read { tx in
            if let tx = tx as? SQLiteTransaction {
                return try tx.database.query("SELECT 1 FROM invalid_tokens WHERE token = ?", [token]).count
            }
            return try #require(tx as? PostgresTransaction).database.query(
                "SELECT 1 FROM invalid_tokens WHERE token = ?", [token]
            ).count
        }
    }

    /// The goals are walked two ids at a time, so the walk takes several steps; the profile's rows
    /// written after the walk's last id (a goal here) go in the erasure's own transaction.
    @Test(arguments: StoreFactory.all)
    func aProfilesRowsGoAndAnothersStay(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let (pixelId, topicId) = try await Self.pixelAndTopic(server)
        let gone = try await Self.person(server, token: "gone", pixelId: pixelId, topicId: topicId, goals: 5)
        let kept = try await Self.person(server, token: "kept", pixelId: pixelId, topicId: topicId, goals: 3)
        let keptBefore = try await Self.rows(server.store, kept)
        #expect(keptBefore.values.allSatisfy { $0 > 0 }, "\(keptBefore)")
        #expect(try await Self.rows(server.store, gone).values.allSatisfy { $0 > 0 })
        #expect(try await Self.audience(server.store) == 2)

        // The walk by hand up to the goals' last id; a goal written after it is left to the
        // erasure's own transaction.
        let walkedTo = try #require(try await server.store.read { try $0.goalIdRange() }).upperBound
        let walkedGoals = try await server.store.write { tx in
            try tx.eraseGoals(of: gone.id, ids: 1...walkedTo)
        }
        #expect(walkedGoals == 5)
        let resourceId = server.bootstrap.resourceId
        let erasure = try await server.store.write { tx in
            try Self.run(
                tx,
                """
                INSERT INTO goals (pixel_id, profile_id, resource_id, client_id, event_name, time, received_at)
                VALUES (?, ?, ?, 'late', 'late', 9, 9)
                """, [pixelId, gone.id, resourceId])
            let profile = try #require(try tx.profile(publicId: gone.publicId))
            return try tx.eraseProfile(profile, goalsAfter: walkedTo, now: 77)
        }
        #expect(
            erasure
                == ProfileErasure(
                    profileId: gone.publicId, subscriptions: 1, fields: 1, goals: 1, identityInstallations: 1,
                    inboxMessages: 1, preferences: 2, invalidTokens: 1))

        let after = try await Self.rows(server.store, gone)
        #expect(after.values.allSatisfy { $0 == 0 }, "\(after)")
        #expect(try await Self.rows(server.store, kept) == keptBefore)
        #expect(try await Self.audience(server.store) == 1, "the erased device left the audience counts")
        #expect(try await Self.invalidMarks(server.store, "gone") == 0)
        #expect(try await Self.invalidMarks(server.store, "kept") == 1)
        let row = try await server.store.read { try $0.profile(id: gone.id) }
        #expect(row?.publicId == "erased:\(gone.id)" && row?.isTest == false && row?.updatedAt == 77)
        #expect(try await server.store.read { try $0.profile(publicId: gone.publicId) } == nil)
        #expect(try await server.store.read { try $0.profile(publicId: "erased:\(gone.id)") } == nil)

        // Through the eraser, two ids a step: the walk takes several transactions.
        let walked = try await Self.person(server, token: "walked", pixelId: pixelId, topicId: topicId, goals: 5)
        // A goal committed after the erasure's transaction (a device's write on PostgreSQL that
        // found the profile before it): the last pass takes it.
        let store = server.store
        let eraser = ProfileEraser(store: server.store, clock: { 88 }, span: 2) { profile in
            try await store.write { tx in
                try Self.run(
                    tx,
                    """
                    INSERT INTO goals (pixel_id, profile_id, resource_id, client_id, event_name, time, received_at)
                    VALUES (?, ?, ?, 'in-flight', 'late', 9, 9)
                    """, [pixelId, profile.id, resourceId])
            }
        }
        let steps = try await eraser.erase(publicId: walked.publicId)
        #expect(steps.goals == 6 && steps.identityInstallations == 1 && steps.subscriptions == 1, "\(steps)")
        #expect(try await Self.rows(server.store, walked).values.allSatisfy { $0 == 0 })
        #expect(try await Self.rows(server.store, kept) == keptBefore)
        await #expect(throws: APIError.self) { try await eraser.erase(publicId: walked.publicId) }
    }

    /// The export holds every kind of row the erasure removes, the person's only, and a read key may
    /// ask for it; an erased profile has none.
    @Test(arguments: StoreFactory.all)
    func anExportHoldsEverythingOfThePersonAndNothingOfAnother(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let (pixelId, topicId) = try await Self.pixelAndTopic(server)
        let person = try await Self.person(server, token: "mine", pixelId: pixelId, topicId: topicId, goals: 3)
        _ = try await Self.person(server, token: "other", pixelId: pixelId, topicId: topicId, goals: 2)
        let made = try await server.admin(
            "POST", "/keys", json: ["project_id": server.bootstrap.projectId, "role": "read", "name": "reader"])
        let readKey = try #require(made.json["secret"] as? String)
        let reply = await server.send(
            "GET", "/api/v1/admin/profiles/\(person.publicId)/export", headers: ["Authorization": "Bearer \(readKey)"])
        try #require(reply.status == 200, "\(reply.errorText)")
        let export = reply.json
        #expect(export["profile_id"] as? String == person.publicId)
        let profile = try #require(export["profile"] as? [String: Any])
        #expect((profile["fields"] as? [String: Any])?["email"] as? String == "mine@example.com")
        let subscriptions = try #require(profile["subscriptions"] as? [[String: Any]])
        #expect(subscriptions.count == 1 && (subscriptions[0]["tags"] as? [String: String]) == ["plan": "gold"])
        let goals = try #require(export["goals"] as? [[String: Any]])
        #expect(goals.count == 3 && goals.allSatisfy { $0["client_id"] as? String == "client-mine" }, "\(goals)")
        #expect((export["inbox"] as? [[String: Any]])?.map { $0["title"] as? String } == ["hello"])
        #expect((export["preferences"] as? [String: [String: Bool]]) == ["push": ["news": false]])
        #expect(export["topics"] as? [String] == ["sales"])
        let bindings = try #require(export["identity_bindings"] as? [[String: Any]])
        #expect(bindings.count == 1 && bindings[0]["external_id"] as? String == "user-mine", "\(bindings)")
        #expect(export["push_events"] as? [Any] != nil)

        #expect(try await server.admin("DELETE", "/profiles/\(person.publicId)").status == 200)
        #expect(try await server.admin("GET", "/profiles/\(person.publicId)/export").status == 404)
    }

    /// The route: a full key erases and is told what went; the profile is then unknown to every
    /// call, a second erasure answers 404, and a read key is refused.
    @Test(arguments: StoreFactory.all)
    func theAdminRouteErasesOnceWithAFullKey(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "device"))
        let publicId = try #require(reply.profile?.id)
        let made = try await server.admin(
            "POST", "/keys", json: ["project_id": server.bootstrap.projectId, "role": "read", "name": "reader"])
        let readKey = try #require(made.json["secret"] as? String, "\(made.errorText)")
        let refused = await server.send(
            "DELETE", "/api/v1/admin/profiles/\(publicId)", headers: ["Authorization": "Bearer \(readKey)"])
        #expect(refused.status == 403, "\(refused.errorText)")
        #expect(try await server.admin("GET", "/profiles/\(publicId)").status == 200)

        let erased = try await server.admin("DELETE", "/profiles/\(publicId)")
        #expect(erased.status == 200, "\(erased.errorText)")
        #expect(erased.json["profile_id"] as? String == publicId)
        #expect(erased.json["subscriptions"] as? Int == 1)
        let audit = try await server.admin("GET", "/audit")
        let entry = audit.array.first { ($0["action"] as? String)?.hasPrefix("DELETE ") == true }
        #expect(entry?["target"] as? String == "/api/v1/admin/profiles/\(publicId)", "\(audit.array)")
        #expect(entry?["status"] as? Int == 200)
        #expect(try await server.admin("GET", "/profiles/\(publicId)").status == 404)
        let again = try await server.admin("DELETE", "/profiles/\(publicId)")
        #expect(again.status == 404, "\(again.errorText)")
        let found = try await server.admin(
            "GET", "/subscriptions",
            query: [
                "resource_id": "\(server.bootstrap.resourceId)", "subscription_id": "device", "provider": "ios-apns",
            ])
        #expect(found.status == 200 && found.array.isEmpty, "\(found.body.count)")
        // The device subscribing again is a new person.
        let back = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "device", time: 2000))
        #expect(back.status == 200 && back.profile?.id != publicId, "\(back.errorText)")
    }
}

/// The erasure reads a profile's identity bindings through their indexes, not every installation.
@Suite struct ProfileErasurePlanTests {
    @Test func sqliteFindsAProfilesBindingsThroughBothIndexes() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let plan = try await server.store.read { tx in
            try #require(tx as? SQLiteTransaction).database
                .query("EXPLAIN QUERY PLAN " + SQLiteTransaction.profileInstallationsQuery, [1, 1])
                .map { $0.string(3) ?? "" }.joined(separator: "; ")
        }
        #expect(plan.contains("identity_installations_profile"), "\(plan)")
        #expect(plan.contains("identity_installations_anonymous"), "\(plan)")
        #expect(!plan.contains("SCAN identity_installations"), "\(plan)")
    }

    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func postgresGenericPlanFindsAProfilesBindingsThroughBothIndexes() async throws {
        let connection = try PostgresConnection(url: try await PostgresConnection.migratedSchema())
        // 20,000 installations, analyzed (the store keeps statistics up with a table's growth);
        // their resource's row is left out (no foreign key checks on this session).
        try connection.execute("SET session_replication_role = replica")
        try connection.execute(
            """
            INSERT INTO identity_installations (resource_id, provider, token, binding_id, profile_id,
                anonymous_profile_id, version, updated_at)
            SELECT 1, 'ios-apns', 't' || n, 'b', n, n + 100000, 1, 1 FROM generate_series(1, 20000) n;
            ANALYZE identity_installations
            """)
        try connection.prepare("installations", SQLiteTransaction.profileInstallationsQuery)
        let plan = try connection.plan("installations", ["1", "1"])
        #expect(plan.contains("identity_installations_profile"), "\(plan)")
        #expect(plan.contains("identity_installations_anonymous"), "\(plan)")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
    }
}
