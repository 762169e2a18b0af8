import Foundation
import TernCrypto
import TernTestSupport
import Testing

/// `PUT/GET/DELETE /api/v1/admin/projects/{id}/credentials/...` against a real `tern serve`: stored
/// with mode 0600 under the data directory, never returned in full, never logged.
@Suite struct CredentialAPITests {
    static func admin(_ server: ServerProcess) -> [String: String] {
        ["Authorization": "Bearer \(server.adminKey)", "Content-Type": "application/json"]
    }

    static func credentials(_ server: ServerProcess, _ suffix: String = "") -> URL {
        server.url("admin/projects/\(server.projectId)/credentials\(suffix)")
    }

    @Test func storedPrivatelyShownWithoutSecretsAndNeverLogged() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let client = JSONHTTPClient()
        let key = try JWTSigningKey.generate(.es256).privateKeyPEM ?? ""
        let apns: [String: Any] = [
            "team_id": "TEAM123456", "key_id": "KEY1234567", "private_key": key, "topic": "com.example.tern",
        ]
        let put = try await client.send(
            "PUT", Self.credentials(server, "/apns"), body: try JSONSerialization.data(withJSONObject: apns),
            headers: Self.admin(server))
        #expect(put.status == 200, "\(put.text)")
        #expect(!put.text.contains("PRIVATE KEY"))
        let summary = try #require(try JSONSerialization.jsonObject(with: put.body) as? [String: Any])
        #expect(summary["provider"] as? String == "apns")
        #expect((summary["fingerprint"] as? String)?.hasPrefix("sha256:") == true)
        #expect((summary["details"] as? [String: String])?["key_id"] == "KEY1234567")

        let hms = ["app_id": "104123456", "client_secret": "very-secret-hms-value"]
        let putHMS = try await client.send(
            "PUT", Self.credentials(server, "/hms"), body: try JSONSerialization.data(withJSONObject: hms),
            headers: Self.admin(server))
        #expect(putHMS.status == 200, "\(putHMS.text)")

        let file = server.dataDirectory.path("data/credentials/\(server.projectId)/apns.json")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let folder = server.dataDirectory.path("data/credentials/\(server.projectId)")
        #expect(try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int == 0o700)

        let list = try await client.get(Self.credentials(server), headers: Self.admin(server))
        #expect(list.status == 200)
        #expect(!list.text.contains("PRIVATE KEY") && !list.text.contains("very-secret-hms-value"))
        let providers = (try JSONSerialization.jsonObject(with: list.body) as? [[String: Any]])?.compactMap {
            $0["provider"] as? String
        }
        #expect(providers == ["apns", "hms"])

        let delete = try await client.send("DELETE", Self.credentials(server, "/hms"), headers: Self.admin(server))
        #expect(delete.status == 204)
        let again = try await client.send("DELETE", Self.credentials(server, "/hms"), headers: Self.admin(server))
        #expect(again.status == 404)
        let keyLine = key.split(separator: "\n")[1]
        #expect(server.log().contains("provider credentials stored"), "the change is logged, its secrets not")
        #expect(!server.log().contains(keyLine) && !server.log().contains("very-secret-hms-value"))
    }

    @Test func unusableCredentialsAreRefusedWithTheFieldToFix() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let client = JSONHTTPClient()
        func put(_ provider: String, _ body: [String: Any], project: Int64? = nil) async throws
            -> JSONHTTPClient.Answer
        {
            let url = server.url("admin/projects/\(project ?? server.projectId)/credentials/\(provider)")
            return try await client.send(
                "PUT", url, body: try JSONSerialization.data(withJSONObject: body), headers: Self.admin(server))
        }
        let badKey = try await put(
            "apns", ["team_id": "TEAM123456", "key_id": "KEY1234567", "private_key": "not a key"])
        #expect(badKey.status == 400)
        #expect(badKey.text.contains("private_key must be the .p8 file"))
        let shortTeam = try await put(
            "apns",
            ["team_id": "T1", "key_id": "KEY1234567", "private_key": try JWTSigningKey.generate(.es256).privateKeyPEM!])
        #expect(shortTeam.text.contains("team_id must be the 10-character Apple team id"))
        let rsaForAPNs = try await put(
            "apns",
            [
                "team_id": "TEAM123456", "key_id": "KEY1234567",
                "private_key": try JWTSigningKey.generate(.rs256).privateKeyPEM!,
            ])
        #expect(rsaForAPNs.status == 400)
        let fcm = try await put("fcm", ["project_id": "p", "private_key_id": "k", "client_email": "x@y"])
        #expect(fcm.status == 400)
        #expect(fcm.text.contains("private_key"))
        #expect(try await put("gcm", ["x": 1]).status == 404)
        #expect(try await put("hms", ["app_id": "1", "client_secret": "s"], project: 9999).status == 404)
        let anonymous = try await client.send(
            "PUT", Self.credentials(server, "/hms"), body: Data(#"{"app_id":"1","client_secret":"s"}"#.utf8),
            headers: ["Content-Type": "application/json"])
        #expect(anonymous.status == 401)
    }
}
