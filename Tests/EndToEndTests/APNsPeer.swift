import Foundation
import TernCrypto
import TernHTTP
import TernTestSupport

/// The APNs stand-in (`Tests/Peers/provider_peer.py`) for the end-to-end test: HTTP/2 over TLS
/// with a test CA made by the `openssl` command line, trusting one freshly made .p8 key.
final class APNsPeer: Sendable {
    static let teamId = "TEAM123456"
    static let keyId = "KEY1234567"
    static let topic = "com.example.tern"

    let port: Int
    let certificates: TestCertificates
    /// The .p8 key the peer trusts (PKCS#8 PEM).
    let privateKey: String
    private let process: Process
    private let control: HTTP2Client

    var origin: String { "https://127.0.0.1:\(port)" }
    var caFile: String { certificates.caFile }

    init() throws {
        let certificates = try TestCertificates.make(authority: "Tern E2E CA")
        let directory = certificates.directory
        let key = try JWTSigningKey.generate(.es256)
        let config: [String: Any] = [
            "provider": "apns",
            "apns": ["team_id": Self.teamId, "key_id": Self.keyId, "public_key": key.publicKeyPEM ?? ""],
        ]
        try JSONSerialization.data(withJSONObject: config).write(to: directory.appendingPathComponent("peer.json"))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers/provider_peer.py").path
        (process, port) = try PeerProcess.launch(
            [
                "python3", script, "--config", directory.appendingPathComponent("peer.json").path, "--cert",
                certificates.certificateFile, "--key", certificates.keyFile,
            ],
            failure: "provider_peer.py did not start (python3 with h2 and cryptography?)")
        self.certificates = certificates
        privateKey = key.privateKeyPEM ?? ""
        control = try HTTP2Client(configuration: .init(caFile: certificates.caFile, requestTimeout: 10))
    }

    /// The pushes the peer accepted, oldest first: token, headers and payload of each.
    func accepted() async throws -> [[String: Any]] {
        let response = try await control.send(
            HTTP2Request(method: "POST", url: URL(string: origin + "/_peer/log")!, body: Data("{}".utf8)))
        let log = try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]] ?? []
        return log.filter { $0["status"] as? Int == 200 }
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        certificates.remove()
    }
}
