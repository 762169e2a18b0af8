import Foundation
import TernProtocol

/// APNs' rules for a push, in one place: the payload's size, the priority, the time to live, the
/// collapse id. ``MessagePlan`` holds a new message to them (a 400 that says what to change); the
/// APNs, FCM and HMS requests hold each push to them again before sending (a failed outcome), since
/// FCM and HMS pass the same headers on to APNs for iOS devices.
enum APNsHeaderFields {
    /// The largest payload APNs takes.
    static let maxPayloadBytes = TernPushPayload.apnsMaxBytes
    /// The longest `apns-collapse-id`, in bytes.
    static let maxCollapseIdBytes = 64
    /// The priorities APNs knows: 10 (immediately), 5 (power-considerate), 1 (low).
    static let priorities: Set<Int> = [1, 5, 10]

    /// `apns-push-type`, `apns-priority`, and when the push has them `apns-expiration` and
    /// `apns-collapse-id`, after the checks APNs would make.
    static func fields(_ push: OutgoingPush, provider: String, now: Date) throws(DeliveryOutcomeError) -> [(
        String, String
    )] {
        if push.payload.count > maxPayloadBytes {
            throw .failed(
                reason:
                    "\(provider): the payload is \(push.payload.count) bytes; APNs takes at most \(maxPayloadBytes) (shorten the text or custom data)"
            )
        }
        guard push.payload.first == UInt8(ascii: "{") else {
            throw .failed(reason: "\(provider): the payload is not a JSON object")
        }
        let priority = push.pushType == .background ? 5 : (push.priority ?? 10)
        guard priorities.contains(priority) else {
            throw .failed(reason: "\(provider): priority \(priority) is not 10, 5 or 1")
        }
        var fields = [("apns-push-type", push.pushType.rawValue), ("apns-priority", String(priority))]
        if let expiration = push.expiration {
            guard expiration > now else {
                throw .failed(reason: "\(provider): the message's time to live ran out before it could be sent")
            }
            fields.append(("apns-expiration", String(Int(expiration.timeIntervalSince1970))))
        }
        if let collapseId = push.collapseId {
            guard collapseId.utf8.count <= maxCollapseIdBytes else {
                throw .failed(reason: "\(provider): the collapse id is longer than \(maxCollapseIdBytes) bytes")
            }
            fields.append(("apns-collapse-id", collapseId))
        }
        return fields
    }

    /// The ``fields(_:provider:now:)`` as the JSON object FCM and HMS pass on, keys sorted.
    static func json(_ push: OutgoingPush, provider: String, now: Date) throws(DeliveryOutcomeError) -> Data {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, (name, value)) in try fields(push, provider: provider, now: now).sorted(by: { $0.0 < $1.0 })
            .enumerated()
        {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(name, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendString(value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }
}
