import Foundation
import TernProtocol

/// The in-app module's state for one SDK instance: the cached placements, the caps ledger, the
/// subscription status, sessions, the display queue. Every decision is made here or in the pure
/// parts it calls; presenters only draw.
///
/// Work that may wait on the network (fetching placements, a trigger that needs fresh placements,
/// downloading a template's image) runs in order on its own loop, never in the SDK's mailbox; the
/// presenter's reports run on another loop, so a tap is never held up by a request.
actor InAppEngine {
    enum Work: Sendable {
        case fetch(FetchReason, function: String)
        case trigger(InAppTriggerEvent, function: String)
        case identityChanged
        /// Runs once the work queued before it has run (tests, `settle`).
        case barrier(@Sendable () -> Void)
    }

    static let placementsKey = "inapp.placements"
    static let lastFetchKey = "inapp.lastFetch"
    static let ledgerKey = "inapp.ledger"
    static let statusKey = "inapp.status"
    /// How long the SDK waits for `inapp/placements` before giving up (the next trigger asks again).
    static let placementsTimeout: TimeInterval = 15
    /// How long a slide-up waits for its script's geometry before it covers the screen.
    static let geometryWait: TimeInterval = 1

    let core: CoreServices
    private var ready: ReadyCore?
    private var loaded = false
    private var campaigns: [InAppCampaign] = [] {
        didSet { index = CampaignIndex(campaigns) }
    }
    private var index = CampaignIndex([])
    private var projectCaps = InAppCaps()
    private var ledger = CapLedger()
    private var lastSuccess: Date?
    private var lastFailure: Date?
    private var status: String?
    private var screen: String?
    private var queue = DisplayQueue()
    private var session: SessionRule
    private var tracking = false
    private var openAppFired = false
    private var presenter: (any InAppPresenter)?
    private var handlers = InAppHandlers()
    private var system: any InAppSystemActions
    private var animation: (@MainActor @Sendable (any InAppAnimator) -> Void)?
    private var tasks: [Task<Void, Never>] = []
    private let work: AsyncStream<Work>.Continuation
    private let inputs: AsyncStream<DisplayQueue.Input>.Continuation

    init(core: CoreServices) {
        self.core = core
        session = SessionRule(timeout: core.environment.sessionTimeout)
        system = PlatformSystemActions.make()
        let (workStream, work) = AsyncStream.makeStream(of: Work.self)
        let (inputStream, inputs) = AsyncStream.makeStream(of: DisplayQueue.Input.self)
        self.work = work
        self.inputs = inputs
        Task { [weak self] in
            for await item in workStream {
                guard let self else { return }
                await self.run(item)
            }
        }
        Task { [weak self] in
            for await input in inputStream {
                guard let self else { return }
                await self.apply(input)
            }
        }
    }

    /// The presenter's line back to the engine, with the app's animation.
    var channel: InAppDisplayChannel { InAppDisplayChannel(inputs: inputs, animation: animation) }

    // MARK: Start

    /// Loads what the database keeps (placements, ledger, status, last fetch), follows the app's
    /// lifecycle for sessions, and with `inAppAutoRequest` asks for placements.
    func start(_ ready: ReadyCore) async {
        guard !loaded else { return }
        self.ready = ready
        loaded = true
        if let cache = await ready.setting(Self.placementsKey).flatMap({ Self.decode(PlacementsCache.self, $0) }) {
            campaigns = cache.campaigns
            projectCaps = cache.projectCaps
        }
        ledger = await ready.setting(Self.ledgerKey).flatMap { Self.decode(CapLedger.self, $0) } ?? CapLedger()
        lastSuccess = await ready.setting(Self.lastFetchKey).flatMap { $0.doubleValue }.map {
            Date(timeIntervalSince1970: $0)
        }
        status = await ready.setting(Self.statusKey)?.stringValue
        let states = await core.environment.lifecycle.states()
        tasks.append(
            Task { [weak self] in
                for await state in states {
                    guard let self else { return }
                    await self.lifecycle(state)
                }
            })
        if ready.configuration.inAppAutoRequest {
            work.yield(.fetch(.automatic, function: "initialization"))
            let interval = ready.configuration.placementsRequestInterval
            let clock = core.environment.clock
            tasks.append(
                Task { [weak self] in
                    while !Task.isCancelled {
                        guard (try? await clock.sleep(seconds: interval)) != nil, let self else { return }
                        await self.tick()
                    }
                })
        }
    }

    private func tick() {
        if session.inForeground { work.yield(.fetch(.automatic, function: "placementsRequestInterval")) }
    }

    private func lifecycle(_ state: AppState) async {
        guard let ready else { return }
        switch state {
        case .foreground:
            if session.foreground(at: ready.now) {
                ledger.startSession()
                await saveLedger()
                if ready.configuration.inAppAutoRequest { work.yield(.fetch(.automatic, function: "session")) }
            }
            fireOpenAppIfTracking()
        case .background:
            session.background(at: ready.now)
        }
    }

    private func fireOpenAppIfTracking() {
        guard tracking, session.inForeground, !openAppFired else { return }
        openAppFired = true
        work.yield(.trigger(.openApp, function: "registerLifecycleTracking"))
    }

    // MARK: Calls from the app

    func registerLifecycleTracking() {
        tracking = true
        fireOpenAppIfTracking()
    }

    func setScreen(_ screen: String) {
        guard self.screen != screen else { return }
        self.screen = screen
        work.yield(.trigger(.openPage(screen), function: "setScreen"))
    }

    nonisolated func enqueue(_ item: Work) {
        work.yield(item)
    }

    func setPresenter(_ presenter: (any InAppPresenter)?) async {
        if presenter == nil {
            // The presenter that shows something takes it down before it goes.
            await apply(.stop)
        }
        self.presenter = presenter
    }

    func setHandlers(_ handlers: InAppHandlers) {
        self.handlers = handlers
    }

    func setSystemActions(_ system: any InAppSystemActions) {
        self.system = system
    }

    func setAnimation(_ block: @escaping @MainActor @Sendable (any InAppAnimator) -> Void) {
        animation = block
    }

    var currentAnimation: (@MainActor @Sendable (any InAppAnimator) -> Void)? { animation }

    /// The in-app subscription status the server answered (`subscribed`, …; nil: none).
    func setStatus(_ status: String?) async {
        self.status = status
        try? await ready?.setSetting(Self.statusKey, status.map(JSONValue.string))
    }

    /// The user signed in or out: a new session, and the cached placements were someone else's.
    func authenticationChanged() async {
        ledger.startSession()
        await saveLedger()
        work.yield(.identityChanged)
    }

    /// Forgets everything (`Tern.clear`; the database rows are already gone).
    func reset() {
        campaigns = []
        projectCaps = InAppCaps()
        ledger = CapLedger()
        lastSuccess = nil
        status = nil
        inputs.yield(.stop)
    }

    /// The cached placements, highest priority first.
    var cachedCampaigns: [InAppCampaign] { campaigns }
    /// The ledger (tests read it).
    var currentLedger: CapLedger { ledger }
    /// The presentation on screen or loading, if any.
    var currentPresentationId: String? { queue.current?.id }
    /// The subscription status the engine acts on.
    var currentStatus: String? { status }

    // MARK: The work loop

    private func run(_ item: Work) async {
        guard let ready else { return }
        switch item {
        case .fetch(let reason, let function):
            await fetch(reason, function: function, ready)
        case .trigger(let event, let function):
            if FetchSchedule.isDue(
                .trigger, lastSuccess: lastSuccess, lastFailure: lastFailure,
                interval: ready.configuration.placementsRequestInterval,
                now: ready.now)
            {
                await fetch(.trigger, function: function, ready)
            }
            await show(event, function: function, ready)
        case .identityChanged:
            campaigns = []
            status = nil
            lastSuccess = nil
            try? await ready.setSetting(Self.placementsKey, nil)
            try? await ready.setSetting(Self.lastFetchKey, nil)
            try? await ready.setSetting(Self.statusKey, nil)
            if ready.configuration.inAppAutoRequest { await fetch(.identity, function: "authentication", ready) }
        case .barrier(let done):
            done()
        }
    }

    private func fetch(_ reason: FetchReason, function: String, _ ready: ReadyCore) async {
        let interval = ready.configuration.placementsRequestInterval
        guard FetchSchedule.isDue(reason, lastSuccess: lastSuccess, interval: interval, now: ready.now) else { return }
        let maxPlacements = ready.configuration.maxPlacements
        let token = await ready.token()
        let request = InAppPlacementsRequest(
            provider: token?.provider, subscriptionId: token?.token, screen: screen, maxPlacements: maxPlacements)
        let failure = { (value: [String: any Sendable]) in
            self.lastFailure = ready.now
            ready.emit(.error(function, InAppModuleEvents.inAppPlacementsRequestFailed, value: value))
        }
        guard let body = try? JSONEncoder().encode(request),
            let url = URL(string: ready.configuration.apiUrl + "/" + Endpoint.inAppPlacements.rawValue)
        else {
            failure(["reason": "cannot make the request from apiUrl \(ready.configuration.apiUrl)"])
            return
        }
        let credentials = await ready.auth.credentials(rToken: ready.configuration.rToken)
        guard !credentials.isEmpty else {
            failure(["reason": "no credentials: the JWT provider gave nil and the configuration has no rToken"])
            return
        }
        var headers = credentials.headers
        headers["Content-Type"] = "application/json"
        let response: TransportResponse
        do {
            response = try await core.environment.transport.send(
                TransportRequest(
                    url: url, method: Endpoint.inAppPlacements.method, headers: headers, body: body,
                    timeout: Self.placementsTimeout))
        } catch {
            failure(["reason": "\(error)"])
            return
        }
        let envelope = try? JSONDecoder().decode(ResponseModel.ResponseWithProfile.self, from: response.body)
        guard (200..<300).contains(response.status), envelope?.error ?? 0 == 0,
            let answer = PlacementsAnswer.read(response.body, maxPlacements: maxPlacements)
        else {
            failure([
                "http_code": response.status, "error": envelope?.error ?? response.status,
                "error_text": envelope?.errorText ?? "the answer is not an in-app placements envelope",
            ])
            return
        }
        for problem in answer.problems {
            ready.emit(.error(function, problem.event, value: ["reason": problem.reason]))
        }
        if answer.limitExceeded {
            ready.emit(
                .error(
                    function, InAppModuleEvents.placementsLimitExceeded,
                    value: ["maxPlacements": maxPlacements, "kept": answer.campaigns.count]))
        }
        campaigns = answer.campaigns
        projectCaps = answer.projectCaps
        status = answer.status
        lastSuccess = ready.now
        lastFailure = nil
        try? await ready.setSetting(
            Self.placementsKey,
            Self.encode(PlacementsCache(campaigns, projectCaps: projectCaps)))
        try? await ready.setSetting(Self.lastFetchKey, .double(ready.now.timeIntervalSince1970))
        try? await ready.setSetting(Self.statusKey, status.map(JSONValue.string))
        // As every request's success event: the answer's `http_code`, `error` and `error_text`; and
        // the result itself, as the reference says `getPlacements()`'s comes through events: the
        // placements kept (after `maxPlacements` and those left out).
        ready.emit(
            .info(
                function, InAppModuleEvents.inAppPlacementsRequestSuccessful,
                value: [
                    "http_code": response.status, "error": envelope?.error ?? 0,
                    "error_text": envelope?.errorText ?? "",
                    "count": campaigns.count, "placements": campaigns.map(\.placement),
                ]))
    }

    /// Matches `event`, prepares the first campaign it may show, and queues it.
    private func show(_ event: InAppTriggerEvent, function: String, _ ready: ReadyCore) async {
        guard presenter != nil else { return }
        let context = SelectionContext(
            now: ready.now, subscribed: status == SubscriptionStatus.subscribed.rawValue,
            consent: await ready.collectionEnabled(), projectCaps: projectCaps)
        let builder = PresentationBuilder(
            apiUrl: ready.configuration.apiUrl, transport: core.environment.transport, handlers: handlers,
            system: system)
        // The first campaign that matches, may show and loads; one that fails to load is reported
        // and the next is tried.
        var excluded = Set(campaigns.map(\.campaignId).filter { queue.holds($0) })
        while let campaign = index.select(event, context: context, ledger: ledger, excluding: excluded) {
            excluded.insert(campaign.campaignId)
            let id = RequestKey.make()
            switch await builder.build(id: id, campaign) {
            case .success(let presentation):
                inputs.yield(.enqueue(presentation))
                return
            case .failure(let failure):
                ready.emit(.error(function, failure.event, value: ["reason": failure.reason, "smid": campaign.smid]))
                report(
                    InAppPresentation(id: id, campaign: campaign, buttons: [], layout: .fullScreen), .error(failure),
                    ready)
            }
        }
    }

    // MARK: The display loop

    private func apply(_ input: DisplayQueue.Input) async {
        for command in queue.handle(input) { await run(command) }
    }

    private func run(_ command: DisplayQueue.Command) async {
        switch command {
        case .present(let presentation):
            guard let presenter else {
                if let presentation { inputs.yield(.closed(presentation.id)) }
                return
            }
            await presenter.present(presentation, channel: channel)
        case .startGeometryTimer(let id):
            let clock = core.environment.clock
            let inputs = self.inputs
            tasks.append(
                Task {
                    guard (try? await clock.sleep(seconds: Self.geometryWait)) != nil else { return }
                    inputs.yield(.geometryTimeout(id))
                })
        case .layout(let id, let layout):
            await presenter?.layout(id, layout)
        case .report(let presentation, let report):
            guard let ready else { return }
            if report == .shown {
                ledger.record(presentation.campaign.campaignId, now: ready.now)
                await saveLedger()
            }
            if case .error(let failure) = report {
                ready.emit(
                    .error(
                        "inAppDisplay", failure.event,
                        value: ["reason": failure.reason, "smid": presentation.campaign.smid]))
            }
            self.report(presentation, report, ready)
        case .perform(let action):
            let handlers = self.handlers
            let system = self.system
            await MainActor.run { ButtonRules.perform(action, handlers: handlers, system: system) }
        case .dropped:
            break
        }
    }

    private func saveLedger() async {
        guard let ready else { return }
        try? await ready.setSetting(Self.ledgerKey, Self.encode(ledger))
    }

    static func encode<T: Encodable>(_ value: T) -> JSONValue? {
        guard let data = try? JSONEncoder().encode(value) else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue) -> T? {
        guard let data = try? JSONEncoder().encode(value) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }
}
