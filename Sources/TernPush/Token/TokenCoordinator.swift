import Foundation

/// The token providers of one SDK instance and the refreshes that pick the device's token: the
/// first provider in priority order that gives a token wins. Refreshes run one after another, off
/// the SDK's command queue, so a slow provider never holds up the app's other calls.
actor TokenCoordinator {
    private var sources: [PushProvider: TokenSource] = [:]
    /// Set by `changeProviderPriority`; the configuration's list until then.
    private var priorityOverride: [String]?
    private(set) var policy = ProviderFetchPolicy()
    private var lastRefresh: Task<Void, Never>?
    private var watchingLifecycle = false
    let clock: any TernClock
    let lifecycle: any AppLifecycle

    init(clock: any TernClock, lifecycle: any AppLifecycle) {
        self.clock = clock
        self.lifecycle = lifecycle
    }

    func set(_ source: TokenSource?, for provider: PushProvider) {
        sources[provider] = source
    }

    func setPolicy(_ policy: ProviderFetchPolicy) {
        self.policy = policy
    }

    func setPriority(_ list: [String]) {
        priorityOverride = list
    }

    func priority(_ ready: ReadyCore) -> [String] {
        priorityOverride ?? ready.configuration.providerPriorityList
    }

    var hasSources: Bool { !sources.isEmpty }

    /// Refreshes the token after every refresh asked for before; returns when this one is done.
    func refresh(_ ready: ReadyCore, function: String) async {
        let previous = lastRefresh
        let task = Task {
            await previous?.value
            await self.pickToken(ready, function: function)
        }
        lastRefresh = task
        await task.value
    }

    /// Asks the providers in priority order and applies the first token found.
    private func pickToken(_ ready: ReadyCore, function: String) async {
        guard !sources.isEmpty else { return }
        let order = priority(ready)
        var asked: [String] = []
        for name in order {
            guard let provider = PushProvider(rawValue: name), let source = sources[provider] else { continue }
            asked.append(name)
            if let token = await fetch(source) {
                // Asking the providers may take seconds, off the mailbox; the new token is applied
                // through it, after the calls the app made before the provider answered.
                let data = TokenData(provider: name, token: token)
                await ready.followUp(function) { ready in await TokenChange.apply(data, ready, function: function) }
                return
            }
        }
        ready.emit(
            .error(
                function, PushModuleEvents.pushTokenIsNil,
                value: [
                    "reason": asked.isEmpty
                        ? "no token provider is set for the providers in the priority list \(order)"
                        : "no provider gave a token after \(policy.attempts) attempts each: \(asked)"
                ]))
    }

    /// The provider's token, asked up to `policy.attempts` times.
    private func fetch(_ source: TokenSource) async -> String? {
        for attempt in 1...policy.attempts {
            if let token = await Self.ask(source.get, timeout: policy.timeout, clock: clock) { return token }
            if attempt < policy.attempts {
                do { try await clock.sleep(seconds: policy.delay * Double(attempt)) } catch { return nil }
            }
        }
        return nil
    }

    /// Deletes the provider's token at the provider: nil when it has no provider or cannot delete
    /// (APNs), else whether the provider said it was deleted.
    func delete(_ provider: PushProvider) async -> Bool? {
        guard let delete = sources[provider]?.delete else { return nil }
        let answer = await Self.once(
            { done in delete { done($0 ? "deleted" : nil) } }, timeout: policy.timeout, clock: clock)
        return answer != nil
    }

    /// Refreshes whenever the app comes to the foreground (a new APNs token is read then).
    func watchLifecycle(_ ready: ReadyCore) {
        guard !watchingLifecycle else { return }
        watchingLifecycle = true
        let lifecycle = self.lifecycle
        Task { [weak self] in
            for await state in await lifecycle.states() where state == .foreground {
                guard let self else { return }
                await self.refresh(ready, function: "tokenRefresh")
            }
        }
    }

    /// One ask: the trimmed token, or nil when the provider gave none (or no answer in `timeout`).
    static func ask(
        _ get: @escaping @Sendable (@escaping @Sendable (String?) -> Void) -> Void, timeout: TimeInterval,
        clock: any TernClock
    ) async -> String? {
        let token = await once(get, timeout: timeout, clock: clock)
        guard let trimmed = token?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else {
            return nil
        }
        return trimmed
    }

    /// Calls `body` and waits for its first answer (later ones are ignored), at most `timeout` seconds.
    static func once(
        _ body: @escaping @Sendable (@escaping @Sendable (String?) -> Void) -> Void, timeout: TimeInterval,
        clock: any TernClock
    ) async -> String? {
        let (answers, continuation) = AsyncStream.makeStream(of: String?.self, bufferingPolicy: .bufferingNewest(1))
        body { value in
            continuation.yield(value)
            continuation.finish()
        }
        return await withTaskGroup(of: String??.self) { group in
            group.addTask {
                for await value in answers { return .some(value) }
                return nil
            }
            group.addTask {
                try? await clock.sleep(seconds: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? nil
        }
    }
}

extension CoreServices {
    /// This SDK instance's token coordinator, made on first use and kept with the instance.
    func tokenCoordinator() async -> TokenCoordinator {
        let environment = environment
        return await slots.value("push.tokenCoordinator") {
            TokenCoordinator(clock: environment.clock, lifecycle: environment.lifecycle)
        }
    }
}
