import Foundation
@_exported import TernCore
@_exported import TernProtocol

extension Tern {
    /// The target module: goals (mobile events) linked to the platform's pixels.
    ///
    /// ```swift
    /// Tern.shared.target.sendTarget(sid: "pixel-sid", eventName: "app_install", utm: UTM(source: "ads"))
    /// ```
    public var target: Target {
        core.register(TargetModule())
        return Target(core: core)
    }
}

/// `Tern.shared.target`.
public struct Target: Sendable {
    let core: CoreServices

    /// Registers a goal: it is written to the outbox and sent with other goals in a batch
    /// (`event/post`), retried on network failures, 408, 429 and 5xx. Events:
    /// `mobileEventRequestSuccessful` (with `http_code`, `error`, `error_text`) or
    /// `mobileEventRequestFailed` (the server's reason in `error_text`, e.g. for an unknown `sid`).
    ///
    /// Refused at once, with nothing queued: an empty `sid` or `eventName`, an `eventName` starting
    /// with `$` (reserved for events the server notes itself), a `payload` value that is
    /// not a scalar (a `Date`, a custom class, a nested object or list), a value JSON cannot carry in
    /// `matching` or `profileFields`, an incomplete `subscription` (`mobileRequestDataIsNil` with the
    /// `reason` and `field` in `event.value`). `profileFields` and `subscription` need JWT authorization:
    /// without a JWT provider the goal is refused with `jwtIsNil`.
    ///
    /// ```swift
    /// Tern.shared.target.sendTarget(
    ///     sid: "pixel-sid", eventName: "purchase", payload: ["sum": 42.5, "currency": "EUR"],
    ///     utm: UTM(campaign: "spring", source: "newsletter"))
    /// ```
    @discardableResult
    public func sendTarget(
        sid: String, clientID: String = "", eventName: String, sendMessageId: String? = nil,
        payload: [String: Any?]? = nil, matching: [String: Any?]? = nil, matchingType: String? = nil,
        profileFields: [String: Any?]? = nil, subscription: (any Subscription)? = nil, utm: UTM? = nil
    ) -> QueuedRequest {
        let function = "sendTarget"
        let time = Int64((core.environment.clock.now().timeIntervalSince1970 * 1000).rounded())
        let draft = GoalDraft.make(
            sid: sid, clientID: clientID, eventName: eventName, sendMessageId: sendMessageId, payload: payload,
            matching: matching, matchingType: matchingType, profileFields: profileFields, subscription: subscription,
            utm: utm, time: time)
        let goal: GoalEvent
        switch draft {
        case .failure(let problem):
            core.emit(
                .error(
                    function, TargetModuleEvents.mobileRequestDataIsNil,
                    value: ["reason": problem.reason, "field": problem.field]))
            return .rejected(problem.reason)
        case .success(let made):
            goal = made
        }
        let requestId = RequestKey.make()
        core.perform(function, requestId: requestId) { ready in
            if goal.profileFields != nil || goal.subscription != nil, await !ready.auth.hasProvider {
                let reason =
                    "profileFields and subscription need JWT authorization: set a JWT provider "
                    + "(Tern.shared.setJWTProvider) or send the goal without them"
                ready.emit(
                    .error(
                        function, CoreEvents.jwtIsNil,
                        value: [
                            "reason": reason,
                            "field": goal.profileFields != nil ? "profileFields" : "subscription",
                        ]))
                await ready.refuse(requestId: requestId, reason: reason)
                return
            }
            guard let body = try? JSONEncoder().encode(goal) else {
                ready.emit(
                    .error(
                        function, TargetModuleEvents.mobileRequestDataIsNil,
                        value: ["reason": "the goal could not be encoded as JSON"]))
                return
            }
            let entry = OutboxEntry(
                endpoint: .eventPost, lane: .events, body: body,
                meta: OutboxMeta(
                    function: function, success: TargetModuleEvents.mobileEventRequestSuccessful,
                    failure: TargetModuleEvents.mobileEventRequestFailed),
                idempotencyKey: requestId)
            await ready.enqueue(entry)
        }
        return QueuedRequest(id: requestId, state: .queued)
    }
}

/// The target module as the core initializes and clears it: goals live in the core's outbox, which
/// `clear()` already empties.
struct TargetModule: TernModule {
    var moduleName: String { "target" }
    var parts: ModuleParts { ModuleParts(events: TargetModuleEvents.allCases) }
    func initialize(_ core: ReadyCore) async throws {}
    func clear(_ core: ReadyCore) async {}
}

/// Found by name when the SDK initializes (`TernModuleEntry`), so the module comes up whether or
/// not the app touched it first.
public enum TernModuleEntryPoint: TernModuleEntry {
    public static func module(_ core: CoreServices) -> any TernModule {
        TargetModule()
    }
}
