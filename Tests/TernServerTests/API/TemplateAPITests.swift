import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `…/admin/templates` on each backend: templates are kept per project with unique names, their
/// content is checked as a message's (the same refusals), lists come in pages, and a project key
/// reaches its own project's templates only.
@Suite struct TemplateAPITests {
    static var welcome: [String: Any] {
        [
            "name": "Welcome", "title": "Welcome to Acme", "body": "Glad you're here", "sound": "default",
            "buttons": [["id": "start", "title": "Start", "action": "open"]], "data": ["screen": "home"],
            "localizations": ["es": ["title": "Bienvenido a Acme"]], "interruption_level": "time-sensitive",
        ]
    }

    @Test(arguments: StoreFactory.all)
    func templatesAreMadeShownChangedReplacedAndDeleted(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let project = server.bootstrap.projectId
        var body = Self.welcome
        body["project_id"] = project
        let made = try await server.admin("POST", "/templates", json: body)
        try #require(made.status == 201, "\(made.errorText)")
        let id = try #require(made.json["id"] as? Int)
        #expect(made.json["name"] as? String == "Welcome" && made.json["project_id"] as? Int64 == project)
        #expect(made.json["title"] as? String == "Welcome to Acme" && made.json["sound"] as? String == "default")
        #expect((made.json["localizations"] as? [String: Any])?["es"] != nil, "\(made.json)")
        #expect(made.json["created_at"] as? Int64 != nil && made.json["updated_at"] as? Int64 != nil)

        let shown = try await server.admin("GET", "/templates/\(id)")
        #expect(shown.status == 200 && shown.body == made.body, "\(shown.errorText)")

        // PATCH changes what it gives; a content field sent as null goes.
        let patched = try await server.admin(
            "PATCH", "/templates/\(id)", json: ["body": "Take a look around", "sound": NSNull()])
        try #require(patched.status == 200, "\(patched.errorText)")
        #expect(patched.json["body"] as? String == "Take a look around" && patched.json["sound"] == nil)
        #expect(patched.json["title"] as? String == "Welcome to Acme" && patched.json["name"] as? String == "Welcome")

        // PUT replaces the whole template: what it leaves out is gone.
        let replaced = try await server.admin(
            "PUT", "/templates/\(id)", json: ["name": "Hello", "title": "Hello", "badge": 1])
        try #require(replaced.status == 200, "\(replaced.errorText)")
        #expect(replaced.json["name"] as? String == "Hello" && replaced.json["badge"] as? Int == 1)
        #expect(replaced.json["body"] == nil && replaced.json["buttons"] == nil, "\(replaced.json)")
        let nameless = try await server.admin("PUT", "/templates/\(id)", json: ["title": "Hello"])
        #expect(nameless.status == 400 && nameless.errorText.contains("name is missing"), "\(nameless.errorText)")

        let deleted = try await server.admin("DELETE", "/templates/\(id)")
        #expect(deleted.status == 204)
        let gone = try await server.admin("GET", "/templates/\(id)")
        #expect(gone.status == 404 && gone.errorText.contains("template \(id) does not exist"), "\(gone.errorText)")
        let again = try await server.admin("DELETE", "/templates/\(id)")
        #expect(again.status == 404)
    }

    @Test(arguments: StoreFactory.all)
    func aNameIsUniqueInItsProjectOnly(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let project = server.bootstrap.projectId
        let first = try await server.admin(
            "POST", "/templates", json: ["project_id": project, "name": "Sale", "title": "Sale"])
        let firstId = try #require(first.json["id"] as? Int, "\(first.errorText)")
        let twice = try await server.admin(
            "POST", "/templates", json: ["project_id": project, "name": " Sale ", "title": "Other"])
        #expect(twice.status == 409, "\(twice.errorText)")
        #expect(
            twice.errorText.contains("project \(project) already has a template named Sale (template \(firstId))"),
            "\(twice.errorText)")

        let second = try await server.admin(
            "POST", "/templates", json: ["project_id": project, "name": "Sale 2", "title": "Sale"])
        let secondId = try #require(second.json["id"] as? Int)
        let renamed = try await server.admin("PATCH", "/templates/\(secondId)", json: ["name": "Sale"])
        #expect(renamed.status == 409 && renamed.errorText.contains("named Sale"), "\(renamed.errorText)")

        // Another project may have its own "Sale".
        let other = try await server.admin("POST", "/projects", json: ["name": "other"]).json.int("id")
        let elsewhere = try await server.admin(
            "POST", "/templates", json: ["project_id": other, "name": "Sale", "title": "Sale"])
        #expect(elsewhere.status == 201, "\(elsewhere.errorText)")
    }

    @Test(arguments: StoreFactory.all)
    func contentIsRefusedAsAMessageWouldBeNamingTheField(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let project = server.bootstrap.projectId
        let audience: [String: Any] = ["type": "resource", "resource_id": server.bootstrap.resourceId]
        let bad: [[String: Any]] = [
            ["title": String(repeating: "x", count: 1025)],
            ["title": "x", "media_url": "http://example.com/a.jpg"],
            ["title": "x", "badge": -1],
            ["title": "x", "buttons": [["id": "a", "title": "A", "action": "fly"]]],
            ["title": "x", "interruption_level": "loud"],
            ["title": "x", "data": ["aps": 1]],
            ["title": 5],
            ["sound": "default"],
        ]
        for content in bad {
            var template = content
            template["project_id"] = project
            template["name"] = "t"
            let refused = try await server.admin("POST", "/templates", json: template)
            var message = content
            message["audience"] = audience
            let asMessage = try await server.admin("POST", "/messages", json: message)
            #expect(refused.status == 400 && asMessage.status == 400, "\(content): \(refused.errorText)")
            #expect(refused.errorText == asMessage.errorText, "\(content)")
        }
        let unknown = try await server.admin(
            "POST", "/templates", json: ["project_id": project, "name": "t", "title": "x", "send_at": 5])
        #expect(unknown.status == 400, "\(unknown.errorText)")
        #expect(unknown.errorText.contains("send_at does not go in a template"), "\(unknown.errorText)")
        let nameless = try await server.admin("POST", "/templates", json: ["project_id": project, "title": "x"])
        #expect(nameless.status == 400 && nameless.errorText.contains("name must be 1 to 128"), "\(nameless.errorText)")
        let made = try await server.admin(
            "POST", "/templates", json: ["project_id": project, "name": "t", "title": "x"])
        let id = try #require(made.json["id"] as? Int)
        let patched = try await server.admin("PATCH", "/templates/\(id)", json: ["title": NSNull()])
        #expect(patched.status == 400 && patched.errorText.contains("needs a title or a body"), "\(patched.errorText)")
        let kept = try await server.admin("GET", "/templates/\(id)")
        #expect(kept.json["title"] as? String == "x", "a refused change leaves it as it was")
    }

    @Test(arguments: StoreFactory.all)
    func listsComeInPagesAndAProjectKeyReachesItsOwnTemplatesOnly(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let project = server.bootstrap.projectId
        let other = try await server.admin("POST", "/projects", json: ["name": "other"]).json.int("id")
        var ids: [Int] = []
        for index in 0..<5 {
            let made = try await server.admin(
                "POST", "/templates", json: ["project_id": project, "name": "t\(index)", "title": "T\(index)"])
            ids.append(try #require(made.json["id"] as? Int, "\(made.errorText)"))
        }
        let theirs = try await server.admin(
            "POST", "/templates", json: ["project_id": other, "name": "theirs", "title": "Theirs"])
        let theirId = try #require(theirs.json["id"] as? Int)

        let page = try await server.admin("GET", "/templates", query: ["project_id": "\(project)", "limit": "2"])
        #expect(page.array.map { $0["id"] as? Int } == Array(ids.prefix(2)), "\(page.array)")
        let next = try await server.admin(
            "GET", "/templates", query: ["project_id": "\(project)", "limit": "2", "after": "\(ids[1])"])
        #expect(next.array.map { $0["id"] as? Int } == Array(ids[2..<4]))
        let everything = try await server.admin("GET", "/templates")
        #expect(everything.array.count == 6)
        let badLimit = try await server.admin("GET", "/templates", query: ["limit": "0"])
        #expect(badLimit.status == 400 && badLimit.errorText.contains("limit must be"), "\(badLimit.errorText)")

        // The other project's key: its own template only, the first project's are not there for it.
        let key = try await server.admin("POST", "/keys", json: ["project_id": other, "role": "send", "name": "o"])
        let secret = try #require(key.json["secret"] as? String, "\(key.errorText)")
        func call(_ method: String, _ path: String, _ json: [String: Any]? = nil) async throws -> InProcessServer.Reply
        {
            await server.send(
                method, "/api/v1/admin" + path,
                body: try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data(),
                headers: ["Authorization": "Bearer \(secret)"])
        }
        let listed = try await call("GET", "/templates")
        #expect(listed.array.map { $0["id"] as? Int } == [theirId], "\(listed.array)")
        for (method, json) in [("GET", nil), ("PATCH", ["title": "mine"]), ("DELETE", nil)]
            as [(String, [String: Any]?)]
        {
            let refused = try await call(method, "/templates/\(ids[0])", json)
            #expect(refused.status == 404, "\(method): \(refused.errorText)")
            #expect(refused.errorText.contains("template \(ids[0]) is not in project \(other)"), "\(refused.errorText)")
        }
        let made = try await call("POST", "/templates", ["name": "mine", "title": "Mine"])
        #expect(made.status == 201 && made.json["project_id"] as? Int64 == other, "\(made.errorText)")
        let intoOther = try await call("POST", "/templates", ["project_id": project, "name": "x", "title": "x"])
        #expect(intoOther.status == 404, "\(intoOther.errorText)")
        let readOnly = try await server.admin(
            "POST", "/keys", json: ["project_id": other, "role": "read", "name": "r"])
        let reader = try #require(readOnly.json["secret"] as? String)
        let write = await server.send(
            "POST", "/api/v1/admin/templates",
            body: try JSONSerialization.data(withJSONObject: ["name": "r", "title": "r"]),
            headers: ["Authorization": "Bearer \(reader)"])
        #expect(write.status == 403, "\(write.errorText)")
    }
}
