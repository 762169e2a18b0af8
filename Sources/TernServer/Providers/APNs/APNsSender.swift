import Foundation

/// The engine's sender for `ios-apns`: each project's pushes go through that project's APNs
/// credential, one ``APNsClient`` (one multiplexed connection) per credential and environment.
///
/// ```swift
/// await registry.register(APNsSender(credentials: credentials, endpoints: endpoints, logger: logger))
/// ```
public final class APNsSender: PushSender {
    public let provider = ProviderKind.apns.provider
    let credentials: CredentialStore
    let endpoints: ProviderEndpoints
    let logger: Logger
    let pool = ProviderClientPool<APNsClient>()

    public init(credentials: CredentialStore, endpoints: ProviderEndpoints, logger: Logger) {
        self.credentials = credentials
        self.endpoints = endpoints
        self.logger = logger
    }

    /// Closes every APNs connection; a later batch opens new ones.
    public func close() async {
        for client in await pool.removeAll() { client.close() }
    }

    public func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        let groups = Dictionary(grouping: pushes) {
            ProviderClientPool<APNsClient>.Key(projectId: $0.projectId, environment: $0.environment)
        }
        var outcomes: [Int64: DeliveryOutcome] = [:]
        await withTaskGroup(of: [Int64: DeliveryOutcome].self) { group in
            for (key, pushes) in groups {
                group.addTask { await self.send(pushes, key: key) }
            }
            for await answered in group { outcomes.merge(answered) { $1 } }
        }
        return outcomes
    }

    private func send(
        _ pushes: [OutgoingPush], key: ProviderClientPool<APNsClient>.Key
    ) async -> [Int64: DeliveryOutcome] {
        let client: APNsClient
        do {
            guard case .apns(let credential)? = try await credentials.credential(.apns, projectId: key.projectId)
            else { return SenderCredentials.all(pushes, SenderCredentials.missing(.apns, projectId: key.projectId)) }
            let environment = key.environment ?? .production
            let endpoints = endpoints
            client = try await pool.client(key, fingerprint: credential.fingerprint) {
                let options = APNsClient.Options(caFile: endpoints.caFile, requestTimeout: endpoints.requestTimeout)
                return try APNsClient(credential: credential, origin: endpoints.apns(environment), options: options)
            }
        } catch {
            logger.warn("APNs client unavailable", ["project_id": key.projectId, "error": "\(error)"])
            return SenderCredentials.all(pushes, .failed(reason: "APNs credentials: \(error)"))
        }
        return await client.send(pushes)
    }
}
