import Foundation
import TernTestSupport
import Testing

/// Keys per project with roles, against a real `tern serve`: a project key reaches its project
/// only, as far as its role allows; only the server key does what is server-wide; rotation keeps
/// the old secret for its grace period and no longer; revocation is at once; every change is in
/// the audit log under its key's id, and no log line holds a key.
@Suite(.serialized) struct KeyRoleTests {
    /// A server with a second project `b`, and keys of project `a` (the bootstrap project) for each role.
    struct Fixture {
        let server: SecurityServer
        let b: Tenant
        var secrets: [String: String] = [:]
        var ids: [String: Int] = [:]

        var a: Tenant { server.first }

        static func start(_ arguments: [String] = []) async throws -> Fixture {
            let server = try await SecurityServer.start(arguments)
            var fixture = Fixture(server: server, b: try await server.createTenant("b"))
            for role in ["read", "send", "full"] {
                try await fixture.create("a-\(role)", project: fixture.a.projectId, role: role)
            }
            try await fixture.create("b-full", project: fixture.b.projectId, role: "full")
            return fixture
        }

        mutating func create(_ name: String, project: Int64?, role: String, with key: String? = nil) async throws {
            var body: [String: Any] = ["role": role, "name": name]
            if let project { body["project_id"] = project }
            let reply = try await call(key ?? server.process.adminKey, "POST", "/keys", body)
            try #require(reply.status == 201, "\(reply.text)")
            secrets[name] = try #require(reply.json?["secret"] as? String)
            ids[name] = try #require(reply.json?["id"] as? Int)
        }

        func call(_ key: String, _ method: String, _ path: String, _ json: Any? = nil) async throws
            -> JSONHTTPClient.Answer
        {
            let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
            return try await server.client.send(
                method, URL(string: server.process.apiURL.absoluteString + "/admin" + path)!, body: body,
                headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"])
        }

        func call(as name: String, _ method: String, _ path: String, _ json: Any? = nil) async throws
            -> JSONHTTPClient.Answer
        {
            try await call(secrets[name] ?? "", method, path, json)
        }

        func message(_ resourceId: Int64) -> [String: Any] {
            ["title": "hi", "body": "there", "audience": ["type": "resource", "resource_id": resourceId]]
        }
    }

    func expect(_ reply: JSONHTTPClient.Answer, _ status: Int, _ words: String, _ line: Int = #line) {
        #expect(reply.status == status, "line \(line): \(reply.text)")
        #expect(reply.text.contains(words), "line \(line): \(reply.text)")
        #expect(reply.json?["error"] as? Int == status, "line \(line): the envelope: \(reply.text)")
    }

    @Test func aProjectKeyReachesOnlyItsProjectAsFarAsItsRoleAllows() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.server.stop() } }
        let (a, b) = (f.a, f.b)

        // read: reads its project, nothing of b's, changes nothing.
        let resources = try await f.call(as: "a-read", "GET", "/resources")
        #expect(resources.status == 200)
        let projects = Set((resources.jsonArray ?? []).compactMap { ($0 as? [String: Any])?["project_id"] as? Int })
        #expect(projects == [Int(a.projectId)], "\(resources.text)")
        let listed = try await f.call(as: "a-read", "GET", "/projects")
        #expect(listed.jsonArray?.count == 1, "\(listed.text)")
        expect(
            try await f.call(as: "a-read", "GET", "/resources/\(b.resourceId)"), 404, "not in project \(a.projectId)")
        expect(try await f.call(as: "a-read", "GET", "/resources?project_id=\(b.projectId)"), 404, "not in project")
        expect(try await f.call(as: "a-read", "GET", "/projects/\(b.projectId)/jwt-keys"), 404, "not in project")
        expect(
            try await f.call(as: "a-read", "PUT", "/resources/\(a.resourceId)/categories/news", ["title": "N"]), 403,
            "role read")
        expect(try await f.call(as: "a-read", "POST", "/messages", f.message(a.resourceId)), 403, "needs a send key")

        // send: sends in its project (not to b's resource), changes no configuration.
        let sent = try await f.call(as: "a-send", "POST", "/messages", f.message(a.resourceId))
        #expect(sent.status == 201, "\(sent.text)")
        let messageId = try #require(sent.json?["id"] as? String)
        expect(try await f.call(as: "a-send", "POST", "/messages", f.message(b.resourceId)), 404, "not in project")
        expect(
            try await f.call(as: "a-send", "POST", "/projects/\(a.projectId)/pixels", ["sid": "p1"]), 403,
            "needs a full key"
        )
        expect(
            try await f.call(as: "a-send", "PUT", "/projects/\(a.projectId)/credentials/apns", ["x": 1]), 403,
            "role send")
        expect(try await f.call(as: "a-send", "POST", "/keys", ["role": "read"]), 403, "role send")

        // full: everything in its project, nothing of b's, nothing server-wide.
        let category = try await f.call(
            as: "a-full", "PUT", "/resources/\(a.resourceId)/categories/news", ["title": "News"])
        #expect(category.status == 200, "\(category.text)")
        expect(
            try await f.call(as: "a-full", "PUT", "/resources/\(b.resourceId)/categories/news", ["title": "N"]), 404,
            "not in project \(a.projectId)")
        expect(try await f.call(as: "a-full", "POST", "/projects", ["name": "c"]), 403, "needs a server key")
        expect(try await f.call(as: "a-full", "POST", "/keys", ["role": "server"]), 403, "only a server key")
        expect(
            try await f.call(as: "a-full", "POST", "/keys", ["role": "read", "project_id": b.projectId]), 404,
            "only project this key reaches")
        expect(
            try await f.call(
                as: "a-full", "POST", "/resources", ["project_id": b.projectId, "name": "x", "channels": ["push"]]),
            404,
            "not in project")
        let own = try await f.call(as: "a-full", "POST", "/keys", ["role": "read", "name": "made-by-full"])
        #expect(own.status == 201 && own.json?["project_id"] as? Int == Int(a.projectId), "\(own.text)")
        let keys = try await f.call(as: "a-full", "GET", "/keys")
        let keyProjects = Set((keys.jsonArray ?? []).map { ($0 as? [String: Any])?["project_id"] as? Int })
        #expect(keyProjects == [Int(a.projectId)], "a project key lists its project's keys only: \(keys.text)")
        #expect(!keys.text.contains("secret") && !keys.text.contains("digest"), "\(keys.text)")
        expect(try await f.call(as: "a-full", "DELETE", "/keys/\(f.ids["b-full"]!)"), 404, "not in project")

        // b's key does not see a's message; a's read key does.
        expect(try await f.call(as: "b-full", "GET", "/messages/\(messageId)"), 404, "not in project \(b.projectId)")
        expect(try await f.call(as: "b-full", "GET", "/messages/\(messageId)/stats"), 404, "not in project")
        #expect(try await f.call(as: "a-read", "GET", "/messages/\(messageId)/stats").status == 200)
        let overview = try await f.call(as: "b-full", "GET", "/overview")
        #expect((overview.json?["projects"] as? [Any])?.count == 1, "\(overview.text)")
        let recent = try await f.call(as: "b-full", "GET", "/messages")
        #expect(recent.jsonArray?.isEmpty == true, "b sees none of a's messages: \(recent.text)")

        // The server key reaches both projects; an unknown key nothing.
        #expect(try await f.call(f.server.process.adminKey, "GET", "/resources/\(b.resourceId)").status == 200)
        expect(try await f.call("tk_nothing", "GET", "/projects"), 401, "not recognised")
    }

    @Test func aRotatedSecretWorksForItsGracePeriodThenNotAndRevocationIsAtOnce() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.server.stop() } }
        let id = try #require(f.ids["a-send"])
        let old = try #require(f.secrets["a-send"])
        // An hour's grace: the old secret works (checked without a race against a short period).
        let rotated = try await f.call(f.server.process.adminKey, "POST", "/keys/\(id)/rotate", ["grace_seconds": 3600])
        #expect(rotated.status == 200, "\(rotated.text)")
        let new = try #require(rotated.json?["secret"] as? String)
        #expect(new != old && rotated.json?["id"] as? Int == id)
        #expect(try await f.call(new, "GET", "/projects").status == 200)
        #expect(try await f.call(old, "GET", "/projects").status == 200, "the old secret works during the grace period")

        // A second's grace: once it has passed, the secret it replaced stops (a key keeps one
        // previous secret, so the first one stopped at the rotation).
        let second = try await f.call(f.server.process.adminKey, "POST", "/keys/\(id)/rotate", ["grace_seconds": 1])
        let newer = try #require(second.json?["secret"] as? String)
        expect(try await f.call(old, "GET", "/projects"), 401, "not recognised")
        try await Task.sleep(for: .milliseconds(1500))
        expect(try await f.call(new, "GET", "/projects"), 401, "grace period has ended")
        #expect(try await f.call(newer, "GET", "/projects").status == 200)

        // Without a grace period the previous secret stops at once.
        let again = try await f.call(f.server.process.adminKey, "POST", "/keys/\(id)/rotate")
        let newest = try #require(again.json?["secret"] as? String)
        expect(try await f.call(newer, "GET", "/projects"), 401, "not recognised")
        expect(
            try await f.call(f.server.process.adminKey, "POST", "/keys/\(id)/rotate", ["grace_seconds": 999_999_999]),
            400, "grace_seconds must be 0 to")

        #expect(try await f.call(f.server.process.adminKey, "DELETE", "/keys/\(id)").status == 204)
        expect(try await f.call(newest, "GET", "/projects"), 401, "revoked")
        expect(try await f.call(f.server.process.adminKey, "POST", "/keys/\(id)/rotate"), 409, "is revoked")

        // The last server key cannot be revoked; once there is another, it can.
        let listed = try await f.call(f.server.process.adminKey, "GET", "/keys")
        let server = try #require(
            (listed.jsonArray ?? []).compactMap { $0 as? [String: Any] }.first { $0["role"] as? String == "server" })
        let serverId = try #require(server["id"] as? Int)
        expect(try await f.call(f.server.process.adminKey, "DELETE", "/keys/\(serverId)"), 409, "last server key")
    }

    @Test func everyChangeIsAuditedUnderItsKeyIdAndNoLogLineHoldsAKey() async throws {
        var f = try await Fixture.start()
        let server = f.server
        defer { Task { await server.stop() } }
        let fullId = try #require(f.ids["a-full"])
        #expect(
            try await f.call(as: "a-full", "POST", "/projects/\(f.a.projectId)/pixels", ["sid": "px"]).status == 201)
        #expect(
            try await f.call(as: "b-full", "POST", "/projects/\(f.b.projectId)/pixels", ["sid": "py"]).status == 201)
        try await f.create("a-more", project: f.a.projectId, role: "read", with: f.secrets["a-full"])
        _ = try await f.call(as: "a-read", "POST", "/projects/\(f.a.projectId)/pixels", ["sid": "refused"])

        let all = try await f.call(f.server.process.adminKey, "GET", "/audit")
        #expect(all.status == 200, "\(all.text)")
        let entries = (all.jsonArray ?? []).compactMap { $0 as? [String: Any] }
        let pixel = try #require(
            entries.first {
                ($0["target"] as? String)?.hasSuffix("/pixels") == true
                    && $0["key_id"] as? Int == fullId
            }, "\(all.text)")
        #expect(pixel["action"] as? String == "POST /api/v1/admin/projects/{project_id}/pixels")
        #expect(pixel["project_id"] as? Int == Int(f.a.projectId) && pixel["status"] as? Int == 201)
        #expect((pixel["detail"] as? String)?.contains("sid=px") == true, "\(pixel)")
        let created = try #require(
            entries.first {
                $0["action"] as? String == "POST /api/v1/admin/keys"
                    && $0["key_id"] as? Int == fullId
            })
        #expect((created["detail"] as? String)?.contains("id=\(f.ids["a-more"]!)") == true, "\(created)")
        #expect(!all.text.contains("refused"), "a refused change changed nothing and is not audited")
        for secret in f.secrets.values { #expect(!all.text.contains(secret)) }

        let own = try await f.call(as: "a-full", "GET", "/audit")
        let projects = Set((own.jsonArray ?? []).map { ($0 as? [String: Any])?["project_id"] as? Int })
        #expect(projects == [Int(f.a.projectId)], "a project key reads its project's audit log only: \(own.text)")
        expect(try await f.call(as: "a-read", "GET", "/audit"), 403, "role read")

        let log = f.server.process.log()
        for secret in f.secrets.values + [f.server.process.adminKey] {
            #expect(!log.contains(secret), "a key's secret is in the log")
        }
        let lines = log.split(separator: "\n").filter { $0.contains("\"route\":\"/api/v1/admin/") }
        #expect(!lines.isEmpty)
        for line in lines where !line.contains("\"status\":401") {
            #expect(line.contains("\"key_id\":"), "a management request's log line without its key id: \(line)")
        }
        #expect(lines.contains { $0.contains("\"key_id\":\(fullId)") })
    }

    @Test func ternKeysCreatesListsRotatesAndRevokes() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.server.stop() } }
        let connection = ["--url", f.server.process.apiURL.absoluteString]
        let environment = ["TERN_ADMIN_KEY": f.server.process.adminKey]
        let created = try await tern(
            ["keys", "create", "--role", "send", "--project", "\(f.a.projectId)", "--name", "cli"] + connection,
            environment)
        #expect(created.status == 0, "\(created.output)")
        let made = try #require(
            try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: Any], "\(created.output)")
        let secret = try #require(made["secret"] as? String)
        let id = try #require(made["id"] as? Int)
        #expect(made["role"] as? String == "send")

        // The new key works as a key of its own for the command line.
        let listed = try await tern(["keys", "list"] + connection, ["TERN_ADMIN_KEY": secret])
        #expect(
            listed.status != 0 && listed.output.contains("role send"), "a send key cannot list keys: \(listed.output)")
        let all = try await tern(["keys", "list", "--project", "\(f.a.projectId)"] + connection, environment)
        #expect(all.status == 0 && all.output.contains("\"cli\"") && !all.output.contains(secret), "\(all.output)")

        let rotated = try await tern(["keys", "rotate", "\(id)", "--grace", "60"] + connection, environment)
        #expect(rotated.status == 0 && rotated.output.contains("previous_expires_at"), "\(rotated.output)")
        let revoked = try await tern(["keys", "revoke", "\(id)"] + connection, environment)
        #expect(revoked.status == 0, "\(revoked.output)")
        let audit = try await tern(["audit", "list", "--project", "\(f.a.projectId)"] + connection, environment)
        #expect(audit.status == 0 && audit.output.contains("/keys/\(id)/rotate"), "\(audit.output)")
        let wrong = try await tern(["keys", "create", "--project", "1"] + connection, environment)
        #expect(wrong.status != 0 && wrong.output.contains("--role"), "\(wrong.output)")
        let moved = try await tern(["keys", "add", "1", "k", "HS256"] + connection, environment)
        #expect(moved.status != 0 && moved.output.contains("tern jwt-keys"), "\(moved.output)")
    }

    /// `tern <arguments>`, its standard output and error together.
    func tern(_ arguments: [String], _ environment: [String: String]) async throws -> (status: Int32, output: String) {
        let run = try await TernCommand.run(arguments, environment: environment)
        return (run.status, run.output + run.error)
    }
}
