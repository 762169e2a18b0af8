import Foundation
import TernTestSupport
import Testing

/// `tern template` and `tern send --template` against a running server: a template is made from
/// `tern send`'s content options, listed, shown, changed and deleted, and a send fills what its
/// options leave out from it.
@Suite(.serialized) struct TemplateCommandTests {
    static func tern(_ arguments: [String], server: ServerProcess) async throws -> (Int32, String, String) {
        try await TernCommand.run(arguments + ["--data", server.dataDirectory.path("data")])
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func templatesAreMadeListedShownEditedUsedByTernSendAndDeleted() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let project = "\(server.projectId)"
        let (madeStatus, made, madeError) = try await Self.tern(
            [
                "template", "create", "--project", project, "--name", "Welcome", "--title", "Welcome to Acme",
                "--body", "Glad you're here", "--sound", "default", "--button", "start:Start:open",
                "--custom-field", "screen=home", "--interruption-level", "passive",
            ], server: server)
        #expect(madeStatus == 0, "\(madeError)")
        let template = Self.json(made)
        let id = try #require(template["id"] as? Int, "\(made)")
        #expect(template["title"] as? String == "Welcome to Acme" && template["sound"] as? String == "default")
        #expect((template["data"] as? [String: Any])?["screen"] as? String == "home", "\(made)")
        #expect(template["interruption_level"] as? String == "passive" && template["buttons"] != nil, "\(made)")

        let (twiceStatus, _, twice) = try await Self.tern(
            ["template", "create", "--project", project, "--name", "Welcome", "--title", "Again"], server: server)
        #expect(twiceStatus == 1 && twice.contains("HTTP 409: project \(project) already has a template named Welcome"))
        let (badStatus, _, bad) = try await Self.tern(
            ["template", "create", "--project", project, "--name", "Bad", "--title", "x", "--badge", "-3"],
            server: server)
        #expect(badStatus == 1 && bad.contains("HTTP 400: badge must be 0 to 999999"), "\(bad)")
        let (nameless, _, namelessError) = try await Self.tern(
            ["template", "create", "--project", project, "--title", "x"], server: server)
        #expect(nameless == 2 && namelessError.contains("template create needs --name NAME"))

        let (_, listed, _) = try await Self.tern(["template", "list", "--project", project], server: server)
        #expect(listed.contains("\"name\" : \"Welcome\"") && !listed.contains("\"Bad\""), "\(listed)")
        let (editStatus, edited, editError) = try await Self.tern(
            ["template", "edit", "\(id)", "--subtitle", "Day one"], server: server)
        #expect(editStatus == 0, "\(editError)")
        #expect(Self.json(edited)["subtitle"] as? String == "Day one" && Self.json(edited)["title"] != nil)

        _ = try await JSONHTTPClient().post(
            server.url("push/subscribe"), json: ["time": 1, "provider": "ios-apns", "subscription_id": "cli-token"],
            headers: ["X-Tern-RToken": server.rToken])
        let (sendStatus, sent, sendError) = try await Self.tern(
            ["send", "--template", "\(id)", "--body", "Your own body", "--token", "cli-token", "--no-wait"],
            server: server)
        #expect(sendStatus == 0, "\(sendError)")
        let messageId = try #require(sent.split(separator: " ").last.map { String($0.dropLast()) })
        let (deleteStatus, _, deleteError) = try await Self.tern(["template", "delete", "\(id)"], server: server)
        #expect(deleteStatus == 0, "\(deleteError)")
        let shown = try await JSONHTTPClient().get(
            server.url("admin/messages/\(messageId)"), headers: ["Authorization": "Bearer \(server.adminKey)"])
        let request = (shown.json?["request"] as? [String: Any]) ?? [:]
        #expect(request["title"] as? String == "Welcome to Acme" && request["body"] as? String == "Your own body")
        #expect(request["subtitle"] as? String == "Day one" && request["template_id"] as? Int == id, "\(shown.text)")

        let (goneStatus, _, gone) = try await Self.tern(["template", "show", "\(id)"], server: server)
        #expect(goneStatus == 1 && gone.contains("HTTP 404: template \(id) does not exist"), "\(gone)")
        let (unknownStatus, _, unknown) = try await Self.tern(
            ["send", "--template", "\(id)", "--token", "cli-token", "--no-wait"], server: server)
        #expect(unknownStatus == 1 && unknown.contains("template_id: template \(id) does not exist"), "\(unknown)")
    }
}
