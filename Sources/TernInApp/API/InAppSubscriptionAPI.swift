import Foundation
import TernProtocol

/// `Tern.shared.inApp.subscription`: the profile's in-app subscription (channel `inapp`).
///
/// ```swift
/// Tern.shared.inApp.subscription.subscribe()
/// Tern.shared.inApp.subscription.getSubscriptionStatus { response in
///     print(response?.response?.profile?.subscription?.status ?? "none")
/// }
/// ```
public struct InAppSubscriptionAPI: Sendable {
    let core: CoreServices

    /// The answer to a status query: the HTTP status and the envelope, whose
    /// `profile?.subscription` is the in-app subscription (nil when there is none); nil when the
    /// request failed (no answer, or the server refused it), so a nil subscription always means
    /// "not subscribed", never "could not tell".
    public typealias StatusCompletion =
        @Sendable (ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>?) -> Void

    /// Subscribes the profile to in-app messages (status `subscribed`): non-anonymous campaigns
    /// reach it. Events `inAppSubscribeRequestSuccessful` (with the answer in `event.value`) or
    /// `inAppSubscribeRequestFailed`; retried on network failures, 408, 429 and 5xx. The same
    /// parameters as the push subscription's `subscribe`; a value JSON cannot carry is refused
    /// (`invalidSubRequestData`, or `fieldsIsObjects` for a custom field that is not a scalar).
    @discardableResult
    public func subscribe(
        sync: Bool = true, profileFields: [String: Any?]? = nil, customFields: [String: Any?]? = nil,
        cats: [CategoryData]? = nil, replace: Bool? = nil, skipTriggers: Bool? = nil
    ) -> QueuedRequest {
        change(
            .inAppSubscribe, "subscribe", sync: sync, profileFields: profileFields, customFields: customFields,
            cats: cats, replace: replace, skipTriggers: skipTriggers)
    }

    /// Unsubscribes the profile from in-app messages (status `unsubscribed`): only anonymous
    /// campaigns show. Events `inAppUnsubscribeRequestSuccessful` / `inAppUnsubscribeRequestFailed`.
    @discardableResult
    public func unSubscribe(
        sync: Bool = true, profileFields: [String: Any?]? = nil, customFields: [String: Any?]? = nil,
        cats: [CategoryData]? = nil, replace: Bool? = nil, skipTriggers: Bool? = nil
    ) -> QueuedRequest {
        change(
            .inAppUnsubscribe, "unSubscribe", sync: sync, profileFields: profileFields, customFields: customFields,
            cats: cats, replace: replace, skipTriggers: skipTriggers)
    }

    /// The in-app subscription's status (`inapp/status`): `completion` gets the answer
    /// (`response?.response?.profile?.subscription` nil when there is none), nil when the request
    /// failed: no answer within a minute, or a refusal (its `http_code`, `error` and `error_text` are
    /// in the `inAppStatusRequestFailed` event). Events `inAppStatusRequestSuccessful` /
    /// `inAppStatusRequestFailed`.
    public func getSubscriptionStatus(completion: @escaping StatusCompletion) {
        let function = "getSubscriptionStatus"
        let core = self.core
        core.perform(function, unrun: { completion(nil) }) { ready in
            let token = await ready.token()
            let body = InAppStatusRequest(provider: token?.provider, subscriptionId: token?.token)
            guard let data = try? JSONEncoder().encode(body) else {
                ready.emit(.error(function, InAppModuleEvents.inAppStatusRequestDataIsNil))
                ready.onMain { completion(nil) }
                return
            }
            let entry = OutboxEntry(
                endpoint: .inAppStatus, lane: .ordered, body: data,
                meta: OutboxMeta(
                    function: function, success: InAppModuleEvents.inAppStatusRequestSuccessful,
                    failure: InAppModuleEvents.inAppStatusRequestFailed, retryable: false),
                expiresAfter: 60)
            let accepted = await ready.enqueue(entry) { response in
                // The reference: "If the request fails, nil is passed". A refusal handed on would
                // read as "no subscription" (its envelope has no profile).
                guard let code = response?.httpCode, (200..<300).contains(code) else { return completion(nil) }
                let status = response?.response?.profile?.subscription?.status
                Task { await InAppModule.engine(core).setStatus(status) }
                completion(response)
            }
            if !accepted { ready.onMain { completion(nil) } }
        }
    }

    private func change(
        _ endpoint: Endpoint, _ function: String, sync: Bool, profileFields: [String: Any?]?,
        customFields: [String: Any?]?, cats: [CategoryData]?, replace: Bool?, skipTriggers: Bool?
    ) -> QueuedRequest {
        let profile: [String: JSONValue]?
        let custom: [String: JSONValue]?
        switch FieldValues.json(profileFields) {
        case .failure(let problem):
            let reason = problem.reason(in: "profileFields")
            core.emit(
                .error(
                    function, InAppModuleEvents.invalidSubRequestData,
                    value: ["reason": reason, "field": problem.field]))
            return .rejected(reason)
        case .success(let value): profile = value
        }
        switch FieldValues.scalars(customFields) {
        case .failure(let problem):
            let reason = problem.reason(in: "customFields")
            core.emit(.error(function, CoreEvents.fieldsIsObjects, value: ["reason": reason, "field": problem.field]))
            return .rejected(reason)
        case .success(let value): custom = value
        }
        let requestId = RequestKey.make()
        let time = Int64((core.environment.clock.now().timeIntervalSince1970 * 1000).rounded())
        let success: InAppModuleEvents =
            endpoint == .inAppSubscribe ? .inAppSubscribeRequestSuccessful : .inAppUnsubscribeRequestSuccessful
        let failure: InAppModuleEvents =
            endpoint == .inAppSubscribe ? .inAppSubscribeRequestFailed : .inAppUnsubscribeRequestFailed
        let status = endpoint == .inAppSubscribe ? SubscriptionStatus.subscribed : .unsubscribed
        let core = self.core
        core.perform(function, requestId: requestId) { ready in
            let token = await ready.token()
            let request = InAppSubscriptionRequest(
                time: time, provider: token?.provider, subscriptionId: token?.token, sync: sync,
                profileFields: profile, customFields: custom, cats: cats, replace: replace,
                skipTriggers: skipTriggers)
            guard let body = try? JSONEncoder().encode(request) else {
                ready.emit(.error(function, InAppModuleEvents.subscribeRequestDataIsNil))
                return
            }
            let entry = OutboxEntry(
                endpoint: endpoint, lane: .ordered, body: body,
                meta: OutboxMeta(function: function, success: success, failure: failure, includeProfile: sync),
                idempotencyKey: requestId)
            await ready.enqueue(entry) { response in
                guard let code = response?.httpCode, (200..<300).contains(code) else { return }
                Task { await InAppModule.engine(core).setStatus(status.rawValue) }
            }
        }
        return QueuedRequest(id: requestId, state: .queued)
    }
}
