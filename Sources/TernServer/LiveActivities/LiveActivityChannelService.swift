import Foundation
import TernHTTP
import TernProtocol

/// A project's APNs broadcast channels (Live Activities on iOS 18): one push on a channel reaches
/// every device whose activity subscribed to it, however many, where a token's update goes to one.
///
/// - `POST /api/v1/admin/projects/{project_id}/live-activity-channels` makes one through APNs'
///   channel management service and keeps it under the project's name for it (a `full` key);
/// - `GET …/live-activity-channels` lists them (a `read` key);
/// - `DELETE …/live-activity-channels/{name}?apns_environment=` removes one at APNs, then here;
/// - `POST …/live-activity-channels/{name}/broadcasts?apns_environment=` sends one push on it (a
///   `send` key), answered once APNs accepted it.
///
/// The SDK's `live-activity/channel` (``LiveActivityService``) answers a channel's id to a device.
///
/// APNs is asked first and the row written after: a channel APNs made but the store could not keep
/// is removed at APNs again, and one APNs no longer knows is removed here all the same.
struct LiveActivityChannelService: Sendable {
    let store: any Store
    let credentials: CredentialStore?
    let endpoints: ProviderEndpoints
    let clients: ProviderClientPool<APNsChannelClient>
    let clock: @Sendable () -> Int64

    init(
        store: any Store, credentials: CredentialStore?, endpoints: ProviderEndpoints,
        clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds
    ) {
        self.store = store
        self.credentials = credentials
        self.endpoints = endpoints
        self.clients = ProviderClientPool()
        self.clock = clock
    }

    /// The management API's routes.
    func routes(admin: AdminService) -> [Route] {
        let service = self
        let base = "\(AdminRoutes.prefix)/projects/{project_id}/live-activity-channels"
        let read = RouteGroup([admin.check(.read, .projectPath)]) {
            Route.json("GET", base) { request in
                try await service.channels(projectId: try request.integer("project_id"))
            }
        }
        let configure = RouteGroup([admin.check(.configure, .projectPath), CredentialsKept(credentials: credentials)]) {
            Route.json("POST", base, status: 201) { request in
                try await service.create(
                    projectId: try request.integer("project_id"),
                    try JSONBody.decode(LiveActivityChannelCreateRequest.self, from: request.http))
            }
            Route.noContent("DELETE", base + "/{name}") { request in
                try await service.delete(
                    projectId: try request.integer("project_id"), name: request.parameter("name"),
                    environment: try Self.environment(request))
            }
        }
        let send = RouteGroup([admin.check(.send, .projectPath), CredentialsKept(credentials: credentials)]) {
            Route("POST", base + "/{name}/broadcasts", name: "admin/live-activity-channels/broadcasts") { request in
                let projectId = try request.integer("project_id")
                let environment = try Self.environment(request)
                // The key's answer is the channel's: its path (name and environment) is in the fingerprint.
                let idempotency = try IdempotencyToken(
                    projectId: projectId, caller: "admin", key: request.http.header(Wire.idempotencyKeyHeader),
                    endpoint: "\(request.http.path)?apns_environment=\(environment.rawValue)", body: request.http.body)
                return try await service.broadcast(
                    projectId: projectId, name: request.parameter("name"), environment: environment,
                    try JSONBody.decode(LiveActivityBroadcastRequest.self, from: request.http), idempotency: idempotency
                ).response
            }
        }
        return [read, configure, send].flatMap(\.all)
    }

    static func environment(_ request: RouteRequest) throws(APIError) -> APNsEnvironment {
        guard let given = request.http.query["apns_environment"] else { return .production }
        guard let environment = APNsEnvironment(rawValue: given) else {
            throw .badRequest("apns_environment must be production or sandbox, not \(given.prefix(32))")
        }
        return environment
    }

    func channels(projectId: Int64) async throws -> [LiveActivityChannelView] {
        try await store.read { tx in
            try AdminService.project(tx, projectId)
            return try tx.liveActivityChannels(projectId: projectId).map(LiveActivityChannelView.init)
        }
    }

    func create(projectId: Int64, _ request: LiveActivityChannelCreateRequest) async throws -> LiveActivityChannelView {
        try LiveActivityChannelRules.name(request.name)
        let storage = try LiveActivityChannelRules.storage(request.storage)
        let environment = request.apnsEnvironment ?? .production
        let existing = try await store.read { tx in
            try AdminService.project(tx, projectId)
            return try tx.liveActivityChannel(projectId: projectId, environment: environment, name: request.name)
        }
        if existing != nil { throw Self.taken(request.name, environment) }
        let client = try await client(projectId: projectId, environment: environment)
        let channelId: String
        do {
            channelId = try await client.create(storage: storage)
        } catch {
            throw LiveActivityChannelRules.apiError(error, channel: request.name)
        }
        let channel = StoredLiveActivityChannel(
            projectId: projectId, apnsEnvironment: environment, name: request.name, channelId: channelId,
            storage: storage.rawValue, createdAt: clock())
        let kept: Bool
        do {
            kept = try await store.write { try $0.insertLiveActivityChannel(channel) }
        } catch {
            try? await client.delete(channelId)
            throw error
        }
        guard kept else {
            // Another request made one of that name meanwhile: this one's goes again.
            try? await client.delete(channelId)
            throw Self.taken(request.name, environment)
        }
        return LiveActivityChannelView(channel)
    }

    func delete(projectId: Int64, name: String, environment: APNsEnvironment) async throws {
        let channel = try await stored(projectId: projectId, name: name, environment: environment)
        let client = try await client(projectId: projectId, environment: environment)
        do {
            try await client.delete(channel.channelId)
        } catch {
            throw LiveActivityChannelRules.apiError(error, channel: name)
        }
        _ = try await store.write {
            try $0.deleteLiveActivityChannel(projectId: projectId, environment: environment, name: name)
        }
    }

    /// Sends one broadcast. With an `Idempotency-Key`, a repeat of a broadcast that was answered
    /// answers the same and sends nothing; two at the same moment may both reach APNs (an update
    /// repeated shows the same content: ActivityKit keeps the newest).
    func broadcast(
        projectId: Int64, name: String, environment: APNsEnvironment, _ request: LiveActivityBroadcastRequest,
        idempotency: IdempotencyToken
    ) async throws -> Answer {
        try LiveActivityChannelRules.check(request)
        if let replay = try await store.storedReplay(idempotency) { return replay }
        let channel = try await stored(projectId: projectId, name: name, environment: environment)
        let now = clock()
        let payload = try LiveActivityChannelRules.payload(request, sentAt: now)
        let client = try await client(projectId: projectId, environment: environment)
        let sent: APNsChannelClient.Sent
        do {
            sent = try await client.broadcast(
                channel.channelId, payload: payload, priority: request.priority ?? 10,
                expiration: request.ttl.map { now / 1000 + $0 })
        } catch {
            throw LiveActivityChannelRules.apiError(error, channel: name)
        }
        let answer = Answer(
            status: 200,
            body: try JSONCoders.encoder.encode(
                LiveActivityBroadcastAnswer(
                    name: name, apnsEnvironment: environment, event: request.event, sentAt: now,
                    apnsRequestId: sent.requestId, apnsUniqueId: sent.uniqueId)))
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            try tx.recordLiveActivityBroadcast(
                projectId: projectId, environment: environment, name: name, event: request.event, at: now)
            return answer
        }
    }

    private func stored(projectId: Int64, name: String, environment: APNsEnvironment) async throws
        -> StoredLiveActivityChannel
    {
        try LiveActivityChannelRules.name(name)
        let channel = try await store.read { tx in
            try AdminService.project(tx, projectId)
            return try tx.liveActivityChannel(projectId: projectId, environment: environment, name: name)
        }
        guard let channel else {
            throw APIError.notFound(
                "project \(projectId) has no Live Activity channel named \(name) in APNs' \(environment.rawValue) "
                    + "environment (?apns_environment=sandbox for a sandbox one)")
        }
        return channel
    }

    /// The project's channel client for `environment`, made again when its credential changes.
    private func client(projectId: Int64, environment: APNsEnvironment) async throws -> APNsChannelClient {
        guard let credentials else { throw CredentialsKept.none }
        guard case .apns(let credential) = try await credentials.credential(.apns, projectId: projectId) else {
            throw APIError.conflict(
                "project \(projectId) has no APNs credentials: PUT /api/v1/admin/projects/\(projectId)/credentials/apns"
            )
        }
        guard let bundleId = credential.topic else {
            throw APIError.conflict(
                "project \(projectId)'s APNs credentials have no topic: channels belong to an app, so PUT them again "
                    + "with topic, the app's bundle id")
        }
        let endpoints = endpoints
        return try await clients.client(
            .init(projectId: projectId, environment: environment), fingerprint: credential.fingerprint + bundleId
        ) {
            try APNsChannelClient(
                credential: credential, bundleId: bundleId, management: endpoints.apnsChannels(environment),
                push: endpoints.apns(environment), caFile: endpoints.caFile, timeout: endpoints.requestTimeout)
        }
    }

    private static func taken(_ name: String, _ environment: APNsEnvironment) -> APIError {
        .conflict("the project has a Live Activity channel named \(name) in \(environment.rawValue) already")
    }
}
