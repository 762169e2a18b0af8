import Foundation
import TernProtocol

/// The engine's sender for `ios-firebase`: each project's pushes go through that project's
/// service account, one ``FCMClient`` (one access token, multiplexed connections) per project.
final class FCMSender: PushSender {
    let provider = PushProvider.firebase
    let projects: ProjectClientSender<FCMClient>

    init(credentials: CredentialStore, endpoints: ProviderEndpoints, logger: Logger) {
        projects = ProjectClientSender(kind: .firebase, credentials: credentials, logger: logger) { credential, _ in
            guard case .fcm(let account) = credential else { return nil }
            return (
                account.fingerprint,
                {
                    var options = FCMClient.Options(origin: endpoints.fcm, caFile: endpoints.caFile)
                    options.tokenURL = endpoints.fcmToken
                    options.requestTimeout = endpoints.requestTimeout
                    return try FCMClient(account: account, options: options)
                }
            )
        }
    }

    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        await projects.send(pushes)
    }
}

extension FCMClient: ProjectPushClient {}
