import Foundation
import TernTestSupport
import Testing

/// `tern export devices RESOURCE [FILE]` against running servers: it follows the cursor to the last
/// page, and the file it writes is one `tern import devices` takes unchanged, into another server,
/// where exporting again gives the same lines.
@Suite(.serialized) struct DeviceExportCommandTests {
    @Test func anExportedFileImportsIntoAnotherServerUnchanged() async throws {
        let source = try await ServerProcess.start()
        defer { Task { await source.stop() } }
        let target = try await ServerProcess.start()
        defer { Task { await target.stop() } }
        // More than one page (1,000 a page), two devices of one person, every status.
        var lines = (0..<1_203).map { #"{"subscription_id": "token-\#($0)", "profile_fields": {"n": \#($0)}}"# }
        lines += [
            #"{"subscription_id": "ann-1", "matching": {"email": "ann@example.com"}, "status": "suspended"}"#,
            #"{"subscription_id": "ann-2", "matching": {"email": "ann@example.com"}, "apns_environment": "sandbox"}"#,
            #"{"subscription_id": "gone", "provider": "ios-firebase", "status": "unsubscribed", "time": 5000}"#,
        ]
        let seeded = try await DeviceImportCommandTests.importFile(lines, server: source)
        try #require(seeded.0 == 0, "\(seeded.2)")

        let file = source.dataDirectory.path("export.jsonl")
        let (status, output, errors) = try await AdminCommandTests.tern(
            ["export", "devices", "\(source.resourceId)", file], server: source)
        try #require(status == 0, "\(errors)")
        #expect(try DeviceImportCommandTests.summary(output)["exported"] as? Int == 1_206)
        #expect(!FileManager.default.fileExists(atPath: file + ".partial"))
        let exported = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(exported.count == 1_206)
        #expect(Set(exported).count == 1_206, "no device twice across pages")

        let (imported, importOutput, importErrors) = try await AdminCommandTests.tern(
            ["import", "devices", "\(target.resourceId)", file], server: target)
        try #require(imported == 0, "\(importErrors)")
        #expect(try DeviceImportCommandTests.summary(importOutput)["imported"] as? Int == 1_206)

        // Without FILE, the lines go to standard output: the target's devices are the source's.
        let (again, copied, againErrors) = try await AdminCommandTests.tern(
            ["export", "devices", "\(target.resourceId)"], server: target)
        try #require(again == 0, "\(againErrors)")
        let copiedLines = copied.split(separator: "\n").map(String.init)
        #expect(Set(copiedLines) == Set(exported))
        let ann = try copiedLines.filter { $0.contains("ann-") }.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            ann.count == 2 && ann.allSatisfy { ($0["matching"] as? [String: String])?["email"] == "ann@example.com" })

        let (wrong, _, wrongErrors) = try await AdminCommandTests.tern(["export", "devices", "999"], server: source)
        #expect(wrong == 1)
        #expect(wrongErrors.contains("resource 999 does not exist"), "\(wrongErrors)")
    }
}
