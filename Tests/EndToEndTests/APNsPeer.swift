import Foundation
import TernCrypto
import TernTestSupport

/// The APNs stand-in for the end-to-end test: the kit's ``ProviderPeer`` as APNs, trusting one
/// freshly made .p8 key.
struct APNsPeer {
    static let teamId = "TEAM123456"
    static let keyId = "KEY1234567"
    static let topic = "com.example.tern"

    let peer: ProviderPeer
    /// The .p8 key the peer trusts (PKCS#8 PEM).
    let privateKey: String

    var origin: String { peer.origin.absoluteString }
    var caFile: String { peer.caFile }

    /// A peer trusting `key` (a new one when nil: two peers given one key stand for APNs' two
    /// gateways, which trust the same .p8 key).
    init(key: JWTSigningKey? = nil) async throws {
        let key = try key ?? JWTSigningKey.generate(.es256)
        peer = try await ProviderPeer(config: [
            "provider": "apns",
            "apns": ["team_id": Self.teamId, "key_id": Self.keyId, "public_key": key.publicKeyPEM ?? ""],
        ])
        privateKey = key.privateKeyPEM ?? ""
    }

    /// The pushes the peer accepted, oldest first: token, headers and payload of each.
    func accepted() async throws -> [[String: Any]] { try await peer.accepted() }

    /// Gives a running `tern serve` this peer's credential (`PUT …/credentials/apns`) for its
    /// bootstrap project; answers the admin API's headers.
    func configure(_ server: ServerProcess) async throws -> [String: String] {
        let admin = ["Authorization": "Bearer \(server.adminKey)", "Content-Type": "application/json"]
        let credential: [String: Any] = [
            "team_id": Self.teamId, "key_id": Self.keyId, "private_key": privateKey, "topic": Self.topic,
        ]
        let put = try await JSONHTTPClient().send(
            "PUT", server.url("admin/projects/\(server.projectId)/credentials/apns"),
            body: try JSONSerialization.data(withJSONObject: credential), headers: admin)
        guard put.status == 200 else { throw PeerError("the server refused the credential: \(put.status) \(put.text)") }
        return admin
    }

    func stop() { peer.stop() }
}
