import Foundation
import TernHTTP

/// The whole server: store, services, router, HTTP. `tern serve` runs one; tests can too.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 0
/// let app = try await TernServerApp.start(configuration, logger: Logger())
/// print(app.bootstrap.apiURL)
/// await app.stop()
/// ```
public final class TernServerApp: Sendable {
    /// The configuration the server was started with.
    public let configuration: ServerConfiguration
    /// What `bootstrap.json` says: the project, the push resource, its rToken, the admin key and the
    /// API's URL.
    public let bootstrap: BootstrapInfo
    /// Whether this start created the bootstrap, reused it or issued a new admin key.
    public let bootstrapOutcome: Bootstrapper.Outcome
    /// The port the server listens on.
    let port: Int
    let metrics: Metrics
    /// The provider clients the delivery engine sends through; register senders here.
    let senders: SenderRegistry
    /// Sends queued messages while the server runs.
    let engine: DeliveryEngine
    let http: HTTPServer
    let store: any Store
    let logger: Logger
    let maintenance: Task<Void, Never>

    private init(
        configuration: ServerConfiguration, bootstrap: (BootstrapInfo, Bootstrapper.Outcome), http: HTTPServer,
        store: any Store, metrics: Metrics, logger: Logger, senders: SenderRegistry, engine: DeliveryEngine,
        messages: MessageService
    ) {
        self.configuration = configuration
        (self.bootstrap, bootstrapOutcome) = bootstrap
        self.port = http.port
        self.http = http
        self.store = store
        self.metrics = metrics
        self.logger = logger
        self.senders = senders
        self.engine = engine
        let retention = configuration.deliveryRetentionDays.map {
            DeliveryRetention(store: store, days: $0, logger: logger, clock: { ServerClock.milliseconds() })
        }
        // Webhooks' events go out from every node; a client that cannot start is said once.
        let webhooks: WebhookDispatcher?
        do {
            webhooks = WebhookDispatcher(
                store: store,
                client: try HTTP2Client(configuration: .init(requestTimeout: WebhookLimits.timeout)),
                logger: logger, metrics: metrics)
        } catch {
            logger.error("webhooks' events cannot be posted: no HTTP client", ["error": "\(error)"])
            webhooks = nil
        }
        let winners = WinnerPicker(messages: messages, logger: logger, metrics: metrics)
        let opens = OpenHourCounter(store: store, logger: logger, metrics: metrics)
        let triggers = TriggerRunner(messages: messages, logger: logger, metrics: metrics)
        let recurrences = RecurrenceRunner(messages: messages, logger: logger, metrics: metrics)
        maintenance = Task {
            async let pruning: Void = Self.pruneAnswers(store: store, logger: logger)
            async let statistics: Void = Self.refreshStatistics(store: store)
            async let removal: Void = retention?.run() ?? ()
            async let posting: Void = webhooks?.run() ?? ()
            async let picking: Void = winners.run()
            async let counting: Void = opens.run()
            async let triggering: Void = triggers.run()
            async let recurring: Void = recurrences.run()
            _ = await (pruning, statistics, removal, posting, picking, counting, triggering, recurring)
        }
    }

    /// Opens the store under the data directory, binds, bootstraps, and starts serving.
    public static func start(_ configuration: ServerConfiguration, logger: Logger) async throws -> TernServerApp {
        try prepareDirectory(configuration.dataDirectory, logger: logger)
        let store = try openStore(configuration, logger: logger)
        let metrics = Metrics()
        let senders = SenderRegistry()
        let credentials = CredentialStore(
            directory: configuration.credentialsDirectory, database: store as? PostgresStore)
        for sender in ProviderSenders.all(credentials: credentials, endpoints: configuration.providers, logger: logger)
        {
            await senders.register(sender)
        }
        let engine = DeliveryEngine(
            store: store, senders: senders, metrics: metrics, logger: logger, options: configuration.delivery)
        let messages = MessageService(store: store, queued: { engine.wake() })
        let sessions = DashboardSessions()
        let assets = DashboardAssets()
        let dashboard = DashboardRoutes(
            assets: assets, sessions: sessions,
            admin: AdminService(store: store, verifier: CryptoTokenVerifier()))
        let router = Router(
            routes: routes(
                store: store, metrics: metrics, benchRoutes: configuration.benchRoutes, messages: messages,
                credentials: credentials, endpoints: configuration.providers, logger: logger) + dashboard.all,
            metrics: metrics, logger: logger)
        let http: HTTPServer
        do {
            var server = HTTPServer.Configuration(
                host: configuration.host, port: configuration.port, threads: configuration.threads,
                maxBodyBytes: configuration.maxBodyBytes,
                connectionTimeoutSeconds: configuration.connectionTimeoutSeconds,
                maxHeaderBytes: configuration.maxHeaderBytes)
            server.headTimeoutSeconds = configuration.headTimeoutSeconds
            server.bodyTimeoutSeconds = configuration.bodyTimeoutSeconds
            server.maxConnections = configuration.maxConnections
            server.maxConnectionsPerAddress = configuration.maxConnectionsPerAddress
            http = try HTTPServer(
                configuration: server, handler: DashboardGate(next: router, sessions: sessions),
                errorResponse: HTTPResponse.envelope)
        } catch {
            await store.close()
            throw error
        }
        let bootstrap = try await Bootstrapper.run(
            store: store, path: configuration.bootstrapPath, apiURL: configuration.apiURL(port: http.port),
            now: ServerClock.milliseconds())
        try http.start()
        await engine.start()
        let app = TernServerApp(
            configuration: configuration, bootstrap: bootstrap, http: http, store: store, metrics: metrics,
            logger: logger, senders: senders, engine: engine, messages: messages)
        logger.info(
            "listening",
            [
                "host": configuration.host, "port": http.port, "data": configuration.dataDirectory,
                "threads": configuration.threads, "bootstrap": "\(bootstrap.1)",
                "dashboard": assets.directory ?? "missing: set TERN_DASHBOARD_DIR",
            ])
        return app
    }

    /// Every route the server answers with this configuration.
    /// `messages` defaults to a service that queues without waking an engine (the loop's poll finds the work).
    public static func routes(
        store: any Store, metrics: Metrics, benchRoutes: Bool, messages: MessageService? = nil,
        credentials: CredentialStore? = nil, logger: Logger? = nil
    ) -> [Route] {
        routes(
            store: store, metrics: metrics, benchRoutes: benchRoutes, messages: messages, credentials: credentials,
            endpoints: ProviderEndpoints(), logger: logger)
    }

    /// ``routes(store:metrics:benchRoutes:messages:credentials:logger:)`` with the providers' origins
    /// (APNs' channel management service's among them) of the configuration; `clock` is the time the
    /// devices' events and subscriptions are received at (tests pass their own: a subscribe starts
    /// a welcome's wait on it, as a goal starts a trigger's).
    static func routes(
        store: any Store, metrics: Metrics, benchRoutes: Bool, messages: MessageService?,
        credentials: CredentialStore?, endpoints: ProviderEndpoints, logger: Logger?,
        clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds
    ) -> [Route] {
        let verifier = CryptoTokenVerifier()
        let authenticator = Authenticator(store: store, verifier: verifier)
        let sdk = SDKRoutes(
            authenticator: authenticator,
            subscriptions: SubscriptionService(store: store, clock: clock), profiles: ProfileService(store: store),
            events: EventService(store: store, metrics: metrics, clock: clock),
            tags: TagService(store: store, clock: clock),
            metrics: metrics)
        let adminService = AdminService(store: store, verifier: verifier, logger: logger)
        let admin = AdminRoutes(service: adminService)
        let sending = MessageRoutes(messages: messages ?? MessageService(store: store), admin: adminService)
        return OpsRoutes.all(store: store, metrics: metrics, benchRoutes: benchRoutes) + sdk.all + admin.all
            + sending.all + CredentialRoutes(credentials: credentials, admin: adminService, logger: logger).all
            + DashboardAPIRoutes(service: DashboardService(store: store), admin: adminService).all
            + TestDeviceRoutes(service: TestDeviceService(store: store), admin: adminService).all
            + DeviceImport(subscriptions: SubscriptionService(store: store, clock: clock)).routes(admin: adminService)
            + BackendProfileUpdate(store: store, clock: clock).routes(admin: adminService)
            + DeviceExport(store: store).routes(admin: adminService)
            + KeyRoutes(admin: adminService).all
            + LiveActivityChannelService(store: store, credentials: credentials, endpoints: endpoints).routes(
                admin: adminService)
            + InAppRoutes(
                service: InAppService(store: store, clock: clock), authenticator: authenticator, admin: adminService,
                metrics: metrics
            ).all
            + InboxRoutes(
                inbox: InboxService(store: store), authenticator: authenticator, admin: adminService, metrics: metrics
            )
            .all
            + SegmentRoutes(service: SegmentService(store: store), admin: adminService).all
            + TemplateRoutes(service: TemplateService(store: store), admin: adminService).all
            + PreferenceRoutes(
                preferences: PreferenceService(store: store), authenticator: authenticator, admin: adminService,
                metrics: metrics
            ).all
            + IdentityRoutes(
                identity: IdentityService(store: store, verifier: verifier), authenticator: authenticator,
                admin: adminService, metrics: metrics
            ).all
    }

    /// Stops accepting, lets requests in flight finish, then closes the store.
    public func stop() async {
        maintenance.cancel()
        let http = http
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // HTTPServer.stop blocks while requests drain: keep it off the cooperative threads.
            Thread.detachNewThread {
                http.stop()
                continuation.resume()
            }
        }
        await engine.stop()
        await senders.closeAll()
        await store.close()
        logger.info("stopped", [:])
        logger.flush()
    }

    static func prepareDirectory(_ path: String, logger: Logger) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ConfigurationError("--data \(path) is a file, not a directory")
            }
            let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
            if mode & 0o077 != 0 {
                logger.warn("data directory is readable by others; chmod 700 it", ["data": path])
            }
            return
        }
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Keeps the store's table statistics up with the tables' growth, every two seconds
    /// (``Store/refreshStatistics()``: plans made for a small table scan it whole once it is large),
    /// and its audience counts with the token marks (``Store/recheckTokenMarks()``).
    static func refreshStatistics(store: any Store) async {
        while !Task.isCancelled {
            await store.refreshStatistics()
            await store.recheckTokenMarks()
            try? await Task.sleep(for: .seconds(2))
        }
    }

    /// Forgets stored idempotent answers older than a week, hourly.
    static func pruneAnswers(store: any Store, logger: Logger) async {
        let week: Int64 = 7 * 24 * 3600 * 1000
        while !Task.isCancelled {
            do {
                let cutoff = ServerClock.milliseconds() - week
                let removed = try await store.write { try $0.deleteAnswers(before: cutoff) }
                if removed > 0 { logger.info("pruned idempotent answers", ["count": removed]) }
            } catch {
                logger.warn("pruning idempotent answers failed", ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}
