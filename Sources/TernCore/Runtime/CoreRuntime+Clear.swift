import Foundation

extension CoreRuntime {
    /// Deletes the outbox, settings, token and sessions (keeping a saved consent choice, so clearing
    /// never turns collection back on), cancels pending retries, and clears every module.
    func clear() async {
        await awaitWrites()
        await sender?.stop()
        await completions.cancelAll()
        cachedToken = nil
        guard let store = store ?? (try? openStore()) else { return }
        let consent = await store.setting(Self.consentKey, as: Bool.self)
        do {
            try await store.clearAll()
            if let consent { try await store.setSetting(Self.consentKey, consent) }
        } catch {
            bus.emit(.error("clear", CoreEvents.databaseError, value: ["reason": "\(error)"]))
        }
        sessions?.reset()
        await identity.reset()
        if case .ready(let ready) = phase {
            for module in modules { await module.clear(ready) }
        }
        if configuration != nil { await sender?.start() }
    }

    /// Sends what is due until the outbox is empty, `deadline` passes or the task is cancelled; true
    /// when it emptied.
    func flush(until deadline: Date) async -> Bool {
        guard let store, configuration != nil else { return false }
        sender?.wake()
        // A cancelled run (the system's background time is up) stops at its next step.
        while environment.clock.now() < deadline, !Task.isCancelled {
            guard let statistics = try? await store.statistics() else { return false }
            let journal = (try? await store.identityOperations().count) ?? 0
            if statistics.pending.values.reduce(0, +) == 0, journal == 0 { return true }
            do { try await environment.clock.sleep(seconds: 0.05) } catch { return false }
            sender?.wake()
        }
        return false
    }

    /// Stops every task (tests and the simulated device, before exiting).
    func shutdown() async {
        await awaitWrites()
        initTask?.cancel()
        await sender?.stop()
        // A caller waiting on a status query's answer hears nil rather than waiting forever.
        await completions.cancelAll()
        await identity.stop()
        sessionListener?.cancel()
        sessionListener = nil
        parked = []
        let waiting = unparkWaiters
        unparkWaiters = []
        for waiter in waiting { waiter.resume() }
        mailbox.close()
    }

    /// `authenticate()` ran: signed in, and the attempt's number for ``authenticationRefused(_:)``.
    func beginAuthentication() async -> Int {
        authAttempt += 1
        try? await store?.setSetting(Self.authenticatedKey, true)
        return authAttempt
    }

    /// The server refused attempt `attempt`: signed out, unless a later `authenticate()` or
    /// `logOut()` ran since.
    func authenticationRefused(_ attempt: Int) async {
        guard attempt == authAttempt else { return }
        try? await store?.setSetting(Self.authenticatedKey, false)
    }

    /// `logOut()` ran.
    func endAuthentication() async {
        authAttempt += 1
        try? await store?.setSetting(Self.authenticatedKey, false)
    }
}
