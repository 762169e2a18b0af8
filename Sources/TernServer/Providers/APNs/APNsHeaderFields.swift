import Foundation
import TernProtocol

/// The APNs headers that FCM and HMS pass on to APNs for iOS devices.
enum APNsHeaderFields {
    /// The APNs headers FCM and HMS pass on (`apns-push-type`, `apns-priority`, `apns-expiration`,
    /// `apns-collapse-id`) as a JSON object, after the checks APNs would make.
    static func json(_ push: OutgoingPush, provider: String, now: Date) throws(DeliveryOutcomeError) -> Data {
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
