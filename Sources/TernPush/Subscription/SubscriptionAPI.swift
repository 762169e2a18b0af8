import Foundation
import TernProtocol

/// `Tern.shared.push.subscription`: the push subscription's status and the queries about it.
///
/// ```swift
/// Tern.shared.push.subscription.subscribe(
///     profileFields: ["_fname": "Andrey"], customFields: ["developer": true],
///     cats: [CategoryData(name: "developer_news", active: true)])
/// ```
public struct SubscriptionAPI: Sendable {
    let core: CoreServices
    /// How the status queries' bodies are encoded (tests: one that fails).
    var encoding = RequestEncoding.json

    /// Subscribes the device (status `subscribed`): `pushSubscribeRequestSuccessful` with the
    /// answer in `event.value` (`http_code`, `error`, `error_text`, `profile`, the profile nil when
    /// `sync` is false), or `pushSubscribeRequestFailed`. Retried on network failures, 408, 429 and 5xx.
    @discardableResult
    public func subscribe(
        sync: Bool = true, profileFields: [String: Any?]? = nil, customFields: [String: Any?]? = nil,
        cats: [CategoryData]? = nil, replace: Bool? = nil, skipTriggers: Bool? = nil
    ) -> QueuedRequest {
        change(
            .pushSubscribe, "subscribe", sync: sync, profileFields: profileFields, customFields: customFields,
            cats: cats, replace: replace, skipTriggers: skipTriggers)
    }

    /// Suspends the subscription (status `suspended`): pushes stop, no unsubscribe is recorded.
    /// Events `pushSuspendRequestSuccessful` / `pushSuspendRequestFailed`.
    @discardableResult
    public func suspend(
        sync: Bool = true, profileFields: [String: Any?]? = nil, customFields: [String: Any?]? = nil,
        cats: [CategoryData]? = nil, replace: Bool? = nil, skipTriggers: Bool? = nil
    ) -> QueuedRequest {
        change(
            .pushSuspend, "suspend", sync: sync, profileFields: profileFields, customFields: customFields,
            cats: cats, replace: replace, skipTriggers: skipTriggers)
    }

    /// Unsubscribes (status `unsubscribed`). Events `pushUnsubscribeRequestSuccessful` /
    /// `pushUnsubscribeRequestFailed`.
    @discardableResult
    public func unsubscribe(
        sync: Bool = true, profileFields: [String: Any?]? = nil, customFields: [String: Any?]? = nil,
        cats: [CategoryData]? = nil, replace: Bool? = nil, skipTriggers: Bool? = nil
    ) -> QueuedRequest {
        change(
            .pushUnsubscribe, "unsubscribe", sync: sync, profileFields: profileFields, customFields: customFields,
            cats: cats, replace: replace, skipTriggers: skipTriggers)
    }

    private func change(
        _ endpoint: Endpoint, _ function: String, sync: Bool, profileFields: [String: Any?]?,
        customFields: [String: Any?]?, cats: [CategoryData]?, replace: Bool?, skipTriggers: Bool?
    ) -> QueuedRequest {
        let profile: [String: JSONValue]?
        let custom: [String: JSONValue]?
        switch (SubscriptionFields.profile(profileFields), SubscriptionFields.custom(customFields)) {
        case (.failure(.profileFieldNotJSON(let key)), _), (_, .failure(.profileFieldNotJSON(let key))):
            let reason = "profile field \"\(key)\" is not a JSON value"
            core.emit(
                .error(function, PushModuleEvents.invalidSubRequestData, value: ["reason": reason, "field": key]))
            return .rejected(reason)
        case (_, .failure(.customFieldNotScalar(let key))), (.failure(.customFieldNotScalar(let key)), _):
            let reason = "custom field \"\(key)\" is not a string, number, boolean or nil"
            core.emit(.error(function, CoreEvents.fieldsIsObjects, value: ["reason": reason, "field": key]))
            return .rejected(reason)
        case (.success(let p), .success(let c)):
            profile = p
            custom = c
        }
        let requestId = RequestKey.make()
        let time = Int64((core.environment.clock.now().timeIntervalSince1970 * 1000).rounded())
        let change = StatusChange(
            endpoint: endpoint, function: function, sync: sync, profileFields: profile, customFields: custom,
            cats: cats, replace: replace, skipTriggers: skipTriggers, requestId: requestId, time: time)
        core.perform(function, requestId: requestId) { ready in await change.enqueue(ready) }
        return QueuedRequest(id: requestId, state: .queued)
    }

    static func events(_ endpoint: Endpoint) -> (success: PushModuleEvents, failure: PushModuleEvents) {
        switch endpoint {
        case .pushSuspend: (.pushSuspendRequestSuccessful, .pushSuspendRequestFailed)
        case .pushUnsubscribe: (.pushUnsubscribeRequestSuccessful, .pushUnsubscribeRequestFailed)
        default: (.pushSubscribeRequestSuccessful, .pushSubscribeRequestFailed)
        }
    }
}
