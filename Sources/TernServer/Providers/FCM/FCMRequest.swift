import Foundation
import TernHTTP
import TernProtocol

/// One push as an FCM HTTP v1 request: `POST /v1/projects/{project_id}/messages:send` with the
/// APNs payload and headers under `message.apns`, so iOS devices get exactly Tern's payload.
enum FCMRequest {
    static func make(
        _ push: OutgoingPush, origin: URL, projectId: String, accessToken: String, timeout: TimeInterval, now: Date
    ) throws(DeliveryOutcomeError) -> HTTP2Request {
        let headers = try APNsHeaderFields.json(push, provider: "FCM", now: now)
        guard !push.token.isEmpty, !push.token.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw .invalidToken(reason: "FCM: the token is empty or contains spaces", since: nil)
        }
        var body = Data(#"{"message":{"token":"#.utf8)
        var token: [UInt8] = []
        JSONText.appendString(push.token, to: &token)
        body.append(contentsOf: token)
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
}
