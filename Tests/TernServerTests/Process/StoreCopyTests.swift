import Foundation
import TernProtocol
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// `tern store copy`: a server filled through its API on SQLite, copied into an empty PostgreSQL,
/// then served from it reads back the same and keeps working (new ids, the APNs credential); a
/// database with data, an older SQLite file and a running server are refused; a row PostgreSQL
/// refuses leaves the database empty.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.url != nil)) struct StoreCopyTests {
    /// Management calls with a key, against a server's API URL.
    struct Admin {
        let api: URL
        let key: String

        func call(_ method: String, _ path: String, _ json: Any? = nil) async throws -> JSONHTTPClient.Answer {
            let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
            var headers = ["Authorization": "Bearer \(key)"]
            if body != nil { headers["Content-Type"] = "application/json" }
            return try await JSONHTTPClient().send(
                method, api.appendingPathComponent("admin" + path), body: body, headers: headers)
        }

        /// A call that must answer `status`; its JSON object.
        @discardableResult
        func expect(_ status: Int, _ method: String, _ path: String, _ json: Any? = nil) async throws
            -> [String: Any]
        {
            let answer = try await call(method, path, json)
            try #require(answer.status == status, "\(method) \(path): \(answer.status) \(answer.text)")
            return answer.json ?? [:]
        }

        /// A GET's body as parsed JSON, for comparing before and after the copy.
        func reading(_ path: String) async throws -> NSObject {
            let answer = try await call("GET", path)
            try #require(answer.status == 200, "GET \(path): \(answer.status) \(answer.text)")
            return try JSONSerialization.jsonObject(with: answer.body) as? NSObject ?? NSNull()
        }
    }

    static func sdk(_ api: URL, _ endpoint: Endpoint, _ rToken: String, _ json: [String: Any]) async throws
        -> JSONHTTPClient.Answer
    {
        let root = URL(string: api.absoluteString.replacingOccurrences(of: "/api/v1", with: ""))!
        return try await JSONHTTPClient().post(
            root.appendingPathComponent(endpoint.path), json: json, headers: [Wire.rTokenHeader: rToken])
    }

    /// Waits until the message's stats say it is done; returns them.
    static func finished(_ admin: Admin, _ message: String) async throws -> [String: Any] {
        var stats: [String: Any] = [:]
        for _ in 0..<400 {
            stats = try await admin.expect(200, "GET", "/messages/\(message)/stats")
            if stats["done"] as? Bool == true { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return stats
    }

    @Test func aFilledStoreReadsBackTheSameOnPostgreSQLAndKeepsSending() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let server = try await ServerProcess.start(arguments: [
            "--apns-production-url", fixture.peer.origin.absoluteString, "--provider-ca-file", fixture.peer.caFile,
        ])
        defer { Task { await server.stop() } }
        try await fixture.configure(server)
        let admin = Admin(api: server.apiURL, key: server.adminKey)
        let project = server.projectId
        let resource = server.resourceId

        // Tenancy, keys, a category.
        let second = try await admin.expect(201, "POST", "/projects", ["name": "second"])
        let secret = "copy-secret-" + String(repeating: "x", count: 32)
        try await admin.expect(
            201, "POST", "/projects/\(project)/jwt-keys", ["kid": "k1", "algorithm": "HS256", "key": secret])
        try await admin.expect(200, "PUT", "/resources/\(resource)/categories/news", ["title": "News", "steady": true])

        // Three devices with fields, a category and a tag each; one's tag puts it in the segment.
        var profiles: [String] = []
        for number in 1...3 {
            let subscribed = try await Self.sdk(
                server.apiURL, .pushSubscribe, server.rToken,
                [
                    "time": 1000, "provider": "ios-apns", "subscription_id": APNsFixture.token(number), "sync": true,
                    "profile_fields": ["plan": number == 1 ? "gold" : "free", "visits": number],
                    "cats": [["name": "news", "active": true]],
                ])
            try #require(subscribed.status == 200, "\(subscribed.text)")
            let profile = (subscribed.json?["profile"] as? [String: Any])?["id"] as? String
            profiles.append(try #require(profile, "\(subscribed.text)"))
            let tagged = try await Self.sdk(
                server.apiURL, .profileTagsSet, server.rToken,
                [
                    "provider": "ios-apns", "subscription_id": APNsFixture.token(number),
                    "tags": ["tier": number == 1 ? "gold" : "basic"],
                ])
            try #require(tagged.status == 200, "\(tagged.text)")
        }
        let segment = try await admin.expect(
            201, "POST", "/segments",
            [
                "project_id": project, "name": "gold", "resource_id": resource,
                "filter": ["field": "tags.tier", "op": "=", "value": "gold"],
            ])
        let segmentId = try #require(segment["id"] as? Int)
        let template = try await admin.expect(
            201, "POST", "/templates", ["project_id": project, "name": "Welcome", "title": "Hi", "sound": "default"])
        let templateId = try #require(template["id"] as? Int)

        // A sent message, with a delivery and an open reported by the first device.
        let sent = try await admin.expect(
            201, "POST", "/messages",
            ["title": "Hi", "body": "before", "audience": ["type": "resource", "resource_id": resource]])
        let message = try #require(sent["id"] as? String)
        let before = try await Self.finished(admin, message)
        try #require(before["sent"] as? Int == 3, "\(before)")
        let pushed = try await fixture.peer.accepted().first { $0["token"] as? String == APNsFixture.token(1) }
        let pushId = try #require(
            ((pushed?["payload"] as? [String: Any])?["tern"] as? [String: Any])?["message_id"] as? String,
            "\(String(describing: pushed))")
        let reported = try await Self.sdk(
            server.apiURL, .eventPush, server.rToken,
            [
                "provider": "ios-apns", "subscription_id": APNsFixture.token(1),
                "events": [
                    ["message_id": pushId, "type": "delivery", "time": 2000],
                    ["message_id": pushId, "type": "open", "time": 3000],
                ],
            ])
        try #require(reported.status == 200, "\(reported.text)")

        // An in-app campaign, an inbox entry, a webhook.
        let campaign = try await admin.expect(
            201, "POST", "/inapp/campaigns",
            [
                "project_id": project, "resource_id": resource, "name": "welcome", "display_type": "modal",
                "triggers": [["type": "open_app"]], "content": ["kind": "template", "template": ["title": "Hello"]],
            ])
        let campaignId = try #require(campaign["id"] as? String)
        try await admin.expect(200, "POST", "/inapp/campaigns/\(campaignId)/start")
        try await admin.expect(
            201, "POST", "/inbox", ["title": "Welcome", "audience": ["type": "profile", "profile_id": profiles[0]]])
        try await admin.expect(
            201, "POST", "/projects/\(project)/webhooks", ["url": "http://127.0.0.1:9/hook", "events": ["push.sent"]])

        let paths = [
            "/projects", "/projects/\(project)/jwt-keys", "/resources/\(resource)/categories",
            "/resources/\(resource)", "/messages/\(message)/stats", "/messages/\(message)", "/segments/\(segmentId)",
            "/templates/\(templateId)",
            "/inapp/campaigns/\(campaignId)", "/profiles/\(profiles[0])",
            "/profiles/\(profiles[1])", "/profiles/\(profiles[0])/inbox", "/projects/\(project)/credentials",
        ]
        // The open counted by hour first (every ten seconds, two passes: the opens stored before the
        // last pass): read before, the copy's server would count it between the two reads.
        let deadline = Date().addingTimeInterval(60)
        while try await admin.expect(200, "GET", "/profiles/\(profiles[0])")["usual_open_hour"] == nil {
            try #require(Date() < deadline, "the open was never counted by hour")
            try await Task.sleep(for: .milliseconds(500))
        }
        var readings: [String: NSObject] = [:]
        for path in paths { readings[path] = try await admin.reading(path) }
        let webhooks = try await admin.reading("/projects/\(project)/webhooks")
        await server.kill(signal: SIGTERM)

        // The copy, with the command an operator runs.
        let url = try PostgresTestDatabase.freshSchemaURL()
        let data = server.dataDirectory.path("data")
        let copied = try await TernCommand.run(
            ["store", "copy", "--data", data], environment: ["TERN_DATABASE_URL": url])
        try #require(copied.status == 0, "tern store copy: \(copied.output) \(copied.error)")
        #expect(copied.output.contains("Rows by table:"), "\(copied.output)")
        #expect(copied.output.contains("Provider credentials, now in the database: project \(project) apns"))
        #expect(copied.output.contains("tern serve --database"), "\(copied.output)")
        #expect(!copied.output.contains(":tern@"), "the password is not printed")
        for table in [
            "projects", "subscriptions", "deliveries", "segments", "templates", "inapp_campaigns", "inbox_messages",
        ] {
            #expect(copied.output.range(of: "\n  \(table) +[1-9]", options: .regularExpression) != nil, "\(table)")
        }

        // Served from PostgreSQL on another machine: its data directory holds bootstrap.json alone,
        // so the APNs credential can only come from the database.
        let elsewhere = try TemporaryDirectory(prefix: "store-copy-node")
        defer { elsewhere.remove() }
        try FileManager.default.createDirectory(
            atPath: elsewhere.path("data"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(
            atPath: data + "/bootstrap.json", toPath: elsewhere.path("data/bootstrap.json"))
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = elsewhere.path("data")
        configuration.databaseURL = url
        configuration.providers.apnsProduction = fixture.peer.origin
        configuration.providers.caFile = fixture.peer.caFile
        configuration.logLevel = .error
        let app = try await TernServerApp.start(configuration, logger: Logger(minimum: .error, sink: { _ in }))
        defer { Task { await app.stop() } }
        #expect(app.bootstrapOutcome == .reused, "the admin key and the bootstrap resource are the same")
        #expect(app.bootstrap.adminKey == server.adminKey)
        let moved = Admin(api: URL(string: app.bootstrap.apiURL)!, key: server.adminKey)
        for path in paths {
            let after = try await moved.reading(path)
            #expect(after == readings[path], "GET \(path) differs:\n\(readings[path] ?? NSNull())\n\(after)")
        }
        #expect(try await moved.reading("/projects/\(project)/webhooks") == webhooks)
        let stats = try await moved.expect(200, "GET", "/messages/\(message)/stats")
        #expect(stats["sent"] as? Int == 3 && stats["opened"] as? Int == 1, "\(stats)")
        let person = try await moved.expect(200, "GET", "/profiles/\(profiles[0])")
        #expect((person["fields"] as? [String: Any])?["plan"] as? String == "gold", "\(person)")
        #expect((person["fields"] as? [String: Any])?["visits"] as? Int == 1, "\(person)")
        let preview = try await moved.expect(200, "GET", "/segments/\(segmentId)/preview")
        #expect(preview["count"] as? Int == 1, "\(preview)")

        // New rows get new ids: a project, a segment, a device, and a message sent with the copied
        // credential to all four devices.
        let third = try await moved.expect(201, "POST", "/projects", ["name": "third"])
        #expect(third["id"] as? Int == (second["id"] as? Int ?? 0) + 1, "\(third)")
        let another = try await moved.expect(
            201, "POST", "/segments",
            [
                "project_id": project, "name": "basic", "resource_id": resource,
                "filter": ["field": "tags.tier", "op": "=", "value": "basic"],
            ])
        #expect(another["id"] as? Int == segmentId + 1, "\(another)")
        let nextTemplate = try await moved.expect(
            201, "POST", "/templates", ["project_id": project, "name": "Later", "title": "Later"])
        #expect(nextTemplate["id"] as? Int == templateId + 1, "\(nextTemplate)")
        let fourth = try await Self.sdk(
            moved.api, .pushSubscribe, server.rToken,
            ["time": 1000, "provider": "ios-apns", "subscription_id": APNsFixture.token(4), "sync": true])
        try #require(fourth.status == 200, "\(fourth.text)")
        let acceptedBefore = try await fixture.peer.accepted().count
        let after = try await moved.expect(
            201, "POST", "/messages",
            ["title": "Hi", "body": "after", "audience": ["type": "resource", "resource_id": resource]])
        let newMessage = try #require(after["id"] as? String)
        #expect(newMessage != message)
        let done = try await Self.finished(moved, newMessage)
        #expect(done["sent"] as? Int == 4 && done["failed"] as? Int == 0, "\(done)")
        #expect(try await fixture.peer.accepted().count == acceptedBefore + 4, "sent through the copied credential")
    }

    @Test func aRunningServerAnOlderFileAndADatabaseWithDataAreRefused() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let data = server.dataDirectory.path("data")
        let url = try PostgresTestDatabase.freshSchemaURL()
        let running = try await TernCommand.run(["store", "copy", "--data", data, "--database", url])
        #expect(running.status == 1, "\(running.output) \(running.error)")
        #expect(running.error.contains("stop the server first"), "\(running.error)")
        #expect(try Self.tables(url).isEmpty, "nothing was written")
        await server.kill(signal: SIGTERM)

        let first = try await TernCommand.run(["store", "copy", "--data", data, "--database", url])
        try #require(first.status == 0, "\(first.output) \(first.error)")
        let rows = try Self.rowCounts(url)
        let again = try await TernCommand.run(["store", "copy", "--data", data, "--database", url])
        #expect(again.status == 1)
        #expect(again.error.contains("already has data") && again.error.contains("copy into an empty database"))
        #expect(try Self.rowCounts(url) == rows, "the database is as it was")

        let old = try TemporaryDirectory(prefix: "store-copy-old")
        defer { old.remove() }
        do {
            // Closed before the copy, which refuses a file another process has open.
            let database = try SQLiteDatabase(path: old.path("tern.sqlite"))
            try database.migrate(Array(SQLiteMigrations.all.prefix(20)))
        }
        let fresh = try PostgresTestDatabase.freshSchemaURL()
        let older = try await TernCommand.run(["store", "copy", "--data", old.url.path, "--database", fresh])
        #expect(older.status == 1)
        #expect(
            older.error.contains("schema version 20, this tern's is \(SQLiteMigrations.all.count)")
                && older.error.contains("start this version's tern serve"), "\(older.error)")
        #expect(try Self.tables(fresh).isEmpty)

        let missing = try await TernCommand.run(["store", "copy", "--data", old.path("nothing"), "--database", fresh])
        #expect(missing.status == 1 && missing.error.contains("no Tern store at"), "\(missing.error)")
    }

    @Test func aRowPostgreSQLRefusesLeavesTheDatabaseEmpty() async throws {
        let directory = try TemporaryDirectory(prefix: "store-copy-bad")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("tern.sqlite"))
        _ = try await store.write { tx in
            let project = try tx.createProject(name: "app", audience: nil, now: 1)
            let database = try tx.createDatabase(projectId: project.id, name: "main", now: 1)
            return try tx.createResource(
                projectId: project.id, dbId: database.id, name: "push", channels: [.push], rToken: "rt_bad", now: 1)
        }
        await store.close()
        // A category of a resource that is not there: SQLite lets it in with its keys off,
        // PostgreSQL's foreign key refuses it, after the tables before it were copied.
        do {
            let file = try SQLiteDatabase(path: directory.path("tern.sqlite"))
            try file.execute("PRAGMA foreign_keys = OFF")
            try file.run("INSERT INTO categories (resource_id, name, title, steady) VALUES (99, 'news', 'News', 0)")
        }
        let url = try PostgresTestDatabase.freshSchemaURL()
        #expect {
            try StoreCopy.run(dataDirectory: directory.url.path, databaseURL: url)
        } throws: { error in
            let reason = "\(error)"
            return reason.contains("PostgreSQL refused a row of categories") && reason.contains("foreign key")
        }
        #expect(try Self.tables(url).isEmpty, "no table, no version: the database is as it was")
    }

    @Test func theCatalogsExceptionsAreExactlyTheSchemasDifferences() async throws {
        let directory = try TemporaryDirectory(prefix: "store-copy-schemas")
        defer { directory.remove() }
        let sqlite = try SQLiteDatabase(path: directory.path("tern.sqlite"))
        try sqlite.migrate(SQLiteMigrations.all)
        var sqliteTables: [String: Set<String>] = [:]
        for row in try sqlite.query("SELECT name FROM sqlite_schema WHERE type = 'table'") {
            let name = try #require(row.string(0))
            guard !StoreCopyCatalog.isSQLiteOwn(name) else { continue }
            sqliteTables[name] = Set(
                try sqlite.query("SELECT name FROM pragma_table_info(?)", [name]).compactMap { $0.string(0) })
        }
        let connection = try PostgresConnection(url: try PostgresTestDatabase.freshSchemaURL())
        try connection.execute("BEGIN")
        try PostgresStore.migrateInTransaction(connection)
        let target = try StoreCopyTarget(connection)
        let postgresTables = target.tables.mapValues { Set($0.map(\.name)) }
        #expect(
            Set(postgresTables.keys).subtracting(sqliteTables.keys) == Set(StoreCopyCatalog.postgresOnlyTables.keys))
        #expect(Set(sqliteTables.keys).subtracting(postgresTables.keys).isEmpty)
        var postgresOnly: Set<String> = []
        var sqliteOnly: Set<String> = []
        for (table, columns) in sqliteTables {
            let other = postgresTables[table] ?? []
            postgresOnly.formUnion(other.subtracting(columns).map { "\(table).\($0)" })
            sqliteOnly.formUnion(columns.subtracting(other).map { "\(table).\($0)" })
        }
        #expect(postgresOnly == Set(StoreCopyCatalog.postgresOnlyColumns.keys))
        #expect(sqliteOnly == Set(StoreCopyCatalog.sqliteOnlyColumns.keys))
        // A fresh schema holds rows only where the migrations put them.
        var filled: Set<String> = []
        for table in target.tables.keys where table != "tern_schema" {
            if try connection.queryFirst("SELECT EXISTS (SELECT 1 FROM \(StoreCopy.quoted(table)))")?.bool(0) == true {
                filled.insert(table)
            }
        }
        #expect(filled == Set(StoreCopyCatalog.seededByMigrations.keys))
        try connection.execute("ROLLBACK")
    }

    /// The tables in the URL's schema.
    static func tables(_ url: String) throws -> [String] {
        try PostgresConnection(url: url).query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ).compactMap { $0.string(0) }
    }

    /// Every table's row count in the URL's schema.
    static func rowCounts(_ url: String) throws -> [String: Int64] {
        let connection = try PostgresConnection(url: url)
        var counts: [String: Int64] = [:]
        for table in try tables(url) {
            counts[table] = try connection.queryFirst("SELECT count(*) FROM \(StoreCopy.quoted(table))")?.int(0)
        }
        return counts
    }
}
