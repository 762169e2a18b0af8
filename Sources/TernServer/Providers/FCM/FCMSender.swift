import Foundation

/// The engine's sender for `ios-firebase`: each project's pushes go through that project's
/// service account, one ``FCMClient`` (one access token, multiplexed connections) per project.
public final class FCMSender: PushSender {
    public let provider = ProviderKind.fcm.provider
    let credentials: CredentialStore
    let endpoints: ProviderEndpoints
    let logger: Logger
    let pool = ProviderClientPool<FCMClient>()

    public init(credentials: CredentialStore, endpoints: ProviderEndpoints, logger: Logger) {
        self.credentials = credentials
        self.endpoints = endpoints
        self.logger = logger
    }

    public func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        var outcomes: [Int64: DeliveryOutcome] = [:]
        await withTaskGroup(of: [Int64: DeliveryOutcome].self) { group in
            for (projectId, pushes) in Dictionary(grouping: pushes, by: \.projectId) {
                group.addTask { await self.send(pushes, projectId: projectId) }
            }
            for await answered in group { outcomes.merge(answered) { $1 } }
        }
        return outcomes
    }

    private func send(_ pushes: [OutgoingPush], projectId: Int64) async -> [Int64: DeliveryOutcome] {
        let client: FCMClient
        do {
            guard case .fcm(let account)? = try await credentials.credential(.fcm, projectId: projectId) else {
                return SenderCredentials.all(pushes, SenderCredentials.missing(.fcm, projectId: projectId))
            }
            let endpoints = endpoints
            client = try await pool.client(
                .init(projectId: projectId, environment: nil), fingerprint: account.fingerprint
            ) {
                var options = FCMClient.Options(origin: endpoints.fcm, caFile: endpoints.caFile)
                options.tokenURL = endpoints.fcmToken
                options.requestTimeout = endpoints.requestTimeout
                return try FCMClient(account: account, options: options)
            }
        } catch {
            logger.warn("FCM client unavailable", ["project_id": projectId, "error": "\(error)"])
            return SenderCredentials.all(pushes, .failed(reason: "FCM credentials: \(error)"))
        }
        return await client.send(pushes)
    }
}
