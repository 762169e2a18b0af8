import Foundation
import TernProtocol

/// The engine's sender for `ios-apns`: each project's pushes go through that project's APNs
/// credential, one ``APNsClient`` (one multiplexed connection) per credential and environment.
///
/// ```swift
/// await registry.register(APNsSender(credentials: credentials, endpoints: endpoints, logger: logger))
/// ```
final class APNsSender: PushSender {
    let provider = PushProvider.apns
    let projects: ProjectClientSender<APNsClient>

    init(credentials: CredentialStore, endpoints: ProviderEndpoints, logger: Logger) {
        projects = ProjectClientSender(
            kind: .apns, credentials: credentials, logger: logger, splitsByEnvironment: true
        ) { credential, environment in
            guard case .apns(let credential) = credential else { return nil }
            return (
                credential.fingerprint,
                {
                    let options = APNsClient.Options(caFile: endpoints.caFile, requestTimeout: endpoints.requestTimeout)
                    return try APNsClient(
                        credential: credential, origin: endpoints.apns(environment ?? .production), options: options)
                }
            )
        }
    }

    /// Closes every APNs connection; a later batch opens new ones.
    func close() async {
        for client in await projects.removeAll() { client.close() }
    }

    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        await projects.send(pushes)
    }
}

extension APNsClient: ProjectPushClient {}
