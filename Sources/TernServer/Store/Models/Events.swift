import Foundation
import TernProtocol

/// A goal as stored: the wire's `GoalEvent` resolved to its pixel and, with a JWT, its profile.
public struct GoalRecord: Codable, Sendable, Equatable {
    public var id: Int64 = 0
    var pixelId: Int64
    var profileId: Int64?
    var resourceId: Int64?
    var clientId: String
    var eventName: String
    var sendMessageId: String?
    var payload: [String: JSONValue]?
    var matching: [String: JSONValue]?
    var matchingType: String?
    var utm: UTM?
    /// When it happened on the device (ms since 1970).
    var time: Int64
    var receivedAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, payload, matching, utm, time
        case pixelId = "pixel_id"
        case profileId = "profile_id"
        case resourceId = "resource_id"
        case clientId = "client_id"
        case eventName = "event_name"
        case sendMessageId = "send_message_id"
        case matchingType = "matching_type"
        case receivedAt = "received_at"
    }
}

/// A push delivery or open reported by a device.
public struct PushEventRecord: Codable, Sendable, Equatable {
    public var id: Int64 = 0
    var resourceId: Int64
    var profileId: Int64?
    var messageId: String
    var type: PushEventRequest.Kind
    var time: Int64
    var receivedAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, type, time
        case resourceId = "resource_id"
        case profileId = "profile_id"
        case messageId = "message_id"
        case receivedAt = "received_at"
    }
}

/// The first answer to an idempotent request, kept with the change it made.
public struct StoredAnswer: Sendable, Equatable {
    /// A digest of what the request asked (endpoint and body): a repeat must match it.
    var fingerprint: String
    var status: Int
    var body: Data
}

/// The subscription a delivery was sent to: its resource and profile.
public struct PushRecipient: Sendable, Equatable {
    var resourceId: Int64
    var profileId: Int64

    /// A push id's parts: the message's public id, an A/B test's version letter, the delivery's id.
    static func parts(_ pushId: String) -> (publicId: String, variant: String?, deliveryId: Int64)? {
        guard let dot = pushId.lastIndex(of: "."), let deliveryId = Int64(pushId[pushId.index(after: dot)...]),
            deliveryId > 0
        else { return nil }
        let publicId = pushId[..<dot]
        if let versionDot = publicId.lastIndex(of: ".") {
            let letter = String(publicId[publicId.index(after: versionDot)...])
            if MessageVariants.letters.contains(letter) { return (String(publicId[..<versionDot]), letter, deliveryId) }
        }
        return (String(publicId), nil, deliveryId)
    }
}
