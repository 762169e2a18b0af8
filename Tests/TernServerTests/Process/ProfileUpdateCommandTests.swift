import Foundation
import TernTestSupport
import Testing

/// `tern profiles set DB …` and `tern import profiles DB FILE` against a running server: one
/// person's fields by email or a field, `--create`, a person not found; a file in parts of 1,000
/// with its totals and each refused line's number and reason.
@Suite(.serialized) struct ProfileUpdateCommandTests {
    static func databaseId(_ server: ServerProcess) async throws -> String {
        let (status, output, errors) = try await AdminCommandTests.tern(
            ["databases", "list", "\(server.projectId)"], server: server)
        try #require(status == 0, "\(errors)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        return "\(try #require(list.first?["id"] as? Int))"
    }

    static func json(_ output: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    @Test func profilesSetWritesOnePersonsFieldsAndCreateMakesThem() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let db = try await Self.databaseId(server)

        let (missing, _, missingErrors) = try await AdminCommandTests.tern(
            ["profiles", "set", db, "--email", "ann@example.com", "--set", "plan=gold"], server: server)
        #expect(missing == 1 && missingErrors.contains("--create makes one"), "\(missingErrors)")

        let (made, madeOutput, madeErrors) = try await AdminCommandTests.tern(
            [
                "profiles", "set", db, "--email", "ann@example.com", "--set", "plan=gold", "--set",
                #"orders={"action":"incr","value":2}"#, "--create",
            ], server: server)
        #expect(made == 0, "\(madeErrors)")
        let created = try Self.json(madeOutput)
        #expect(created["result"] as? String == "created")
        let id = try #require(created["profile_id"] as? String)

        let (updated, updatedOutput, updatedErrors) = try await AdminCommandTests.tern(
            ["profiles", "set", db, "--field", "orders", "--value", "2", "--set", "tier=3", "--set", "plan=silver"],
            server: server)
        #expect(updated == 0, "\(updatedErrors)")
        #expect(try Self.json(updatedOutput)["profile_id"] as? String == id)
        let (_, shown, _) = try await AdminCommandTests.tern(["profiles", "show", id], server: server)
        let fields = try #require(try Self.json(shown)["fields"] as? [String: Any])
        #expect(fields["plan"] as? String == "silver" && fields["tier"] as? Int == 3 && fields["orders"] as? Int == 2)
        #expect(fields["_email"] as? String == "ann@example.com")

        let (refused, _, refusedErrors) = try await AdminCommandTests.tern(
            ["profiles", "set", db, "--id", id, "--set", "1st=x"], server: server)
        #expect(refused == 1 && refusedErrors.contains("\"1st\" is not a valid field name"), "\(refusedErrors)")
        let (usage, _, usageErrors) = try await AdminCommandTests.tern(
            ["profiles", "set", db, "--id", id, "--email", "a@example.com", "--set", "a=1"], server: server)
        #expect(usage != 0 && usageErrors.contains("names one person"), "\(usageErrors)")
    }

    @Test func importProfilesSendsAFileInPartsAndReportsRefusedLines() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let db = try await Self.databaseId(server)
        var lines = (0..<1_200).map {
            #"{"matching": {"email": "p\#($0)@example.com"}, "profile_fields": {"n": \#($0)}, "create": true}"#
        }
        lines.insert("", at: 5)  // a blank line is skipped, and counts as a line
        lines.append(#"{"matching": {"email": "p1@example.com"}, "profile_fields": {"bad name": 1}}"#)
        lines.append(#"{"matching": {"email": "nobody@example.com"}, "profile_fields": {"n": 1}}"#)
        let file = server.dataDirectory.path("profiles.jsonl")
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)

        let (status, output, errors) = try await AdminCommandTests.tern(
            ["import", "profiles", db, file], server: server)
        #expect(status == 1 && errors.contains("1 entries were refused"), "\(errors)")
        let summary = try Self.json(output)
        let totals = try #require(summary["totals"] as? [String: Int])
        #expect(totals == ["created": 1_200, "updated": 0, "unchanged": 0, "not_found": 1, "refused": 1], "\(totals)")
        let refused = try #require(summary["refused"] as? [[String: Any]])
        #expect(refused.map { $0["line"] as? Int } == [1_202])
        #expect((refused.first?["reason"] as? String)?.contains("\"bad name\" is not a valid field name") == true)

        // Again: what is there already is unchanged.
        let (again, againOutput, _) = try await AdminCommandTests.tern(
            ["import", "profiles", db, file], server: server)
        #expect(again == 1)
        #expect((try Self.json(againOutput)["totals"] as? [String: Int])?["unchanged"] == 1_200)

        try (#"{"matching": {"email": "a@example.com"}}"# + "\nnot json")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let (bad, _, badErrors) = try await AdminCommandTests.tern(["import", "profiles", db, file], server: server)
        #expect(bad == 2 && badErrors.contains("line 2 is not a JSON object"), "\(badErrors)")
    }
}
