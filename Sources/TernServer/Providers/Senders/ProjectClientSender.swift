import TernProtocol

/// A provider client that sends one project's pushes and answers one outcome per delivery.
protocol ProjectPushClient: Sendable {
    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome]
}

/// The sender shape APNs, FCM and HMS share: a batch is split by project (and for APNs by
/// environment), and each part goes through that project's client, made from its stored credential
/// on first use and made again when the credential's fingerprint changes. A missing or unusable
/// credential is an outcome.
///
/// ```swift
/// let projects = ProjectClientSender<HMSClient>(kind: .huawei, credentials: store, logger: logger) { credential, _ in
///     guard case .hms(let credential) = credential else { return nil }
///     return (credential.fingerprint, { try HMSClient(credential: credential, options: options) })
/// }
/// ```
final class ProjectClientSender<Client: ProjectPushClient>: Sendable {
    /// For a stored credential of the right kind (and the APNs environment, when the sender splits by
    /// it): its fingerprint and how to make a client from it; nil for a credential of another kind.
    typealias Factory =
        @Sendable (ProviderCredential, APNsEnvironment?) -> (
            fingerprint: String, make: @Sendable () throws -> Client
        )?

    let kind: PushProvider
    let credentials: CredentialStore
    let logger: Logger
    let factory: Factory
    /// APNs: one client per project and environment (production and sandbox are two gateways).
    let splitsByEnvironment: Bool
    let pool = ProviderClientPool<Client>()

    init(
        kind: PushProvider, credentials: CredentialStore, logger: Logger, splitsByEnvironment: Bool = false,
        factory: @escaping Factory
    ) {
        self.kind = kind
        self.splitsByEnvironment = splitsByEnvironment
        self.credentials = credentials
        self.logger = logger
        self.factory = factory
    }

    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        guard let first = pushes.first.map(key) else { return [:] }
        // A batch is mostly one project's, in one environment: then it goes as it came. Grouped,
        // every push was copied into its group, retaining and releasing its strings and payload.
        // (By index: iterating the array hands out copies.)
        if pushes.indices.allSatisfy({ key(pushes[$0]) == first }) { return await send(pushes, key: first) }
        var outcomes: [Int64: DeliveryOutcome] = [:]
        await withTaskGroup(of: [Int64: DeliveryOutcome].self) { group in
            for (key, pushes) in Dictionary(grouping: pushes, by: key) {
                group.addTask { await self.send(pushes, key: key) }
            }
            for await answered in group { outcomes.merge(answered) { $1 } }
        }
        return outcomes
    }

    /// The client a push goes through: its project's, and its environment's where that matters.
    private func key(_ push: OutgoingPush) -> ProviderClientPool<Client>.Key {
        ProviderClientPool<Client>.Key(
            projectId: push.projectId, environment: splitsByEnvironment ? push.environment : nil)
    }

    /// Hands back every client made so far and forgets them (a later batch makes new ones).
    func removeAll() async -> [Client] {
        await pool.removeAll()
    }

    private func send(_ pushes: [OutgoingPush], key: ProviderClientPool<Client>.Key) async -> [Int64: DeliveryOutcome] {
        let client: Client
        do {
            guard let credential = try await credentials.credential(kind, projectId: key.projectId),
                let made = factory(credential, key.environment)
            else {
                return SenderCredentials.all(pushes, SenderCredentials.missing(kind, projectId: key.projectId))
            }
            client = try await pool.client(key, fingerprint: made.fingerprint, make: made.make)
        } catch {
            logger.warn("\(kind.title) client unavailable", ["project_id": key.projectId, "error": "\(error)"])
            return SenderCredentials.all(pushes, .failed(reason: "\(kind.title) credentials: \(error)"))
        }
        return await client.send(pushes)
    }
}
