import Foundation
import TernHTTP
import TernProtocol

/// One push as an APNs request (`POST /3/device/{token}`), or the outcome that makes sending
/// pointless: a payload over 4096 bytes, a token that is not hex, no topic, an expired message.
enum APNsRequest {
    /// - Parameters:
    ///   - devicePath: `/3/device/` after the origin's own path (``devicePath(_:)``).
    ///   - authorization: `bearer <provider token>`, made once for many pushes.
    static func make(
        _ push: OutgoingPush, devicePath: String, authorization: String, defaultTopic: String?,
        timeout: TimeInterval, now: Date
    ) throws(DeliveryOutcomeError) -> HTTP2ConnectionPool.Request {
        if push.payload.count > TernPushPayload.apnsMaxBytes {
            throw .failed(
                reason:
                    "APNs: the payload is \(push.payload.count) bytes; APNs takes at most \(TernPushPayload.apnsMaxBytes) (shorten the text or custom data)"
            )
        }
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
        let priority = push.pushType == .background ? 5 : (push.priority ?? 10)
        guard [1, 5, 10].contains(priority) else {
            throw .failed(reason: "APNs: priority \(priority) is not 10, 5 or 1")
        }
        var headers: [(String, String)] = [
            ("authorization", authorization),
            ("apns-topic", topic),
            ("apns-push-type", push.pushType.rawValue),
            ("apns-priority", String(priority)),
            ("apns-id", APNsID.random()),
            ("content-type", "application/json"),
        ]
        if let expiration = push.expiration {
            guard expiration > now else {
                throw .failed(reason: "APNs: the message's time to live ran out before it could be sent")
            }
            headers.append(("apns-expiration", String(Int(expiration.timeIntervalSince1970))))
        }
        if let collapseId = push.collapseId {
            guard collapseId.utf8.count <= 64 else {
                throw .failed(reason: "APNs: the collapse id is longer than 64 bytes")
            }
            headers.append(("apns-collapse-id", collapseId))
        }
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
