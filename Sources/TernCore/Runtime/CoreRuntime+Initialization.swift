import Foundation
import TernProtocol

extension CoreRuntime {
    typealias InitCompletion = @Sendable ([ModuleInitStatus]) -> Void

    /// Validates and applies a configuration, then initializes the modules; a later call cancels
    /// the module initialization of an earlier one that has not finished.
    func initialize(_ configuration: TernConfiguration, completion: InitCompletion?) async {
        generation += 1
        let current = generation
        if let previous = initTask {
            previous.cancel()
            await previous.value
        }
        let outcome = ConfigurationValidator.validate(configuration, checks: configurationChecks)
        for event in outcome.events { bus.emit(event) }
        guard let config = outcome.configuration else {
            await fail("the configuration is not usable: see the events before configIsNotSet", completion)
            return
        }
        let store: CoreStore
        do {
            store = try openStore()
        } catch {
            bus.emit(.error(ConfigurationValidator.function, CoreEvents.databaseError, value: ["reason": "\(error)"]))
            await fail("\(error)", completion)
            return
        }
        for module in modules { await migrate(module, store) }
        if appGroup == nil {
            bus.emit(.error(ConfigurationValidator.function, CoreEvents.appGroupIsNotSet))
        }
        configCollection = config.collectionEnabled
        collectionOverride = nil
        // A choice made before there was a store (setCollectionEnabled before initialization) wins
        // over the one saved by an earlier run, and is saved now; otherwise the saved one applies.
        if let pending = savedCollection {
            try? await store.setSetting(Self.consentKey, pending)
        } else {
            savedCollection = await store.setting(Self.consentKey, as: Bool.self)
        }
        let ready = ReadyCore(configuration: config, store: store, runtime: self)
        phase = .initializing(ready)
        await startServices(store)
        bus.emit(.info(ConfigurationValidator.function, CoreEvents.configSet))
        // The linked SDK modules in their fixed order, then any other in the order it was registered.
        let order = linkedOrder
        func rank(_ module: any TernModule) -> Int { order.firstIndex(of: module.moduleName) ?? order.count }
        let modules = self.modules.enumerated()
            .sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element)
        let failures = migrationFailures
        let timeout = environment.moduleInitTimeout
        let clock = environment.clock
        initTask = Task {
            var statuses = [ModuleInitStatus(moduleName: "core", initStatus: .success)]
            for module in modules {
                if let failure = failures[module.moduleName] {
                    statuses.append(
                        ModuleInitStatus(moduleName: module.moduleName, initStatus: .error, reason: failure))
                    continue
                }
                statuses.append(await Self.initialize(module, ready, timeout: timeout, clock: clock))
            }
            await self.finishInitialization(current, ready, statuses, completion)
        }
    }

    private func fail(_ reason: String, _ completion: InitCompletion?) async {
        phase = .failed
        let statuses = [ModuleInitStatus(moduleName: "core", initStatus: .error, reason: reason)]
        if let completion { bus.onMain { completion(statuses) } }
        // The commands waiting for initialization fail now, in order (they only raise an event).
        await unpark(nil)
    }

    private func startServices(_ store: CoreStore) async {
        if sender == nil || sender?.store !== store {
            await sender?.stop()
            let context = SenderContext(
                configuration: { [weak self] in await self?.configuration },
                collectionEnabled: { [weak self] in await self?.collectionEnabled ?? false },
                ready: { [weak self] in await self?.readyCore },
                token: { [weak self] in await self?.token() })
            let made = Sender(
                store: store, environment: environment, bus: bus, auth: auth, context: context,
                completions: completions, syncStates: syncStates)
            sender = made
            await made.use(events, finalizers)
        }
        await sender?.start()
        sender?.wake()
        if sessions == nil {
            sessions = SessionTracker(timeout: environment.sessionTimeout, enabled: collectionEnabled)
            let saved = await store.setting(SessionTracker.key, as: SessionRecord.self)
            if sessions?.restore(saved) == true, let record = sessions?.record {
                try? await store.setSetting(SessionTracker.key, record)
            }
            let states = await environment.lifecycle.states()
            sessionListener = Task { [weak self] in
                for await state in states { await self?.applySession(state) }
            }
        } else {
            sessions?.enabled = collectionEnabled
        }
    }

    private func finishInitialization(
        _ generation: Int, _ ready: ReadyCore, _ statuses: [ModuleInitStatus], _ completion: InitCompletion?
    ) async {
        if let completion { bus.onMain { completion(statuses) } }
        guard generation == self.generation else { return }
        phase = .ready(ready)
        initTask = nil
        // The commands that waited run now, in the order they were made, before any later letter.
        await unpark(ready)
        // The identity journal continues where the last run stopped.
        await identity.wake(ready)
    }

    private static func initialize(
        _ module: any TernModule, _ ready: ReadyCore, timeout: TimeInterval, clock: any TernClock
    ) async -> ModuleInitStatus {
        let name = module.moduleName
        if Task.isCancelled { return ModuleInitStatus(moduleName: name, initStatus: .cancelled) }
        let status = await withTaskGroup(of: ModuleInitStatus?.self) { group in
            group.addTask {
                do {
                    try await module.initialize(ready)
                    return ModuleInitStatus(moduleName: name, initStatus: .success)
                } catch is CancellationError {
                    return ModuleInitStatus(moduleName: name, initStatus: .cancelled)
                } catch {
                    return ModuleInitStatus(moduleName: name, initStatus: .error, reason: "\(error)")
                }
            }
            group.addTask {
                guard (try? await clock.sleep(seconds: timeout)) != nil else { return nil }
                return ModuleInitStatus(
                    moduleName: name, initStatus: .timeout, reason: "did not finish within \(Int(timeout)) s")
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        return status ?? ModuleInitStatus(moduleName: name, initStatus: .cancelled)
    }
}
