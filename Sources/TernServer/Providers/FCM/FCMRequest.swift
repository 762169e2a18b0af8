import Foundation
import TernHTTP
import TernProtocol

/// One push as an FCM HTTP v1 request: `POST /v1/projects/{project_id}/messages:send` with the
/// APNs payload and headers under `message.apns`, so iOS devices get exactly Tern's payload.
enum FCMRequest {
    static func make(
        _ push: OutgoingPush, origin: URL, projectId: String, accessToken: String, timeout: TimeInterval, now: Date
    ) throws(DeliveryOutcomeError) -> HTTP2Request {
        let headers = try apnsHeaders(push, provider: "FCM", now: now)
        guard !push.token.isEmpty, !push.token.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw .invalidToken(reason: "FCM: the token is empty or contains spaces", since: nil)
        }
        var body = Data(#"{"message":{"token":"#.utf8)
        body.append(jsonString(push.token))
        body.append(contentsOf: #","apns":{"headers":"#.utf8)
        body.append(headers)
        body.append(contentsOf: #","payload":"#.utf8)
        body.append(push.payload)
        body.append(contentsOf: "}}}".utf8)
        let url = origin.appendingPathComponent("v1/projects/\(projectId)/messages:send")
        return HTTP2Request(
            method: "POST", url: url,
            headers: [("authorization", "Bearer " + accessToken), ("content-type", "application/json")], body: body,
            timeout: timeout)
    }

    /// The APNs headers FCM and HMS pass on (`apns-push-type`, `apns-priority`, `apns-expiration`,
    /// `apns-collapse-id`) as a JSON object, after the checks APNs would make.
    static func apnsHeaders(_ push: OutgoingPush, provider: String, now: Date) throws(DeliveryOutcomeError) -> Data {
        if push.payload.count > TernPushPayload.apnsMaxBytes {
            throw .failed(
                reason:
                    "\(provider): the payload is \(push.payload.count) bytes; APNs takes at most \(TernPushPayload.apnsMaxBytes) (shorten the text or custom data)"
            )
        }
        guard push.payload.first == UInt8(ascii: "{") else {
            throw .failed(reason: "\(provider): the payload is not a JSON object")
        }
        let priority = push.pushType == .background ? 5 : (push.priority ?? 10)
        guard [1, 5, 10].contains(priority) else {
            throw .failed(reason: "\(provider): priority \(priority) is not 10, 5 or 1")
        }
        var headers = ["apns-push-type": push.pushType.rawValue, "apns-priority": String(priority)]
        if let expiration = push.expiration {
            guard expiration > now else {
                throw .failed(reason: "\(provider): the message's time to live ran out before it could be sent")
            }
            headers["apns-expiration"] = String(Int(expiration.timeIntervalSince1970))
        }
        if let collapseId = push.collapseId {
            guard collapseId.utf8.count <= 64 else {
                throw .failed(reason: "\(provider): the collapse id is longer than 64 bytes")
            }
            headers["apns-collapse-id"] = collapseId
        }
        return (try? JSONSerialization.data(withJSONObject: headers, options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    static func jsonString(_ text: String) -> Data {
        (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed])) ?? Data(#""""#.utf8)
    }
}
