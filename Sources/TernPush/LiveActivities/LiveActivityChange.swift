import Foundation
import TernCore
import TernProtocol

/// One `live-activity/token` or `live-activity/end`, checked and ready for the outbox.
struct LiveActivityChange: Sendable {
    enum Kind: Sendable, Equatable {
        /// `live-activity/token` with the ActivityKit token in hex.
        case token(String)
        /// `live-activity/end`.
        case end
    }

    var function: String
    var kind: Kind
    /// Nil: the push-to-start token of ``activityType``.
    var activityId: String?
    var activityType: String
    /// The request's `Idempotency-Key`, made when the app made the call.
    var requestId = ""
    /// When the app made the call, in milliseconds since 1970.
    var time: Int64 = 0

    var endpoint: Endpoint {
        kind == .end ? .liveActivityEnd : .liveActivityToken
    }

    /// The body with the device's token, or with empty `provider` and `subscription_id` for the
    /// sender to fill in when there is none yet.
    func body(token: TokenData?, apnsEnvironment: APNsEnvironment) throws -> Data {
        let provider = token?.provider ?? ""
        let subscriptionId = token?.token ?? ""
        switch kind {
        case .token(let hex):
            return try JSONEncoder().encode(
                LiveActivityTokenRequest(
                    time: time, provider: provider, subscriptionId: subscriptionId, activityType: activityType,
                    activityId: activityId, token: hex, apnsEnvironment: apnsEnvironment))
        case .end:
            return try JSONEncoder().encode(
                LiveActivityEndRequest(
                    time: time, provider: provider, subscriptionId: subscriptionId, activityType: activityType,
                    activityId: activityId))
        }
    }

    /// Writes the request to the outbox, waiting for the device's token when there is none.
    func enqueue(_ ready: ReadyCore) async {
        let token = await ready.token()
        guard let body = try? body(token: token, apnsEnvironment: ready.apnsEnvironment) else {
            ready.emit(
                .error(
                    function, LiveActivityEvents.invalidLiveActivityRequestData,
                    value: ["reason": "the request could not be encoded"]))
            return
        }
        let events: (LiveActivityEvents, LiveActivityEvents) =
            kind == .end
            ? (.liveActivityEndRequestSuccessful, .liveActivityEndRequestFailed)
            : (.liveActivityTokenRequestSuccessful, .liveActivityTokenRequestFailed)
        let entry = OutboxEntry(
            endpoint: endpoint, lane: .ordered, body: body,
            meta: OutboxMeta(function: function, success: events.0, failure: events.1, includeProfile: false),
            needsToken: token == nil, idempotencyKey: requestId)
        await ready.enqueue(entry)
    }
}

/// What the server takes as an activity's id and type, as a token, and as a channel's name. Pure.
enum LiveActivityRules {
    /// Why `activityId` is refused, nil when it is fine.
    static func problem(activityId: String) -> String? {
        problem(activityId, "activityId")
    }

    /// Why `activityType` is refused, nil when it is fine.
    static func problem(activityType: String) -> String? {
        problem(activityType, "activityType")
    }

    /// Why `token` is refused, nil when it is fine.
    static func problem(token: Data) -> String? {
        token.isEmpty ? "the token is empty" : nil
    }

    /// Why a channel's `name` is refused, nil when it is fine: blank, longer than
    /// `LiveActivityChannelRequest.maxNameLength` code points (``TextLength``, as the server counts),
    /// or with a control character.
    static func problem(channelName name: String) -> String? {
        let limit = LiveActivityChannelRequest.maxNameLength
        if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return "name is empty" }
        if !TextLength.fits(name, max: limit) {
            return "name is longer than \(limit) characters (\(TextLength.of(name)))"
        }
        if name.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) {
            return "name has a control character"
        }
        return nil
    }

    private static func problem(_ name: String, _ label: String) -> String? {
        let limit = LiveActivityTokenRequest.maxNameLength
        if name.isEmpty { return "\(label) is empty" }
        if name.count > limit { return "\(label) is longer than \(limit) characters (\(name.count))" }
        return nil
    }
}
