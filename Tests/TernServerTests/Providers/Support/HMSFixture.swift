import Foundation
import TernProtocol
import TernTestSupport

@testable import TernServer

/// An HMS peer that knows one app and its secret.
struct HMSFixture {
    static let appId = "104123456"
    static let secret = "hms-secret-\(UUID().uuidString)"

    let peer: ProviderPeer
    let credential = HMSCredential(appId: appId, clientSecret: secret)

    static func start() async throws -> HMSFixture {
        let peer = try await ProviderPeer(config: [
            "provider": "hms", "hms": ["app_id": appId, "client_id": appId, "client_secret": secret],
        ])
        return HMSFixture(peer: peer)
    }

    func client(credential: HMSCredential? = nil) throws -> HMSClient {
        let options = HMSClient.Options(
            origin: peer.origin, tokenURL: peer.origin.appendingPathComponent("oauth2/v3/token"), caFile: peer.caFile)
        return try HMSClient(credential: credential ?? self.credential, options: options)
    }

    static func push(
        _ number: Int, message: String = "m-3", environment: APNsEnvironment = .production
    ) -> OutgoingPush {
        OutgoingPush(
            deliveryId: Int64(number), messageId: message, projectId: 1, provider: .huawei,
            token: "hms-token-\(number)",
            payload: Data(#"{"aps":{"alert":{"title":"Hi"}},"tern":{"v":1,"message_id":"\#(message)"}}"#.utf8),
            pushType: .alert, environment: environment)
    }
}
