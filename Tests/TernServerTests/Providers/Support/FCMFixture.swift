import Foundation
import TernCrypto
import TernTestSupport

@testable import TernServer

/// An FCM peer that trusts one freshly made service-account key.
struct FCMFixture {
    static let projectId = "tern-test"
    static let clientEmail = "push@tern-test.iam.gserviceaccount.com"
    static let keyId = "0123456789abcdef"

    let peer: ProviderPeer
    let account: FCMServiceAccount

    static func start() async throws -> FCMFixture {
        let key = try JWTSigningKey.generate(.rs256)
        let peer = try await ProviderPeer(config: [
            "provider": "fcm",
            "fcm": [
                "project_id": projectId, "client_email": clientEmail, "private_key_id": keyId,
                "public_key": key.publicKeyPEM ?? "",
            ],
        ])
        let account = FCMServiceAccount(
            projectId: projectId, privateKeyId: keyId, privateKey: key.privateKeyPEM ?? "", clientEmail: clientEmail,
            tokenURI: peer.origin.appendingPathComponent("token").absoluteString)
        return FCMFixture(peer: peer, account: account)
    }

    func client(account: FCMServiceAccount? = nil) throws -> FCMClient {
        var options = FCMClient.Options(origin: peer.origin, caFile: peer.caFile)
        options.requestTimeout = 10
        return try FCMClient(account: account ?? self.account, options: options)
    }

    static func push(_ number: Int, type: PushType = .alert, payload: Data? = nil) -> OutgoingPush {
        OutgoingPush(
            deliveryId: Int64(number), messageId: "m-2", projectId: 1, provider: .firebase,
            token: "fcm-token-\(number):APA91b\(number)",
            payload: payload
                ?? Data(
                    #"{"aps":{"alert":{"title":"Hi","body":"n\#(number)"}},"tern":{"v":1,"message_id":"m-2"}}"#.utf8),
            pushType: type, collapseId: "c\(number)")
    }
}
