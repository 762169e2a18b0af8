import Foundation

/// The engine's sender for `ios-huawei`: each project's pushes go through that project's HMS app
/// credential, one ``HMSClient`` (one access token) per project.
public final class HMSSender: PushSender {
    public let provider = ProviderKind.hms.provider
    let credentials: CredentialStore
    let endpoints: ProviderEndpoints
    let logger: Logger
    let pool = ProviderClientPool<HMSClient>()

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
        let client: HMSClient
        do {
            guard case .hms(let credential)? = try await credentials.credential(.hms, projectId: projectId) else {
                return SenderCredentials.all(pushes, SenderCredentials.missing(.hms, projectId: projectId))
            }
            let endpoints = endpoints
            client = try await pool.client(
                .init(projectId: projectId, environment: nil), fingerprint: credential.fingerprint
            ) {
                var options = HMSClient.Options(
                    origin: endpoints.hms, tokenURL: endpoints.hmsToken, caFile: endpoints.caFile)
                options.requestTimeout = endpoints.requestTimeout
                return try HMSClient(credential: credential, options: options)
            }
        } catch {
            logger.warn("HMS client unavailable", ["project_id": projectId, "error": "\(error)"])
            return SenderCredentials.all(pushes, .failed(reason: "HMS credentials: \(error)"))
        }
        return await client.send(pushes)
    }
}
