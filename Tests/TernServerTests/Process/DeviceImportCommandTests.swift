import Foundation
import TernTestSupport
import Testing

/// `tern import devices RESOURCE FILE` against a running server: a file larger than one request goes
/// in parts, failures come back by line, a bad line stops the run before anything is sent, and a
/// second run changes nothing.
@Suite(.serialized) struct DeviceImportCommandTests {
    static func importFile(_ lines: [String], server: ServerProcess) async throws -> (Int32, String, String) {
        let file = server.dataDirectory.path("devices.jsonl")
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return try await AdminCommandTests.tern(
            ["import", "devices", "\(server.resourceId)", file], server: server)
    }

    static func summary(_ output: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    @Test func aFileOfDevicesIsImportedInPartsAndReportsFailuresByLine() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        var lines = (0..<2_500).map { #"{"subscription_id": "token-\#($0)", "profile_fields": {"n": \#($0)}}"# }
        lines.insert("", at: 10)  // a blank line is skipped, and counts as a line
        lines.append(#"{"subscription_id": "no-such-category", "cats": [{"name": "sports", "active": true}]}"#)

        let (status, output, errors) = try await Self.importFile(lines, server: server)
        #expect(status == 1, "some devices failed: the exit status says so")
        #expect(errors.contains("1 devices were not imported"))
        let first = try Self.summary(output)
        #expect(first["imported"] as? Int == 2_500)
        let failed = try #require(first["failed"] as? [[String: Any]])
        #expect(failed.map { $0["line"] as? Int } == [2_502])
        #expect((failed.first?["error"] as? String)?.contains("category not found in resource") == true)

        let (again, secondOutput, _) = try await Self.importFile(Array(lines.dropLast()), server: server)
        #expect(again == 0)
        #expect(try Self.summary(secondOutput)["imported"] as? Int == 2_500)
        let (_, counted, _) = try await AdminCommandTests.tern(
            ["subscriptions", "find", "\(server.resourceId)", "token-2499"], server: server)
        #expect(counted.contains("\"subscription_id\" : \"token-2499\""))
        let overview = try await JSONHTTPClient().get(
            try #require(URL(string: server.url("admin/overview").absoluteString + "?days=1")),
            headers: ["Authorization": "Bearer \(server.adminKey)"])
        let subscriptions = (try JSONSerialization.jsonObject(with: overview.body) as? [String: Any])?["subscriptions"]
        #expect((subscriptions as? [[String: Any]])?.first?["count"] as? Int == 2_500, "no device twice")
    }

    @Test func aBadLineStopsTheRunWithItsNumber() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let (notJSON, _, notJSONErrors) = try await Self.importFile(
            [#"{"subscription_id": "a"}"#, "subscription_id,b"], server: server)
        #expect(notJSON == 2)
        #expect(notJSONErrors.contains("line 2 is not a JSON object"))

        let (refused, _, refusedErrors) = try await Self.importFile(
            [#"{"subscription_id": "a"}"#, #"{"subscription_id": "b", "status": "maybe"}"#], server: server)
        #expect(refused == 1)
        #expect(refusedErrors.contains(#"line 2: status "maybe" is not valid"#), "\(refusedErrors)")
        #expect(refusedErrors.contains("0 devices before line 1 were imported"))
    }
}

/// A file whose devices carry many fields (an export's, with the SDK's own) goes in parts under the
/// server's 1 MiB a request, not only of 1,000 devices.
@Suite(.serialized) struct DeviceImportCommandSizeTests {
    @Test func aFileOfLargeDevicesGoesInPartsUnderTheBodyLimit() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let note = String(repeating: "x", count: 1_500)
        let lines = (0..<1_000).map { #"{"subscription_id": "big-\#($0)", "custom_fields": {"note": "\#(note)"}}"# }
        let (status, output, errors) = try await DeviceImportCommandTests.importFile(lines, server: server)
        #expect(status == 0, "\(errors)")
        #expect(try DeviceImportCommandTests.summary(output)["imported"] as? Int == 1_000)
    }
}
