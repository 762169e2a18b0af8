import Foundation
import TernProtocol

/// The engine's sender for `ios-huawei`: each project's pushes go through that project's HMS app
/// credential, one ``HMSClient`` (one access token) per project.
final class HMSSender: PushSender {
    let provider = PushProvider.huawei
    let projects: ProjectClientSender<HMSClient>

    init(credentials: CredentialStore, endpoints: ProviderEndpoints, logger: Logger) {
        projects = ProjectClientSender(kind: .huawei, credentials: credentials, logger: logger) { credential, _ in
            guard case .hms(let credential) = credential else { return nil }
            return (
                credential.fingerprint,
                {
                    var options = HMSClient.Options(
                        origin: endpoints.hms, tokenURL: endpoints.hmsToken, caFile: endpoints.caFile)
                    options.requestTimeout = endpoints.requestTimeout
                    return try HMSClient(credential: credential, options: options)
                }
            )
        }
    }

    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        await projects.send(pushes)
    }
}

extension HMSClient: ProjectPushClient {}
