import Foundation
import TernProtocol

/// The core's state: configuration phase, database, sender, consent, modules. Every public call
/// reaches it through one of ``Tern``'s ordered queues.
actor CoreRuntime {
    enum Phase {
        /// No usable configuration yet: commands wait.
        case waiting
        /// The last configuration was unusable: commands fail with `configIsNotSet`.
        case failed
        /// Configured; modules are initializing: commands still wait.
        case initializing(ReadyCore)
        case ready(ReadyCore)
    }

    static let tokenKey = "core.token"
    static let consentKey = "core.collectionEnabled"
    static let authenticatedKey = "core.authenticated"

    nonisolated let environment: TernEnvironment
    nonisolated let bus: EventBus
    nonisolated let auth = AuthSource()
    /// The identity journal's sender, and the app's backend for VERIFIED logins.
    nonisolated let identity = IdentityDriver()
    nonisolated let identityTokens = IdentityTokenSource()
    let completions: CompletionRegistry
    let syncStates = SyncStateHub()
    /// Every call and follow-up, in order.
    nonisolated let mailbox = Mailbox()

    var phase = Phase.waiting
    var appGroup: String?
    var store: CoreStore?
    var sender: Sender?
    var sessions: SessionTracker?
    /// Applies the app's lifecycle states to `sessions`.
    var sessionListener: Task<Void, Never>?
    var modules: [any TernModule] = []
    /// The linked modules' names in initialization order (the others come after them).
    var linkedOrder: [String] = []
    /// Every event kind the core and its registered modules know.
    var events = EventCatalog()
    /// The registered modules' body finalizers and configuration checks, in registration order.
    var finalizers: [ModuleParts.BodyFinalizer] = []
    var configurationChecks: [ModuleParts.ConfigurationCheck] = []
    /// The registered modules' readers of a Tern push (``ModuleParts/handlePush``), in module order.
    var pushHandlers: [ModuleParts.PushHandler] = []
    /// Modules whose migrations failed on the open database, with the reason.
    var migrationFailures: [String: String] = [:]
    /// Letters waiting for initialization, in the order they were posted.
    var parked: [Parked] = []
    var unparking = false
    var unparkWaiters: [CheckedContinuation<Void, Never>] = []
    var initAwaitReported = false
    /// The device's token as last read or written (`.none`: not read yet).
    var cachedToken: TokenData??
    /// Counts `authenticate()` and `logOut()` calls: a refusal only undoes the latest.
    var authAttempt = 0
    var initTask: Task<Void, Never>?
    var generation = 0
    var configCollection = true
    var savedCollection: Bool?
    var collectionOverride: Bool?
    var writes: [PendingWrite] = []
    var writing = false
    var writesIdle: [CheckedContinuation<Void, Never>] = []
    var writeTicket = 0
    var failedTickets: Set<Int> = []

    init(environment: TernEnvironment, bus: EventBus) {
        self.environment = environment
        self.bus = bus
        completions = CompletionRegistry(bus: bus)
        mailbox.open(for: self)
    }

    var configuration: TernConfiguration? {
        switch phase {
        case .initializing(let ready), .ready(let ready): ready.configuration
        case .waiting, .failed: nil
        }
    }

    var collectionEnabled: Bool {
        collectionOverride ?? (configCollection && savedCollection != false)
    }

    func setAppGroup(_ name: String?) {
        appGroup = name.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Opens the database in the app-group container (again, if the group changed).
    func openStore() throws -> CoreStore {
        let directory = try environment.container.directory(forGroup: appGroup)
        let path = directory.appendingPathComponent(CoreStore.fileName).path
        if let store, store.path == path { return store }
        let opened = try CoreStore(directory: directory)
        store = opened
        cachedToken = nil
        return opened
    }

    /// Registers the linked modules (found by name), remembering their order for initialization.
    func register(linked: [any TernModule]) async {
        linkedOrder = linked.map(\.moduleName)
        for module in linked { await register(module) }
    }

    /// Takes a module's parts (events, finalizer, checks, migrations) and, once initialized,
    /// initializes it at once.
    func register(_ module: any TernModule) async {
        guard !modules.contains(where: { $0.moduleName == module.moduleName }) else { return }
        modules.append(module)
        let parts = module.parts
        events.add(parts.events)
        if let finalize = parts.finalizeBody { finalizers.append(finalize) }
        if let check = parts.checkConfiguration { configurationChecks.append(check) }
        if let handle = parts.handlePush { pushHandlers.append(handle) }
        await sender?.use(events, finalizers)
        if let store { await migrate(module, store) }
        if case .ready(let ready) = phase {
            if let failure = migrationFailures[module.moduleName] {
                bus.emit(
                    .error(
                        "initialization", CoreEvents.moduleInitFailed,
                        value: ["module": module.moduleName, "reason": failure]))
                return
            }
            do {
                try await module.initialize(ready)
            } catch {
                bus.emit(
                    .error(
                        "initialization", CoreEvents.moduleInitFailed,
                        value: ["module": module.moduleName, "reason": "\(error)"]))
            }
        }
    }

    /// Accepts requests for the outbox. They are written in order, many per transaction (a group
    /// commit: while one transaction runs, the next requests gather); with `waitUntilWritten` the
    /// call returns once its own are on disk. False when nothing was accepted (collection off, no
    /// database) or, when waiting, the write failed.
    func enqueue(
        _ entries: [OutboxEntry], journal: [String: JSONValue], waitUntilWritten: Bool = false,
        completion: (@Sendable (ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>?) -> Void)?
    ) async -> Bool {
        guard let function = entries.first?.meta.function else { return true }
        guard collectionEnabled else {
            bus.emit(.error(function, CoreEvents.collectionDisabled))
            await syncStates.publish(
                entries.map {
                    SyncUpdate(requestId: $0.idempotencyKey, state: .failed(reason: "collection is disabled"))
                })
            return false
        }
        guard store != nil else {
            bus.emit(.error(function, CoreEvents.configIsNotSet))
            return false
        }
        if let completion, let key = entries.first?.idempotencyKey {
            await completions.register(key, completion)
        }
        guard waitUntilWritten else {
            writes.append(PendingWrite(entries: entries, journal: journal, waiter: nil))
            startWriting()
            return true
        }
        guard !writing else {
            return await withCheckedContinuation { waiter in
                writes.append(PendingWrite(entries: entries, journal: journal, waiter: waiter))
            }
        }
        // Nobody is writing: write here, without a task hop (with whatever gathers meanwhile).
        writeTicket += 1
        let ticket = writeTicket
        writes.append(PendingWrite(entries: entries, journal: journal, waiter: nil, ticket: ticket))
        writing = true
        await writeAll()
        return failedTickets.remove(ticket) == nil
    }

    /// Applies a module's migrations to `store`; a failure is remembered (the module reports it as
    /// its initialization error) and raised as `databaseError`.
    func migrate(_ module: any TernModule, _ store: CoreStore) async {
        let migrations = module.parts.migrations
        guard !migrations.isEmpty else { return }
        do {
            try await store.migrate(module: module.moduleName, migrations)
            migrationFailures[module.moduleName] = nil
        } catch {
            migrationFailures[module.moduleName] = "its migrations failed: \(error)"
            bus.emit(
                .error(
                    "initialization", CoreEvents.databaseError,
                    value: ["module": module.moduleName, "reason": "\(error)"]))
        }
    }

    /// The core as commands see it, nil before a usable configuration.
    var readyCore: ReadyCore? {
        switch phase {
        case .initializing(let ready), .ready(let ready): ready
        case .waiting, .failed: nil
        }
    }

    func wakeSender() {
        sender?.wake()
    }

    func token() async -> TokenData? {
        if let cachedToken { return cachedToken }
        let read = await store?.setting(Self.tokenKey, as: TokenData.self)
        cachedToken = .some(read)
        return read
    }

    func setToken(_ token: TokenData?) async throws {
        guard let store else { throw TernError("the SDK is not initialized: the token was not saved") }
        try await store.setSetting(Self.tokenKey, token)
        cachedToken = .some(token)
        sender?.wake()
        if let readyCore { await identity.wake(readyCore) }
    }

    func tokenAndAutomaticFields() async -> (token: TokenData?, fields: [String: JSONValue]) {
        (await token(), await automaticFields())
    }

    func automaticFields() async -> [String: JSONValue] {
        var fields = DeviceFields.fields(await environment.deviceInfo.current())
        if let appInfo = configuration?.appInfo {
            fields["_app_id"] = .string(appInfo.appID)
            fields["_app_iid"] = .string(appInfo.appIID)
            fields["_app_ver"] = .string(appInfo.appVer)
        }
        if let sessions {
            fields.merge(sessions.fields(now: environment.clock.now())) { _, session in session }
        }
        return fields
    }

    func setCollectionEnabled(_ enabled: Bool) async {
        collectionOverride = enabled
        savedCollection = enabled
        if let store {
            do { try await store.setSetting(Self.consentKey, enabled) } catch {
                bus.emit(.error("setCollectionEnabled", CoreEvents.databaseError, value: ["reason": "\(error)"]))
            }
        }
        sessions?.enabled = enabled
        if enabled { sender?.wake() }
    }
}

extension CoreRuntime {
    /// A lifecycle state for the session count: saved, and reported through the mailbox when a
    /// session starts or a foreground stretch ends. The listener awaits each before the next.
    func applySession(_ state: AppState) async {
        let now = environment.clock.now()
        guard let change = sessions?.apply(state, at: now) else { return }
        try? await store?.setSetting(SessionTracker.key, change.record)
        guard change.reportable else { return }
        let record = change.record
        mailbox.post(.command(DeviceReport.function) { ready in await DeviceReport.queue(ready, record, at: now) })
    }
}
