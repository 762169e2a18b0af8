import Foundation

extension SubscriptionAPI {
    /// The answer to a status query: the HTTP status and the envelope, whose `profile?.subscription`
    /// is the subscription asked about (nil when there is none); nil when no answer came.
    public typealias StatusCompletion =
        @Sendable (ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>?) -> Void

    /// How long a status query may wait in the outbox (for initialization, a token, the network)
    /// before it is answered with nil.
    static let statusQueryLifetime: TimeInterval = 60

    /// The status of the profile's latest subscription.
    ///
    /// ```swift
    /// Tern.shared.push.subscription.latest { response in print(response?.response?.profile?.subscription?.status ?? "none") }
    /// ```
    public func latest(completion: @escaping StatusCompletion) {
        status(.latest, provider: nil, function: "latest", completion)
    }

    /// The status of the subscription of the device's current token and provider.
    public func current(completion: @escaping StatusCompletion) {
        status(.current, provider: nil, function: "current", completion)
    }

    /// The status of the profile's latest subscription with `provider` (nil: the current token's provider).
    public func latestForProvider(provider: String? = nil, completion: @escaping StatusCompletion) {
        let function = "latestForProvider"
        if let provider, PushProvider(rawValue: provider) == nil {
            core.emit(.error(function, PushModuleEvents.invalidPushProvider, value: ["provider": provider]))
            core.bus.onMain { completion(nil) }
            return
        }
        status(.latestForProvider, provider: provider, function: function, completion)
    }

    private func status(
        _ mode: PushStatusRequest.Mode, provider: String?, function: String, _ completion: @escaping StatusCompletion
    ) {
        let encoding = self.encoding
        core.perform(function, unrun: { completion(nil) }) { ready in
            let token = await ready.token()
            // Without a token the query waits for one (rToken requests name the profile by it).
            let request = PushStatusRequest(
                mode: mode, provider: provider ?? token?.provider ?? "", subscriptionId: token?.token ?? "")
            guard let body = try? encoding.encode(request) else {
                ready.emit(.error(function, PushModuleEvents.pushStatusRequestDataIsNil))
                ready.onMain { completion(nil) }
                return
            }
            let entry = OutboxEntry(
                endpoint: .pushStatus, lane: .ordered, body: body,
                meta: OutboxMeta(
                    function: function, success: PushModuleEvents.pushStatusRequestSuccessful,
                    failure: PushModuleEvents.pushStatusRequestFailed, retryable: false),
                needsToken: token == nil, expiresAfter: Self.statusQueryLifetime)
            if await !ready.enqueue(entry, completion: completion) {
                ready.onMain { completion(nil) }
            }
        }
    }
}
