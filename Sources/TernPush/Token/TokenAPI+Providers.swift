import Foundation

extension TokenAPI {
    /// Sets (nil removes) the APNs token provider, then asks the providers for the token. Set it
    /// before `initialization`.
    ///
    /// ```swift
    /// Tern.shared.push.token.setAPNSTokenProvider(APNSProvider())
    /// ```
    public func setAPNSTokenProvider(_ provider: (any APNSInterface)?) {
        setSource(provider.map(TokenSource.init), for: .apns, function: "setAPNSTokenProvider")
    }

    /// Sets (nil removes) the Firebase Cloud Messaging token provider, then asks the providers for the token.
    public func setFCMTokenProvider(_ provider: (any FCMInterface)?) {
        setSource(provider.map(TokenSource.init), for: .firebase, function: "setFCMTokenProvider")
    }

    /// Sets (nil removes) the Huawei Mobile Services token provider, then asks the providers for the token.
    public func setHMSTokenProvider(_ provider: (any HMSInterface)?) {
        setSource(provider.map(TokenSource.init), for: .huawei, function: "setHMSTokenProvider")
    }

    /// How providers are asked (attempts, delay between them, time to wait for an answer).
    public func setFetchPolicy(_ policy: ProviderFetchPolicy) {
        let core = core
        core.perform("setFetchPolicy") { _ in
            await core.tokenCoordinator().setPolicy(policy)
        }
    }

    private func setSource(_ source: TokenSource?, for provider: PushProvider, function: String) {
        let core = core
        core.perform(function) { ready in
            let coordinator = await core.tokenCoordinator()
            await coordinator.set(source, for: provider)
            await coordinator.watchLifecycle(ready)
            Task { await coordinator.refresh(ready, function: function) }
        }
    }

    /// Changes the providers' priority and moves the subscription to the token that wins now
    /// (`push/update`). The list must name known providers, each once: otherwise
    /// `invalidPushProviders` and nothing changes.
    ///
    /// ```swift
    /// Tern.shared.push.token.changeProviderPriority([
    ///     PushConstants.ProviderName.firebase, PushConstants.ProviderName.apns, PushConstants.ProviderName.huawei,
    /// ])
    /// ```
    public func changeProviderPriority(_ list: [String]) {
        let function = "changeProviderPriority"
        if let reason = Self.priorityProblem(list) {
            core.emit(.error(function, PushModuleEvents.invalidPushProviders, value: ["reason": reason, "list": list]))
            return
        }
        let core = core
        core.perform(function) { ready in
            let coordinator = await core.tokenCoordinator()
            await coordinator.setPriority(list)
            Task { await coordinator.refresh(ready, function: function) }
        }
    }

    /// Why a priority list is unusable, nil when it is fine.
    static func priorityProblem(_ list: [String]) -> String? {
        if list.isEmpty { return "the priority list is empty: name at least one provider" }
        if let unknown = list.first(where: { PushProvider(rawValue: $0) == nil }) {
            return "\"\(unknown)\" is not a provider: use ios-apns, ios-firebase or ios-huawei"
        }
        if Set(list).count != list.count { return "a provider is named more than once in \(list)" }
        return nil
    }

    /// Deletes the token of `provider` at the provider (Firebase, Huawei); when it was the device's
    /// token, the providers are asked again and `push/update` moves the subscription to the token
    /// that wins. APNs tokens cannot be deleted: `apnsIsNotUpdated`. `completion` runs on the main
    /// queue when it is done, whatever happened.
    ///
    /// ```swift
    /// Tern.shared.push.token.deleteToken(provider: "ios-firebase") { print("deleted") }
    /// ```
    public func deleteToken(provider: String, completion: (@Sendable () -> Void)? = nil) {
        let function = "deleteToken"
        guard let known = PushProvider(rawValue: provider) else {
            core.emit(.error(function, PushModuleEvents.invalidPushProvider, value: ["provider": provider]))
            if let completion { core.bus.onMain(completion) }
            return
        }
        let core = core
        core.perform(function, unrun: { completion?() }) { ready in
            let coordinator = await core.tokenCoordinator()
            Task {
                await Self.delete(known, ready, coordinator, function: function)
                if let completion { ready.onMain(completion) }
            }
        }
    }

    /// Deletes the device's current token at its provider and asks the providers again, so the
    /// subscription moves to the new token (`push/update`). Not possible for APNs: `apnsIsNotUpdated`.
    ///
    /// ```swift
    /// Tern.shared.push.token.forcedTokenUpdate { print("updated") }
    /// ```
    public func forcedTokenUpdate(completion: (@Sendable () -> Void)? = nil) {
        let function = "forcedTokenUpdate"
        let core = core
        core.perform(function, unrun: { completion?() }) { ready in
            let coordinator = await core.tokenCoordinator()
            Task {
                if let current = await ready.token(), let provider = PushProvider(rawValue: current.provider) {
                    await Self.delete(provider, ready, coordinator, function: function)
                } else {
                    await coordinator.refresh(ready, function: function)
                }
                if let completion { ready.onMain(completion) }
            }
        }
    }

    private static func delete(
        _ provider: PushProvider, _ ready: ReadyCore, _ coordinator: TokenCoordinator, function: String
    ) async {
        if provider == .apns {
            ready.emit(.error(function, PushModuleEvents.apnsIsNotUpdated))
            return
        }
        guard let deleted = await coordinator.delete(provider) else {
            ready.emit(
                .error(
                    function, PushModuleEvents.invalidPushProvider,
                    value: ["reason": "no \(provider.rawValue) token provider is set: set it before deleting its token"]
                ))
            return
        }
        guard deleted else {
            ready.emit(
                .error(
                    function, PushModuleEvents.pushConfigurationClearFailed,
                    value: ["reason": "the \(provider.rawValue) provider did not delete its token"]))
            return
        }
        guard await ready.token()?.provider == provider.rawValue else { return }
        await coordinator.refresh(ready, function: function)
    }

    /// The async form of ``deleteToken(provider:completion:)``.
    public func deleteToken(provider: String) async {
        await withCheckedContinuation { continuation in deleteToken(provider: provider) { continuation.resume() } }
    }

    /// The async form of ``forcedTokenUpdate(completion:)``.
    public func forcedTokenUpdate() async {
        await withCheckedContinuation { continuation in forcedTokenUpdate { continuation.resume() } }
    }
}
