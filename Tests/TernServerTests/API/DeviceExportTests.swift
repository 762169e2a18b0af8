import Foundation
import Testing

@testable import TernServer

/// `GET /api/v1/admin/resources/{id}/devices/export`: a resource's devices, page by page, in the
/// import's shape. Imported into another server they are the same devices, with the same states,
/// fields, tags, test marks and people; the cursor ends with `next: null`, and only a key that may
/// import may export. On every backend.
@Suite struct DeviceExportTests {
    static func export(
        _ server: InProcessServer, resource: Int64? = nil, query: [String: String] = [:], key: String? = nil
    )
        async -> InProcessServer.Reply
    {
        await server.send(
            "GET", "/api/v1/admin/resources/\(resource ?? server.bootstrap.resourceId)/devices/export",
            headers: ["Authorization": "Bearer \(key ?? server.bootstrap.adminKey)"], query: query)
    }

    /// Every page of the bootstrap resource's export, `limit` a page, as each page's JSON.
    static func pages(_ server: InProcessServer, limit: Int) async throws -> [[String: Any]] {
        var pages: [[String: Any]] = []
        var after: String?
        repeat {
            var query = ["limit": "\(limit)"]
            query["after"] = after
            let reply = await export(server, query: query)
            try #require(reply.status == 200, "\(reply.errorText)")
            pages.append(reply.json)
            after = reply.json["next"] as? String
            #expect(reply.json.keys.contains("next"), "next is null at the end, not absent")
        } while after != nil && pages.count < 100
        return pages
    }

    static func importDevices(_ server: InProcessServer, _ devices: [Any]) async throws -> [String: Any] {
        let reply = try await server.admin(
            "POST", "/resources/\(server.bootstrap.resourceId)/devices/import", json: ["devices": devices])
        try #require(reply.status == 200, "\(reply.errorText)")
        #expect((reply.json["failed"] as? [Any])?.isEmpty == true, "\(reply.json)")
        return reply.json
    }

    static func byToken(_ devices: [[String: Any]]) -> [String: [String: Any]] {
        Dictionary(uniqueKeysWithValues: devices.map { ($0["subscription_id"] as? String ?? "", $0) })
    }

    /// The devices of the source: two of Ann's (one suspended, one a development build's), Bob's
    /// unsubscribed Firebase token, Carl's two with nothing that names him, Dora's one, and Erin's,
    /// found by a field of the app's. Returns the profile each is in.
    static func seed(_ server: InProcessServer) async throws -> [String: String] {
        let put = try await server.admin(
            "PUT", "/resources/\(server.bootstrap.resourceId)/categories/news", json: ["title": "News"])
        try #require(put.status == 200)
        let first: [[String: Any]] = [
            [
                "subscription_id": "ann-phone", "matching": ["email": "ann@example.com"], "time": 1_000,
                "profile_fields": [
                    "_fname": "Ann", "orders": 3,
                    // An object stored as it is, though it reads like an operation.
                    "shape": ["action": "set", "value": ["action": "incr", "value": 1]],
                ],
                "custom_fields": ["plan": "gold", "_os": "IOS"], "cats": [["name": "news", "active": true]],
                "tags": ["tier": "gold", "city": "Paris"], "is_test": true,
            ],
            [
                "subscription_id": "ann-tablet", "matching": ["email": "ann@example.com"], "status": "suspended",
                "apns_environment": "sandbox", "cats": [["name": "news", "active": false]],
            ],
            [
                "subscription_id": "bob", "provider": "ios-firebase", "matching": ["phone": "+1555"],
                "status": "unsubscribed",
            ],
            ["subscription_id": "carl-1", "profile_fields": ["likes": "tea"]],
            ["subscription_id": "dora", "profile_fields": ["n": 1], "time": 2_000],
            ["subscription_id": "erin", "matching": ["field_name": "user_id", "field_value": 42]],
        ]
        let answer = try await importDevices(server, first)
        let ids = try #require(answer["profile_ids"] as? [String])
        let carl = ids[3]
        // Carl's second device joins his profile, which no field names.
        let second = try await importDevices(server, [["subscription_id": "carl-2", "matching": ["profile_id": carl]]])
        var profiles = Dictionary(uniqueKeysWithValues: zip(first.map { $0["subscription_id"] as! String }, ids))
        profiles["carl-2"] = (second["profile_ids"] as? [String])?.first
        // Dora's tags come from the SDK, not from an import.
        let tags = try await server.sdk(
            .profileTagsSet, ["provider": "ios-apns", "subscription_id": "dora", "tags": ["beta": "1"]])
        try #require(tags.status == 200, "\(tags.errorText)")
        return profiles
    }

    /// The devices grouped by the profile each is in: the people, whatever their ids.
    static func people(_ profiles: [String: String]) -> Set<Set<String>> {
        Set(Dictionary(grouping: profiles.keys) { profiles[$0]! }.values.map(Set.init))
    }

    @Test(arguments: StoreFactory.all)
    func anExportImportedIntoAnotherServerGivesTheSameDevicesAndPeople(factory: StoreFactory) async throws {
        let source = try await InProcessServer(factory)
        defer { Task { await source.finish() } }
        let target = try await InProcessServer(factory)
        defer { Task { await target.finish() } }
        let sourceProfiles = try await Self.seed(source)
        #expect(Self.people(sourceProfiles).count == 5)

        let pages = try await Self.pages(source, limit: 2)
        #expect(pages.map { ($0["devices"] as? [Any])?.count } == [2, 2, 2, 1])
        #expect(pages.last?["next"] is NSNull)
        let exported = pages.flatMap { $0["devices"] as? [[String: Any]] ?? [] }
        let devices = Self.byToken(exported)
        #expect(Set(devices.keys) == ["ann-phone", "ann-tablet", "bob", "carl-1", "carl-2", "dora", "erin"])

        let ann = try #require(devices["ann-phone"])
        #expect(ann["provider"] as? String == "ios-apns" && ann["status"] as? String == "subscribed")
        #expect(ann["matching"] as? [String: String] == ["email": "ann@example.com"])
        #expect(ann.int("time") == 1_000)
        let annFields = try #require(ann["profile_fields"] as? [String: Any])
        #expect(annFields["_email"] as? String == "ann@example.com" && annFields["_fname"] as? String == "Ann")
        #expect(ann["custom_fields"] as? [String: String] == ["plan": "gold", "_os": "IOS"])
        #expect(NSArray(array: ann["cats"] as? [Any] ?? []) == NSArray(array: [["name": "news", "active": true]]))
        #expect(ann["tags"] as? [String: String] == ["tier": "gold", "city": "Paris"])
        #expect(ann["is_test"] as? Bool == true)
        #expect(devices["dora"]?["tags"] as? [String: String] == ["beta": "1"])
        #expect(devices.values.filter { $0["tags"] != nil }.count == 2, "no tags, no key")
        #expect(devices.values.filter { $0["is_test"] != nil }.count == 1, "no mark, no key")
        #expect(devices["ann-tablet"]?["apns_environment"] as? String == "sandbox")
        #expect(devices["ann-tablet"]?["status"] as? String == "suspended")
        #expect(devices["bob"]?["matching"] as? [String: String] == ["phone": "+1555"])
        #expect(devices["bob"]?["provider"] as? String == "ios-firebase")
        #expect(devices["bob"]?["status"] as? String == "unsubscribed")
        let carl = devices["carl-1"]?["matching"] as? [String: String]
        #expect(carl == ["field_name": "_tern_profile", "field_value": sourceProfiles["carl-1"]!])
        #expect(devices["carl-2"]?["matching"] as? [String: String] == carl)
        #expect(devices["dora"]?["matching"] == nil, "one device, nothing names her: a profile of its own")
        #expect(devices["erin"]?["matching"] == nil)
        #expect(devices["erin"]?["profile_fields"] as? [String: Int] == ["user_id": 42])

        // Each page is an import request as it is.
        var targetProfiles: [String: String] = [:]
        let put = try await target.admin(
            "PUT", "/resources/\(target.bootstrap.resourceId)/categories/news", json: ["title": "News"])
        try #require(put.status == 200)
        for page in pages {
            let pageDevices = try #require(page["devices"] as? [[String: Any]])
            let reply = try await target.admin(
                "POST", "/resources/\(target.bootstrap.resourceId)/devices/import", json: page)
            try #require(reply.status == 200, "\(reply.errorText)")
            let answer = reply.json
            #expect((answer["failed"] as? [Any])?.isEmpty == true, "\(answer)")
            let ids = try #require(answer["profile_ids"] as? [String])
            for (device, id) in zip(pageDevices, ids) { targetProfiles[device["subscription_id"] as! String] = id }
        }
        #expect(Self.people(targetProfiles) == Self.people(sourceProfiles))

        // The target's export is the source's, but for the field that now names Carl in it.
        let again = Self.byToken(
            try await Self.pages(target, limit: 1_000).flatMap { $0["devices"] as? [[String: Any]] ?? [] })
        #expect(Set(again.keys) == Set(devices.keys))
        for (token, device) in devices {
            var copied = try #require(again[token])
            if var fields = copied["profile_fields"] as? [String: Any], token.hasPrefix("carl") {
                #expect(fields.removeValue(forKey: "_tern_profile") as? String == sourceProfiles["carl-1"])
                copied["profile_fields"] = fields
            }
            #expect(NSDictionary(dictionary: copied) == NSDictionary(dictionary: device), "\(token)")
        }
        let shape = try #require(again["ann-phone"]?["profile_fields"] as? [String: Any])
        #expect(
            NSDictionary(dictionary: shape["shape"] as? [String: Any] ?? [:])
                == NSDictionary(dictionary: ["action": "set", "value": ["action": "incr", "value": 1]]),
            "the object is stored as it was (exported wrapped in a set)")

        // A device of Carl's that subscribes with the target's rToken alone stays in his profile.
        let subscribe = try await target.sdk(.pushSubscribe, InProcessServer.subscription(token: "carl-2", time: 9_000))
        #expect(subscribe.profile?.id == targetProfiles["carl-1"])
    }

    @Test(arguments: StoreFactory.all)
    func theCursorEndsWithNullAndABadOneIsRefused(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let empty = await Self.export(server)
        try #require(empty.status == 200, "\(empty.errorText)")
        #expect((empty.json["devices"] as? [Any])?.isEmpty == true)
        #expect(empty.json["next"] is NSNull)

        _ = try await Self.importDevices(server, (1...3).map { ["subscription_id": "t\($0)"] })
        let full = await Self.export(server, query: ["limit": "3"])
        #expect((full.json["devices"] as? [Any])?.count == 3)
        #expect(full.json["next"] is NSNull, "a full last page says it is the last")
        let first = await Self.export(server, query: ["limit": "2"])
        let next = try #require(first.json["next"] as? String)
        let rest = await Self.export(server, query: ["limit": "2", "after": next])
        let tokens = [first, rest].flatMap {
            ($0.json["devices"] as? [[String: Any]] ?? []).map { $0["subscription_id"] as? String }
        }
        #expect(tokens.count == 3 && Set(tokens) == ["t1", "t2", "t3"], "\(tokens)")
        #expect(rest.json["next"] is NSNull)

        for bad in [
            "", "nonsense", "d1.\(server.bootstrap.resourceId)", "d1.999.1", "d1.\(server.bootstrap.resourceId).x",
        ] {
            let reply = await Self.export(server, query: ["after": bad])
            #expect(reply.status == 400, "\(bad)")
            #expect(reply.errorText.contains("is not a cursor of resource"), "\(reply.errorText)")
        }
        for bad in ["0", "1001", "many"] {
            let reply = await Self.export(server, query: ["limit": bad])
            #expect(reply.status == 400, "\(bad)")
            #expect(reply.errorText.contains("from 1 to 1000"), "\(reply.errorText)")
        }
        #expect(await Self.export(server, query: ["limit": "1000"]).status == 200)
        #expect(await Self.export(server, resource: 999).status == 404)
        let mail = try await server.admin(
            "POST", "/resources",
            json: ["project_id": server.bootstrap.projectId, "name": "mail", "channels": ["email"]])
        let mailId = try #require(mail.json["id"] as? Int)
        let noPush = await Self.export(server, resource: Int64(mailId))
        #expect(noPush.status == 400)
        #expect(noPush.errorText.contains("has no push channel"))
    }

    @Test(arguments: StoreFactory.all)
    func onlyAKeyThatMayImportMayExport(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        func key(_ role: String, project: Int64) async throws -> String {
            let made = try await server.admin(
                "POST", "/keys", json: ["project_id": project, "role": role, "name": role])
            return try #require(made.json["secret"] as? String, "\(made.json)")
        }
        let project = server.bootstrap.projectId
        for role in ["read", "send"] {
            let reply = await Self.export(server, key: try await key(role, project: project))
            #expect(reply.status == 403, "\(role)")
            #expect(reply.errorText.contains("this needs a full key"), "\(reply.errorText)")
        }
        #expect(await Self.export(server, key: try await key("full", project: project)).status == 200)
        // A page of every token and profile field leaves a trace, as a change does.
        let audit = try await server.admin("GET", "/audit")
        let entry = audit.array.first { ($0["action"] as? String)?.hasPrefix("GET ") == true }
        #expect(
            entry?["target"] as? String == "/api/v1/admin/resources/\(server.bootstrap.resourceId)/devices/export",
            "\(audit.array)")
        let other = try await server.admin("POST", "/projects", json: ["name": "other"])
        let otherId = try #require(other.json["id"] as? Int)
        let stranger = await Self.export(server, key: try await key("full", project: Int64(otherId)))
        #expect(stranger.status == 404, "another project's key learns nothing of this resource")
        #expect(await server.send("GET", "/api/v1/admin/resources/1/devices/export").status == 401)
    }

    /// Each arm of a page reads the keyset index (resource, pushable, id) in id order and stops at
    /// the limit: no sort, no walk of the table, whatever the resource's size.
    @Test func aPageReadsTheKeysetIndexInOrderOnSQLite() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let store = try #require(server.store as? SQLiteStore)
        let plans = try await store.read { tx in
            let database = try #require(tx as? SQLiteTransaction).database
            return try SQLiteTransaction.exportPageQueries.map { query in
                try database.query("EXPLAIN QUERY PLAN " + query, [1, 0, 1000]).map { $0.string(3) ?? "" }
                    .joined(separator: "; ")
            }
        }
        for plan in plans {
            #expect(
                plan.contains("USING INDEX subscriptions_audience_keyset (resource_id=? AND pushable=? AND id>?)"),
                "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
        }
    }

    /// A page's tags are one read of the tags' primary key for up to 64 subscriptions, not one a row.
    @Test func aPagesTagsAreReadByTheirKeyInGroupsOnSQLite() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let store = try #require(server.store as? SQLiteStore)
        let plan = try await store.read { tx in
            let database = try #require(tx as? SQLiteTransaction).database
            return try database.query(
                "EXPLAIN QUERY PLAN " + SQLiteTransaction.exportTagsQuery(rows: 64), Array(1...64) as [Int64]
            ).map { $0.string(3) ?? "" }.joined(separator: "; ")
        }
        #expect(plan.contains("USING INDEX sqlite_autoindex_subscription_tags_1 (subscription_id=?)"), "\(plan)")
    }

    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aPagesTagsGenericPlanOnAnEmptyPostgresReadsTheirKey() async throws {
        let connection = try PostgresConnection(url: try await PostgresConnection.migratedSchema())
        try connection.prepare("export_tags", SQLiteTransaction.exportTagsQuery(rows: 64))
        let plan = try connection.plan("export_tags", (1...64).map { "\($0)" })
        #expect(plan.contains("subscription_tags_pkey"), "\(plan)")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
    }

    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aPagesGenericPlanOnAnEmptyPostgresReadsTheKeysetIndex() async throws {
        let connection = try PostgresConnection(url: try await PostgresConnection.migratedSchema())
        for (index, query) in SQLiteTransaction.exportPageQueries.enumerated() {
            try connection.prepare("export_page_\(index)", query)
            let plan = try connection.plan("export_page_\(index)", ["1", "0", "1000"])
            #expect(plan.contains("Index Scan using subscriptions_audience_keyset"), "\(plan)")
            #expect(!plan.contains("Sort") && !plan.contains("Seq Scan on subscriptions"), "\(plan)")
        }
    }
}
