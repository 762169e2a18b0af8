import Foundation
import Synchronization
import TernCrypto
import TernTestSupport

@testable import TernServer

/// An APNs peer that trusts one freshly made .p8 key, and pushes to send it.
struct APNsFixture {
    static let teamId = "TEAM123456"
    static let keyId = "KEY1234567"
    static let topic = "com.example.tern"

    let peer: ProviderPeer
    let credential: APNsCredential

    static func start(maxStreams: Int = 100) async throws -> APNsFixture {
        let key = try JWTSigningKey.generate(.es256)
        let credential = APNsCredential(
            teamId: teamId, keyId: keyId, privateKey: key.privateKeyPEM ?? "", topic: topic)
        let peer = try await ProviderPeer(
            config: [
                "provider": "apns",
                "apns": ["team_id": teamId, "key_id": keyId, "public_key": key.publicKeyPEM ?? ""],
            ], maxStreams: maxStreams)
        return APNsFixture(peer: peer, credential: credential)
    }

    func client(
        timeout: TimeInterval = 10, maxConnections: Int = 4, streams: Int = 500,
        clock: @escaping @Sendable () -> Date = Date.init
    ) throws -> APNsClient {
        var options = APNsClient.Options(caFile: peer.caFile, requestTimeout: timeout)
        options.maxConnections = maxConnections
        options.maxStreamsPerConnection = streams
        return try APNsClient(credential: credential, origin: peer.origin, options: options, clock: clock)
    }

    /// Gives a running `tern serve` this peer's credential (`PUT …/credentials/apns`) for its
    /// bootstrap project.
    func configure(_ server: ServerProcess) async throws {
        let credential: [String: Any] = [
            "team_id": Self.teamId, "key_id": Self.keyId, "private_key": self.credential.privateKey,
            "topic": Self.topic,
        ]
        let put = try await JSONHTTPClient().send(
            "PUT", server.url("admin/projects/\(server.projectId)/credentials/apns"),
            body: try JSONSerialization.data(withJSONObject: credential),
            headers: ["Authorization": "Bearer \(server.adminKey)", "Content-Type": "application/json"])
        guard put.status == 200 else {
            throw RefusedCredential(status: put.status, reason: put.text)
        }
    }

    /// The server refused the peer's credential.
    struct RefusedCredential: Error {
        let status: Int
        let reason: String
    }

    /// A 64-hex-digit device token that differs by `number`.
    static func token(_ number: Int) -> String {
        let suffix = String(number, radix: 16)
        return String(repeating: "a", count: 64 - suffix.count) + suffix
    }

    static func push(
        _ number: Int, type: PushType = .alert, priority: Int? = nil, expiration: Date? = nil,
        collapseId: String? = nil, payload: Data? = nil, token: String? = nil
    ) -> OutgoingPush {
        OutgoingPush(
            deliveryId: Int64(number), messageId: "m-1", projectId: 1, provider: .apns,
            token: token ?? Self.token(number),
            payload: payload
                ?? Data(
                    #"{"aps":{"alert":{"title":"Hi","body":"n\#(number)"}},"tern":{"v":1,"message_id":"m-1"}}"#.utf8),
            pushType: type, priority: priority, expiration: expiration, collapseId: collapseId)
    }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let now: Mutex<Date>

    init(_ start: Date = Date()) {
        now = Mutex(start)
    }

    func advance(_ seconds: TimeInterval) {
        now.withLock { $0 += seconds }
    }

    var date: Date { now.withLock { $0 } }
    var closure: @Sendable () -> Date { { self.date } }
}
