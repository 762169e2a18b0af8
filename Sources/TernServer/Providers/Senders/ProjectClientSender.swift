/// A provider client that sends one project's pushes and answers one outcome per delivery.
protocol ProjectPushClient: Sendable {
    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome]
}

/// The sender shape FCM and HMS share: a batch is split by project, and each project's pushes go
/// through that project's client, made from its stored credential on first use and made again
/// when the credential's fingerprint changes. A missing or unusable credential is an outcome.
///
/// ```swift
/// let projects = ProjectClientSender<HMSClient>(kind: .hms, credentials: store, logger: logger) {
///     guard case .hms(let credential) = $0 else { return nil }
///     return (credential.fingerprint, { try HMSClient(credential: credential, options: options) })
/// }
/// ```
final class ProjectClientSender<Client: ProjectPushClient>: Sendable {
    /// For a stored credential of the right kind: its fingerprint and how to make a client from it;
    /// nil for a credential of another kind.
    typealias Factory = @Sendable (ProviderCredential) -> (fingerprint: String, make: @Sendable () throws -> Client)?

    let kind: ProviderKind
    let credentials: CredentialStore
    let logger: Logger
    let factory: Factory
    let pool = ProviderClientPool<Client>()

    init(kind: ProviderKind, credentials: CredentialStore, logger: Logger, factory: @escaping Factory) {
        self.kind = kind
        self.credentials = credentials
        self.logger = logger
        self.factory = factory
    }

    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
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
        let client: Client
        do {
            guard let credential = try await credentials.credential(kind, projectId: projectId),
                let made = factory(credential)
            else {
                return SenderCredentials.all(pushes, SenderCredentials.missing(kind, projectId: projectId))
            }
            client = try await pool.client(
                .init(projectId: projectId, environment: nil), fingerprint: made.fingerprint, make: made.make)
        } catch {
            logger.warn("\(kind.title) client unavailable", ["project_id": projectId, "error": "\(error)"])
            return SenderCredentials.all(pushes, .failed(reason: "\(kind.title) credentials: \(error)"))
        }
        return await client.send(pushes)
    }
}
