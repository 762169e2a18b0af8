import Foundation

/// One `push/subscribe`, `push/suspend` or `push/unsubscribe`, checked and ready for the outbox.
struct StatusChange: Sendable {
    /// The setting that remembers the last status the app asked for (the log-in / log-out walk
    /// subscribes the new profile only when it was `push/subscribe`).
    static let intentKey = "push.intent"

    var endpoint: Endpoint
    var function: String
    var sync: Bool
    var profileFields: [String: JSONValue]? = nil
    var customFields: [String: JSONValue]? = nil
    var cats: [CategoryData]? = nil
    var replace: Bool? = nil
    var skipTriggers: Bool? = nil
    var requestId: String
    /// When the app made the call, in milliseconds since 1970.
    var time: Int64

    /// Writes the request with the device's token (or waiting for one), the automatic fields and the
    /// notification permission, and remembers the status asked for.
    func enqueue(_ ready: ReadyCore) async {
        let (token, automatic) = await ready.tokenAndAutomaticFields()
        var fields = automatic
        fields.merge(customFields ?? [:]) { _, app in app }
        let permission = await PermissionChange.carry(in: &fields, ready)
        let request = PushSubscriptionRequest(
            time: time, provider: token?.provider ?? "", subscriptionId: token?.token ?? "", sync: sync,
            profileFields: profileFields, customFields: fields, cats: cats, replace: replace,
            skipTriggers: skipTriggers, apnsEnvironment: ready.apnsEnvironment)
        guard let body = try? JSONEncoder().encode(request) else {
            ready.emit(.error(function, PushModuleEvents.subscribeRequestDataIsNil))
            return
        }
        let events = SubscriptionAPI.events(endpoint)
        let entry = OutboxEntry(
            endpoint: endpoint, lane: .ordered, body: body,
            meta: OutboxMeta(
                function: function, success: events.success, failure: events.failure, includeProfile: sync),
            needsToken: token == nil, idempotencyKey: requestId)
        // The intent (and the permission the request carries) is saved in the request's own transaction.
        await ready.enqueue(
            [entry],
            journal: [Self.intentKey: .string(endpoint.rawValue), Self.intentRequestKey: .string(requestId)]
                .merging(permission) { _, sent in sent })
    }

    /// The request id of the last status call (``intentKey``'s request).
    static let intentRequestKey = "push.intentRequest"

    /// The last status call: its endpoint and its request id, nil when the app never made one.
    struct IntentMarker: Equatable {
        var endpoint: Endpoint
        var requestId: String?
    }

    /// The status the app asked for last, with the request that asked.
    static func lastIntentMarker(_ ready: ReadyCore) async -> IntentMarker? {
        guard let endpoint = await lastIntent(ready) else { return nil }
        return IntentMarker(endpoint: endpoint, requestId: await ready.setting(intentRequestKey)?.stringValue)
    }

    /// The status the app asked for last (`push/subscribe`, …), nil when it never asked.
    static func lastIntent(_ ready: ReadyCore) async -> Endpoint? {
        await ready.setting(intentKey)?.stringValue.flatMap(Endpoint.init(rawValue:))
    }
}
