import Foundation

extension SubscriptionAPI {
    /// The log-in / log-out transition (needs a JWT): subscriptions with the device's token in other
    /// profiles are suspended, the JWT profile's suspended one is subscribed again. `completion` gets
    /// the JWT profile with its subscription for this token (`profile?.subscription` nil: subscribe
    /// it), or nil when no answer came. Events `unsuspendRequestSuccessful` / `unsuspendRequestFailed`.
    /// Sent once (not retried); it waits up to a minute for the device's token.
    ///
    /// ```swift
    /// Tern.shared.push.subscription.unSuspend { result in
    ///     if result?.httpCode == 200, result?.response?.profile?.subscription == nil {
    ///         Tern.shared.push.subscription.subscribe()
    ///     }
    /// }
    /// ```
    public func unSuspend(completion: @escaping StatusCompletion) {
        let function = "unSuspend"
        core.perform(function, unrun: { completion(nil) }) { ready in
            guard let entry = await Self.unsuspendEntry(ready, function: function, retryable: false) else {
                ready.onMain { completion(nil) }
                return
            }
            if await !ready.enqueue(entry, completion: completion) {
                ready.onMain { completion(nil) }
            }
        }
    }

    /// `push/unsuspend` with the device's token, waiting for one when there is none yet.
    static func unsuspendEntry(_ ready: ReadyCore, function: String, retryable: Bool) async -> OutboxEntry? {
        let token = await ready.token()
        guard
            let body = try? JSONEncoder().encode(
                PushTokenRequest(provider: token?.provider, subscriptionId: token?.token))
        else {
            ready.emit(.error(function, PushModuleEvents.unsuspendRequestDataIsNil))
            return nil
        }
        return OutboxEntry(
            endpoint: .pushUnsuspend, lane: .ordered, body: body,
            meta: OutboxMeta(
                function: function, success: PushModuleEvents.unsuspendRequestSuccessful,
                failure: PushModuleEvents.unsuspendRequestFailed, retryable: retryable),
            needsToken: token == nil, expiresAfter: retryable ? nil : statusQueryLifetime)
    }

    /// The async form of ``unSuspend(completion:)``.
    ///
    /// ```swift
    /// let result = await Tern.shared.push.subscription.unSuspend()
    /// ```
    public func unSuspend() async -> ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>? {
        await withCheckedContinuation { continuation in unSuspend { continuation.resume(returning: $0) } }
    }

    /// The async form of ``latest(completion:)``.
    public func latest() async -> ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>? {
        await withCheckedContinuation { continuation in latest { continuation.resume(returning: $0) } }
    }

    /// The async form of ``current(completion:)``.
    public func current() async -> ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>? {
        await withCheckedContinuation { continuation in current { continuation.resume(returning: $0) } }
    }

    /// The async form of ``latestForProvider(provider:completion:)``.
    public func latestForProvider(provider: String? = nil) async
        -> ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>?
    {
        await withCheckedContinuation { continuation in
            latestForProvider(provider: provider) { continuation.resume(returning: $0) }
        }
    }
}
