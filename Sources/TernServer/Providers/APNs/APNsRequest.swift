import Foundation
import TernHTTP
import TernProtocol

/// One push as an APNs request (`POST /3/device/{token}`), or the outcome that makes sending
/// pointless: a token that is not hex, no topic, or a push that breaks ``APNsHeaderFields``' rules.
enum APNsRequest {
    /// - Parameters:
    ///   - devicePath: `/3/device/` after the origin's own path (``devicePath(_:)``).
    ///   - shared: The batch's fields sent alike (``APNsSharedFields``): the authorization, the
    ///     topic, the push's type, priority, expiration and collapse id, the content type.
    ///   - defaultTopic: The credential's topic, for a push that names none.
    static func make(
        _ push: OutgoingPush, devicePath: String, shared: inout APNsSharedFields, defaultTopic: String?,
        timeout: TimeInterval, now: Date
    ) throws(DeliveryOutcomeError) -> HTTP2ConnectionPool.Request {
        let fields = try APNsHeaderFields.fields(push, provider: "APNs", now: now)
        guard isDeviceToken(push.token) else {
            throw .invalidToken(
                reason: "APNs: the token is not an APNs device token (an even number of hex digits)", since: nil)
        }
        guard var topic = push.topic ?? defaultTopic, !topic.isEmpty else {
            throw .failed(
                reason:
                    "APNs: no topic: give the project's APNs credentials a topic (the app's bundle id) or the push one"
            )
        }
        // ActivityKit's pushes go to the app's own topic with a suffix of their own.
        if push.pushType == .liveActivity, !topic.hasSuffix(LiveActivityMessage.topicSuffix) {
            topic += LiveActivityMessage.topicSuffix
        }
        // The token is hex (checked above): nothing to escape.
        return HTTP2ConnectionPool.Request(
            method: "POST", path: devicePath + push.token, shared: try shared.headers(topic: topic, fields: fields),
            headers: [("apns-id", APNsID.delivery(messageId: push.messageId, deliveryId: push.deliveryId))],
            body: push.payload, timeout: timeout)
    }

    /// `/3/device/`, after the origin's path when it has one (a stand-in behind a prefix).
    static func devicePath(_ origin: URL) -> String {
        let base = origin.path
        return (base.hasSuffix("/") ? base : base + "/") + "3/device/"
    }

    /// The most hex digits a token may have (devices' tokens are 64 today, ActivityKit's longer).
    static let maxTokenDigits = 400

    /// APNs tokens are hex (32 bytes today; Apple says not to assume the length).
    static func isDeviceToken(_ token: String) -> Bool {
        var count = 0
        for byte in token.utf8 {
            switch byte {
            case 48...57, 65...70, 97...102: count += 1
            default: return false
            }
        }
        return count > 0 && count <= maxTokenDigits && count % 2 == 0
    }
}

/// The fields a batch's APNs requests send alike, checked once as
/// ``HTTP2ConnectionPool/SharedHeaders`` and made again only when a push's topic or
/// ``APNsHeaderFields`` differ from the push's before it: a batch is most often one message's.
struct APNsSharedFields {
    /// `bearer <provider token>`, made once for many pushes.
    let authorization: String
    /// The last push's topic and fields, and the headers made of them. Kept apart, not as one
    /// optional tuple: binding that tuple to compare copied its strings and arrays for every push.
    private var lastTopic = ""
    private var lastFields: [(String, String)] = []
    private var lastHeaders: HTTP2ConnectionPool.SharedHeaders?

    init(authorization: String) {
        self.authorization = authorization
    }

    mutating func headers(topic: String, fields: [(String, String)]) throws(DeliveryOutcomeError)
        -> HTTP2ConnectionPool.SharedHeaders
    {
        if let lastHeaders, lastTopic == topic, lastFields.elementsEqual(fields, by: ==) { return lastHeaders }
        do {
            let headers = try HTTP2ConnectionPool.SharedHeaders(
                [("authorization", authorization), ("apns-topic", topic)] + fields + [
                    ("content-type", "application/json")
                ])
            (lastTopic, lastFields, lastHeaders) = (topic, fields, headers)
            return headers
        } catch {
            throw DeliveryOutcomeError(outcome: ProviderFailure.outcome(error, provider: "APNs"))
        }
    }
}
