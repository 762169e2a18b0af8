import TernProtocol

/// Provider clients by key (a project, and for APNs its environment), made on first use and
/// made again when the credential's fingerprint changes, so a new key takes effect at the next
/// batch while every worker shares one client (one connection, one token) per credential.
actor ProviderClientPool<Client: Sendable> {
    struct Key: Hashable, Sendable {
        let projectId: Int64
        let environment: APNsEnvironment?
    }

    private var clients: [Key: (fingerprint: String, client: Client)] = [:]

    /// The client for `key`, made with `make` when there is none yet or the credential changed.
    func client(
        _ key: Key, fingerprint: String, make: () throws -> Client
    ) throws -> Client {
        if let entry = clients[key], entry.fingerprint == fingerprint { return entry.client }
        let client = try make()
        clients[key] = (fingerprint, client)
        return client
    }

    /// Hands back every client and forgets them.
    func removeAll() -> [Client] {
        defer { clients.removeAll() }
        return clients.values.map(\.client)
    }
}

/// Looks up a project's credential for a sender, as an outcome when there is none.
enum SenderCredentials {
    static func missing(_ kind: PushProvider, projectId: Int64) -> DeliveryOutcome {
        .failed(
            reason:
                "project \(projectId) has no \(kind.title) credentials: PUT /api/v1/admin/projects/\(projectId)/credentials/\(kind.credentialName)"
        )
    }

    /// Every push of `pushes` with the same outcome.
    static func all(_ pushes: [OutgoingPush], _ outcome: DeliveryOutcome) -> [Int64: DeliveryOutcome] {
        Dictionary(pushes.map { ($0.deliveryId, outcome) }, uniquingKeysWith: { first, _ in first })
    }
}
