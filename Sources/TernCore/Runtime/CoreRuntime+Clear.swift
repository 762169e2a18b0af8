import Foundation

extension CoreRuntime {
    /// Deletes the outbox, settings, token and sessions (keeping a saved consent choice, so clearing
    /// never turns collection back on), cancels pending retries, and clears every module.
    func clear() async {
        await awaitWrites()
        await sender?.stop()
        await completions.cancelAll()
        guard let store = store ?? (try? openStore()) else { return }
        let consent = await store.setting(Self.consentKey, as: Bool.self)
        do {
            try await store.clearAll()
            if let consent { try await store.setSetting(Self.consentKey, consent) }
        } catch {
            bus.emit(.error("clear", CoreEvents.databaseError, value: ["reason": "\(error)"]))
        }
        await sessions?.reset()
        if case .ready(let ready) = phase {
            for module in modules { await module.clear(ready) }
        }
        if configuration != nil { await sender?.start() }
    }

    /// Sends what is due until the outbox is empty or `deadline` passes; true when it emptied.
    func flush(until deadline: Date) async -> Bool {
        guard let store, configuration != nil else { return false }
        sender?.wake()
        while environment.clock.now() < deadline {
            guard let statistics = try? await store.statistics() else { return false }
            if statistics.pending.values.reduce(0, +) == 0 { return true }
            try? await environment.clock.sleep(seconds: 0.05)
            sender?.wake()
        }
        return false
    }

    /// Stops every task (tests and the simulated device, before exiting).
    func shutdown() async {
        await awaitWrites()
        initTask?.cancel()
        await sender?.stop()
        await sessions?.stop()
        resumeWaiters(nil)
    }

    func setAuthenticated(_ value: Bool) async {
        try? await store?.setSetting(Self.authenticatedKey, value)
    }
}
