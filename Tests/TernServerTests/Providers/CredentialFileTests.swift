import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// Credentials kept as files: an operator's change to a file is used at the next send, a removed
/// file means no credential.
@Suite struct CredentialFileTests {
    static func hms(_ secret: String) -> Data {
        Data(#"{"app_id":"104123456","client_secret":"\#(secret)"}"#.utf8)
    }

    static func secret(_ credential: ProviderCredential?) -> String? {
        guard case .hms(let hms) = credential else { return nil }
        return hms.clientSecret
    }

    @Test func aFileTheOperatorRewroteIsReadAgainAndARemovedOneIsGone() async throws {
        let directory = try TemporaryDirectory(prefix: "tern-credential-files")
        defer { directory.remove() }
        let store = CredentialStore(directory: directory.path("credentials"))
        try await store.put(.huawei, projectId: 7, json: Self.hms("first-secret-value"))
        #expect(Self.secret(try await store.credential(.huawei, projectId: 7)) == "first-secret-value")

        // Rewritten in place, same size, within the same second: the stamp still differs.
        let file = store.path(.huawei, projectId: 7)
        let written = try String(contentsOfFile: file, encoding: .utf8)
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(written.replacingOccurrences(of: "first", with: "other").utf8))
        try handle.close()
        #expect(Self.secret(try await store.credential(.huawei, projectId: 7)) == "other-secret-value")

        // Replaced by another file (an editor's save, `mv`).
        let replacement = directory.path("replacement.json")
        try Self.hms("third-secret-value").write(to: URL(fileURLWithPath: replacement))
        #expect(rename(replacement, file) == 0)
        #expect(Self.secret(try await store.credential(.huawei, projectId: 7)) == "third-secret-value")

        try FileManager.default.removeItem(atPath: file)
        #expect(try await store.credential(.huawei, projectId: 7) == nil)
    }
}
