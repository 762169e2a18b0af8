import Foundation
import TernHTTP
import TernProtocol

/// One push as an APNs request (`POST /3/device/{token}`), or the outcome that makes sending
/// pointless: a token that is not hex, no topic, or a push that breaks ``APNsHeaderFields``' rules.
enum APNsRequest {
    /// - Parameters:
    ///   - devicePath: `/3/device/` after the origin's own path (``devicePath(_:)``).
    ///   - authorization: `bearer <provider token>`, made once for many pushes.
    static func make(
        _ push: OutgoingPush, devicePath: String, authorization: String, defaultTopic: String?,
        timeout: TimeInterval, now: Date
    ) throws(DeliveryOutcomeError) -> HTTP2ConnectionPool.Request {
        let fields = try APNsHeaderFields.fields(push, provider: "APNs", now: now)
        guard isDeviceToken(push.token) else {
            throw .invalidToken(
                reason: "APNs: the token is not an APNs device token (an even number of hex digits)", since: nil)
        }
        guard let topic = push.topic ?? defaultTopic, !topic.isEmpty else {
            throw .failed(
                reason:
                    "APNs: no topic: give the project's APNs credentials a topic (the app's bundle id) or the push one"
            )
        }
        let headers =
            [("authorization", authorization), ("apns-topic", topic)] + fields + [
                ("apns-id", APNsID.delivery(messageId: push.messageId, deliveryId: push.deliveryId)),
                ("content-type", "application/json"),
            ]
        // The token is hex (checked above): nothing to escape.
        return HTTP2ConnectionPool.Request(
            method: "POST", path: devicePath + push.token, headers: headers, body: push.payload, timeout: timeout)
    }

    /// `/3/device/`, after the origin's path when it has one (a stand-in behind a prefix).
    static func devicePath(_ origin: URL) -> String {
        let base = origin.path
        return (base.hasSuffix("/") ? base : base + "/") + "3/device/"
    }

    /// APNs tokens are hex (32 bytes today; Apple says not to assume the length).
    static func isDeviceToken(_ token: String) -> Bool {
        var count = 0
        for byte in token.utf8 {
            switch byte {
            case 48...57, 65...70, 97...102: count += 1
            default: return false
            }
        }
        return count > 0 && count <= 400 && count % 2 == 0
    }
}
