import Foundation
@_exported import TernCore
@_exported import TernProtocol

extension Tern {
    /// The in-app module: campaigns fetched for this device, matched on the device against its
    /// triggers (the app's launch, screens, named triggers), capped, and shown one at a time.
    ///
    /// ```swift
    /// Tern.shared.inApp.registerLifecycleTracking()
    /// Tern.shared.inApp.setScreen(screen: "home_screen")
    /// Tern.shared.inApp.trigger("added_to_cart", properties: ["total": 42])
    /// ```
    public var inApp: InApp {
        core.register(InAppModule(core: core))
        return InApp(core: core)
    }
}

/// `Tern.shared.inApp`.
public struct InApp: Sendable {
    let core: CoreServices

    /// In-app subscriptions: subscribe, unsubscribe, status.
    public var subscription: InAppSubscriptionAPI { InAppSubscriptionAPI(core: core) }

    /// Follows the app's lifecycle: the first time the app comes to the foreground an `openApp`
    /// trigger fires (once per launch). Call it as early as possible (in
    /// `application(_:didFinishLaunchingWithOptions:)`).
    public func registerLifecycleTracking() {
        PlatformLifecycle.attach(core)
        withEngine("registerLifecycleTracking") { engine, _ in await engine.registerLifecycleTracking() }
    }

    /// Sets the current screen: sent with the next placements request, and a change of screen
    /// fires an `openPage` trigger. An empty name is refused (`invalidStaticField`).
    public func setScreen(screen: String) {
        let function = "setScreen"
        guard let screen = Self.checkedName(screen, field: "screen", function: function, core) else { return }
        withEngine(function) { engine, _ in await engine.setScreen(screen) }
    }

    /// Fires the custom trigger `name` (a campaign with a `custom` trigger of that name shows).
    public func trigger(name: String) {
        trigger(name, properties: [:])
    }

    /// Fires the custom trigger `name` with `properties` its campaigns' conditions are checked
    /// against (JSON values). An empty name or a value JSON cannot carry is refused
    /// (`invalidStaticField`, with the field and the reason).
    ///
    /// ```swift
    /// Tern.shared.inApp.trigger("purchase", properties: ["total": 120, "currency": "EUR"])
    /// ```
    public func trigger(_ name: String, properties: [String: Any?] = [:]) {
        let function = "trigger"
        guard let name = Self.checkedName(name, field: "name", function: function, core) else { return }
        let values: [String: JSONValue]
        switch FieldValues.json(properties) {
        case .failure(let problem):
            core.emit(
                .error(
                    function, InAppModuleEvents.invalidStaticField,
                    value: ["reason": problem.reason(in: "properties"), "field": problem.field]))
            return
        case .success(let converted):
            values = converted ?? [:]
        }
        withEngine(function) { engine, _ in
            engine.enqueue(.trigger(.custom(name, properties: values), function: function))
        }
    }

    /// Asks the server for this device's placements now (never limited by
    /// `placementsRequestInterval`): `inAppPlacementsRequestSuccessful`, whose value carries the
    /// placements kept (`placements`, `[InAppPlacement]`) and their `count`, or
    /// `inAppPlacementsRequestFailed`. More than `maxPlacements` raises `placementsLimitExceeded`
    /// and keeps the highest-priority ones.
    public func getPlacements() {
        withEngine("getPlacements") { engine, _ in engine.enqueue(.fetch(.manual, function: "getPlacements")) }
    }

    /// Sets the animation run on each message's view once its content is loaded.
    public func animation(_ block: @escaping @MainActor @Sendable (any InAppAnimator) -> Void) {
        withEngine("animation") { engine, _ in await engine.setAnimation(block) }
    }

    /// Says what the app does with buttons (``InAppHandlers``); buttons no handler or default takes
    /// are not drawn.
    public func setHandlers(_ handlers: InAppHandlers) {
        withEngine("setHandlers") { engine, _ in await engine.setHandlers(handlers) }
    }

    /// Draws messages with `presenter` (the SDK's own window does this on iOS; see `TernInAppUI`).
    public func setPresenter(_ presenter: any InAppPresenter) {
        withEngine("setPresenter") { engine, _ in await engine.setPresenter(presenter) }
    }

    /// The app draws messages itself: `presenting` is handed each ``InAppPresentation`` to show
    /// (counted as shown when handed) and nil when it must go. Answer with ``clicked(_:)``,
    /// ``dismissed()`` or ``closed()``.
    ///
    /// ```swift
    /// Tern.shared.inApp.start { presentation in model.current = presentation }
    /// ```
    public func start(presenting: @escaping @MainActor @Sendable (InAppPresentation?) -> Void) {
        setPresenter(ClosurePresenter(body: presenting))
    }

    /// The person tapped the button `buttonId` of what is shown: reported, its action done, closed.
    public func clicked(_ buttonId: String) {
        current("clicked") { channel, id in channel.clicked(id, buttonId: buttonId) }
    }

    /// The person dismissed what is shown (a swipe, a tap outside): reported `closed`.
    public func dismissed() {
        current("dismissed") { channel, id in channel.closed(id) }
    }

    /// What is shown was closed (its close button, or the app took it down): reported `closed`.
    public func closed() {
        current("closed") { channel, id in channel.closed(id) }
    }

    /// Stops showing messages: what is shown goes, nothing more is shown until a presenter is set again.
    public func stop() {
        withEngine("stop") { engine, _ in await engine.setPresenter(nil) }
    }

    /// Asks for the person's campaigns again (as ``getPlacements()``).
    public func refresh() {
        withEngine("refresh") { engine, _ in engine.enqueue(.fetch(.manual, function: "refresh")) }
    }

    /// Runs `body` once every in-app call made before it has been handled (tests, the simulated device).
    public func settle() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            withEngine("settle", unrun: { done.resume() }) { engine, _ in engine.enqueue(.barrier { done.resume() }) }
        }
    }

    /// `body` with the started engine, in the mailbox's order; `unrun` instead when the SDK lets the
    /// call go without running it (``CoreServices/perform(_:unrun:_:)``).
    func withEngine(
        _ function: String, unrun: (@Sendable () -> Void)? = nil,
        _ body: @escaping @Sendable (InAppEngine, ReadyCore) async -> Void
    ) {
        let core = self.core
        let command: @Sendable (ReadyCore) async -> Void = { ready in
            let engine = await InAppModule.engine(core)
            await engine.start(ready)
            await body(engine, ready)
        }
        if let unrun { core.perform(function, unrun: unrun, command) } else { core.perform(function, command) }
    }

    private func current(_ function: String, _ body: @escaping @Sendable (InAppDisplayChannel, String) -> Void) {
        withEngine(function) { engine, _ in
            guard let id = await engine.currentPresentationId else { return }
            body(await engine.channel, id)
        }
    }

    static func checkedName(_ value: String, field: String, function: String, _ core: CoreServices) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 256 else {
            core.emit(
                .error(
                    function, InAppModuleEvents.invalidStaticField,
                    value: ["reason": "\(field) must be 1 to 256 characters", "field": field]))
            return nil
        }
        return trimmed
    }
}

/// The in-app module as the core initializes, clears and signs in or out.
struct InAppModule: TernModule {
    let core: CoreServices
    var moduleName: String { "inapp" }
    var parts: ModuleParts { InAppParts.parts }

    static func engine(_ core: CoreServices) async -> InAppEngine {
        await core.slots.value("inapp.engine") { InAppEngine(core: core) }
    }

    func initialize(_ ready: ReadyCore) async throws {
        await Self.engine(core).start(ready)
    }

    func clear(_ ready: ReadyCore) async {
        await Self.engine(core).reset()
    }

    func authenticationChanged(_ ready: ReadyCore, signedIn: Bool) async {
        await Self.engine(core).authenticationChanged()
    }
}

/// Found by name when the SDK initializes (`TernModuleEntry`), so the module comes up whether or
/// not the app touched it first.
public enum TernModuleEntryPoint: TernModuleEntry {
    /// The in-app module of `core`'s SDK instance.
    public static func module(_ core: CoreServices) -> any TernModule {
        InAppModule(core: core)
    }
}
