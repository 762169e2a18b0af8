import Foundation
import TernTestSupport
import Testing

/// The dashboard signs in with project keys, against a real `tern serve`: the session is scoped to
/// the key's project and role, CSRF still guards changes, and failed sign-ins are limited per address.
@Suite(.serialized) struct DashboardKeyTests {
    struct Session {
        let cookie: String
        let csrf: String
        let answer: [String: Any]
    }

    func signIn(_ server: SecurityServer, _ key: String) async throws -> JSONHTTPClient.Answer {
        // A client of its own, so the cookie is not kept and resent behind the test's back.
        try await JSONHTTPClient().post(server.process.rootURL("/dashboard/session"), json: ["key": key])
    }

    func session(_ server: SecurityServer, _ key: String) async throws -> Session {
        let reply = try await signIn(server, key)
        try #require(reply.status == 201, "\(reply.text)")
        let cookie = try #require(reply.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let answer = try #require(reply.json)
        return Session(cookie: cookie, csrf: try #require(answer["csrf_token"] as? String), answer: answer)
    }

    func browse(
        _ server: SecurityServer, _ session: Session, _ method: String, _ path: String, _ json: Any? = nil,
        csrf: Bool = true
    ) async throws -> JSONHTTPClient.Answer {
        var headers = ["Cookie": session.cookie, "Content-Type": "application/json"]
        if csrf { headers["X-CSRF-Token"] = session.csrf }
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        return try await JSONHTTPClient().send(
            method, URL(string: server.process.apiURL.absoluteString + "/admin" + path)!, body: body, headers: headers)
    }

    func key(_ server: SecurityServer, project: Int64, role: String) async throws -> String {
        let reply = try await server.admin("POST", "/keys", json: ["project_id": project, "role": role])
        try #require(reply.status == 201, "\(reply.text)")
        return try #require(reply.json?["secret"] as? String)
    }

    @Test func aProjectKeysSessionSeesItsProjectOnlyAndAReadSessionCannotSend() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let a = server.first
        let b = try await server.createTenant("b")
        let read = try await session(server, try await key(server, project: a.projectId, role: "read"))
        #expect(read.answer["role"] as? String == "read")
        #expect(read.answer["project_id"] as? Int == Int(a.projectId))
        #expect(read.answer["key_id"] is Int)

        let overview = try await browse(server, read, "GET", "/overview")
        #expect(overview.status == 200, "\(overview.text)")
        let projects = (overview.json?["projects"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
        #expect(projects == [Int(a.projectId)], "\(overview.text)")
        let resources = (overview.json?["resources"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
        #expect(!resources.contains(Int(b.resourceId)), "\(overview.text)")
        let other = try await browse(server, read, "GET", "/resources/\(b.resourceId)")
        #expect(other.status == 404 && other.text.contains("not in project"), "\(other.text)")
        let message: [String: Any] = [
            "title": "t", "body": "b", "audience": ["type": "resource", "resource_id": a.resourceId],
        ]
        let sent = try await browse(server, read, "POST", "/messages", message)
        #expect(sent.status == 403 && sent.text.contains("needs a send key"), "\(sent.text)")
        // The session answer says the same after a reload.
        let again = try await JSONHTTPClient().get(
            server.process.rootURL("/dashboard/session"), headers: ["Cookie": read.cookie])
        #expect(again.json?["role"] as? String == "read", "\(again.text)")

        // A send session sends in its project; CSRF is still required for it.
        let send = try await session(server, try await key(server, project: a.projectId, role: "send"))
        let noCSRF = try await browse(server, send, "POST", "/messages", message, csrf: false)
        #expect(noCSRF.status == 403 && noCSRF.text.contains("CSRF"), "\(noCSRF.text)")
        let accepted = try await browse(server, send, "POST", "/messages", message)
        #expect(accepted.status == 201, "\(accepted.text)")
        let elsewhere: [String: Any] = [
            "title": "t", "body": "b", "audience": ["type": "resource", "resource_id": b.resourceId],
        ]
        let refused = try await browse(server, send, "POST", "/messages", elsewhere)
        #expect(refused.status == 404, "\(refused.text)")
        let listed = try await browse(server, read, "GET", "/messages")
        #expect(listed.jsonArray?.count == 1, "\(listed.text)")
    }

    @Test func failedSignInsFromOneAddressAreLimitedWithRetryAfter() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        for attempt in 1...5 {
            let wrong = try await signIn(server, "tk_wrong_\(attempt)")
            #expect(wrong.status == 401, "\(wrong.text)")
        }
        let limited = try await signIn(server, "tk_wrong_6")
        #expect(limited.status == 429, "\(limited.text)")
        #expect(limited.json?["error"] as? Int == 429)
        #expect(limited.text.contains("too many failed sign-ins"), "\(limited.text)")
        let seconds = try #require(limited.header("Retry-After").flatMap { Int($0) }, "\(limited.headers)")
        #expect((1...60).contains(seconds))
        // While limited, even the right key waits: the limit is what stops guessing.
        let right = try await signIn(server, server.process.adminKey)
        #expect(right.status == 429, "\(right.text)")
        // The management API with a bearer key is not the sign-in form, and is not limited by it.
        #expect(try await server.admin("GET", "/projects").status == 200)
    }
}
