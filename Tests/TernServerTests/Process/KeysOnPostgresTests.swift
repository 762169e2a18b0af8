import Foundation
import TernTestSupport
import Testing

/// Keys, rotation, revocation and the audit log through a real `tern serve` on PostgreSQL (the
/// security suite runs the same on SQLite): what is stored is the backend's business.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.url != nil)) struct KeysOnPostgresTests {
    func call(_ server: ServerProcess, _ key: String, _ method: String, _ path: String, _ json: Any? = nil)
        async throws -> JSONHTTPClient.Answer
    {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        return try await JSONHTTPClient().send(
            method, server.url("admin" + path), body: body,
            headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"])
    }

    @Test func aProjectKeyIsScopedRotatedWithGraceRevokedAndAudited() async throws {
        let server = try await ServerProcess.start(arguments: ["--database", try PostgresTestDatabase.freshSchemaURL()])
        defer { Task { await server.stop() } }
        let admin = server.adminKey
        let other = try await call(server, admin, "POST", "/projects", ["name": "other"])
        let otherId = try #require(other.json?["id"] as? Int, "\(other.text)")
        let made = try await call(server, admin, "POST", "/keys", ["project_id": server.projectId, "role": "read"])
        #expect(made.status == 201, "\(made.text)")
        let id = try #require(made.json?["id"] as? Int)
        let old = try #require(made.json?["secret"] as? String)

        #expect(try await call(server, old, "GET", "/resources/\(server.resourceId)").status == 200)
        #expect(try await call(server, old, "GET", "/projects/\(otherId)/databases").status == 404)
        #expect(try await call(server, old, "POST", "/projects/\(server.projectId)/pixels", ["sid": "x"]).status == 403)

        // An hour's grace, then a second's: the first shows the old secret working without a race
        // against the clock, the second shows the secret it replaced stopping once it has passed.
        let rotated = try await call(server, admin, "POST", "/keys/\(id)/rotate", ["grace_seconds": 3600])
        let new = try #require(rotated.json?["secret"] as? String, "\(rotated.text)")
        #expect(try await call(server, old, "GET", "/projects").status == 200, "within the grace period")
        let second = try await call(server, admin, "POST", "/keys/\(id)/rotate", ["grace_seconds": 1])
        let newer = try #require(second.json?["secret"] as? String, "\(second.text)")
        try await Task.sleep(for: .milliseconds(1500))
        #expect(try await call(server, new, "GET", "/projects").status == 401, "after the grace period")
        #expect(try await call(server, newer, "GET", "/projects").status == 200)
        #expect(try await call(server, admin, "DELETE", "/keys/\(id)").status == 204)
        #expect(try await call(server, newer, "GET", "/projects").status == 401)

        let audit = try await call(server, admin, "GET", "/audit")
        let actions = (audit.jsonArray ?? []).compactMap { ($0 as? [String: Any])?["action"] as? String }
        #expect(actions.contains("POST /api/v1/admin/keys/{key_id}/rotate"), "\(audit.text)")
        #expect(actions.contains("DELETE /api/v1/admin/keys/{key_id}"), "\(audit.text)")
        #expect(actions.contains("POST /api/v1/admin/projects"), "\(audit.text)")
        #expect(!audit.text.contains(new) && !audit.text.contains(old) && !audit.text.contains(newer))
    }
}
