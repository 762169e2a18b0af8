import Foundation
import TernProtocol

/// `Tern.shared.push.liveActivities`: the push tokens of the app's Live Activities, so the server
/// can update and end them (`live-activity/token`, `live-activity/end`), the push-to-start
/// tokens it starts them with, and the ids of the broadcast channels it updates many devices'
/// activities through on iOS 18 (``channelId(named:)``, a read that answers the caller).
///
/// Each token or end call is written to the outbox and sent in order with the device's other changes, retried on
/// network failures, 408, 429 and 5xx, and applied once (its `QueuedRequest.id` is the request's
/// `Idempotency-Key`). It carries the device's push token: a call made before the device has one
/// waits for it. On iOS, `track(_:activityId:)` and `observePushToStart(_:activityId:)` make these
/// calls from ActivityKit's own updates.
///
/// ```swift
/// Tern.shared.push.liveActivities.setToken(token, activityId: "order-1001", activityType: "DeliveryAttributes")
/// Tern.shared.push.liveActivities.end(activityId: "order-1001", activityType: "DeliveryAttributes")
/// ```
public struct LiveActivitiesAPI: Sendable {
    let core: CoreServices

    /// Registers the push token of one Live Activity, replacing the one sent for it before: the
    /// server sends the activity's updates and its end to it. Events:
    /// `liveActivityTokenRequestSuccessful` or `liveActivityTokenRequestFailed`. Refused at once
    /// (`invalidLiveActivityRequestData`, with the `reason`): an empty token, an empty activity id or
    /// type, or one longer than `LiveActivityTokenRequest.maxNameLength` characters.
    ///
    /// ```swift
    /// for await token in activity.pushTokenUpdates {
    ///     Tern.shared.push.liveActivities.setToken(token, activityId: "order-1001", activityType: "DeliveryAttributes")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - token: The activity's ActivityKit push token (`Activity.pushToken`), sent as lower-case hex.
    ///   - activityId: The app's own id of the activity, the same on every device that follows it
    ///     (an order, a match): what the server's updates name.
    ///   - activityType: The name of the activity's `ActivityAttributes` type, e.g. `DeliveryAttributes`.
    /// - Returns: The queued request, or a failed one when the call was refused.
    @discardableResult
    public func setToken(_ token: Data, activityId: String, activityType: String) -> QueuedRequest {
        let function = "setToken"
        if let problem = LiveActivityRules.problem(token: token) ?? LiveActivityRules.problem(activityId: activityId)
            ?? LiveActivityRules.problem(activityType: activityType)
        {
            return reject(function, problem)
        }
        return enqueue(
            LiveActivityChange(
                function: function, kind: .token(TokenAPI.hexString(deviceToken: token)), activityId: activityId,
                activityType: activityType))
    }

    /// Registers the device's push-to-start token for an activity type (iOS 17.2 and later), replacing
    /// the one sent before: the server starts activities of `activityType` on this device with it.
    /// Events and refusals as for ``setToken(_:activityId:activityType:)``.
    ///
    /// ```swift
    /// for await token in Activity<DeliveryAttributes>.pushToStartTokenUpdates {
    ///     Tern.shared.push.liveActivities.setPushToStartToken(token, activityType: "DeliveryAttributes")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - token: The ActivityKit push-to-start token (`Activity.pushToStartToken`), sent as lower-case hex.
    ///   - activityType: The name of the `ActivityAttributes` type, e.g. `DeliveryAttributes`: what a
    ///     start names as its `attributes-type`.
    /// - Returns: The queued request, or a failed one when the call was refused.
    @discardableResult
    public func setPushToStartToken(_ token: Data, activityType: String) -> QueuedRequest {
        let function = "setPushToStartToken"
        if let problem = LiveActivityRules.problem(token: token)
            ?? LiveActivityRules.problem(activityType: activityType)
        {
            return reject(function, problem)
        }
        return enqueue(
            LiveActivityChange(
                function: function, kind: .token(TokenAPI.hexString(deviceToken: token)), activityId: nil,
                activityType: activityType))
    }

    /// Tells the server that an activity ended or was dismissed on this device: it sends the activity
    /// nothing more here. Events: `liveActivityEndRequestSuccessful` or `liveActivityEndRequestFailed`.
    /// Refused at once (`invalidLiveActivityRequestData`) for an empty or too long id or type.
    ///
    /// ```swift
    /// Tern.shared.push.liveActivities.end(activityId: "order-1001", activityType: "DeliveryAttributes")
    /// ```
    ///
    /// - Parameters:
    ///   - activityId: The app's id of the activity, as given to ``setToken(_:activityId:activityType:)``.
    ///   - activityType: The name of the activity's `ActivityAttributes` type.
    /// - Returns: The queued request, or a failed one when the call was refused.
    @discardableResult
    public func end(activityId: String, activityType: String) -> QueuedRequest {
        let function = "end"
        if let problem = LiveActivityRules.problem(activityId: activityId)
            ?? LiveActivityRules.problem(activityType: activityType)
        {
            return reject(function, problem)
        }
        return enqueue(
            LiveActivityChange(function: function, kind: .end, activityId: activityId, activityType: activityType))
    }

    /// Drops the device's push-to-start token for an activity type (the person turned Live Activities
    /// off, or the app no longer starts them by push). Events and refusals as for
    /// ``end(activityId:activityType:)``.
    ///
    /// ```swift
    /// Tern.shared.push.liveActivities.removePushToStartToken(activityType: "DeliveryAttributes")
    /// ```
    ///
    /// - Parameter activityType: The name of the `ActivityAttributes` type.
    /// - Returns: The queued request, or a failed one when the call was refused.
    @discardableResult
    public func removePushToStartToken(activityType: String) -> QueuedRequest {
        let function = "removePushToStartToken"
        if let problem = LiveActivityRules.problem(activityType: activityType) { return reject(function, problem) }
        return enqueue(LiveActivityChange(function: function, kind: .end, activityId: nil, activityType: activityType))
    }

    private func reject(_ function: String, _ reason: String) -> QueuedRequest {
        core.emit(.error(function, LiveActivityEvents.invalidLiveActivityRequestData, value: ["reason": reason]))
        return .rejected(reason)
    }

    /// Queues the change in the ordered lane under a key made now; without a device token yet, the
    /// sender fills it in when one arrives (`PushParts.spliceToken`).
    private func enqueue(_ change: LiveActivityChange) -> QueuedRequest {
        var change = change
        change.requestId = RequestKey.make()
        change.time = Int64((core.environment.clock.now().timeIntervalSince1970 * 1000).rounded())
        let queued = change
        core.perform(change.function, requestId: queued.requestId) { ready in await queued.enqueue(ready) }
        return QueuedRequest(id: queued.requestId, state: .queued)
    }
}
