import Foundation
import TernProtocol

/// Hand decoders for the SDK's hottest request shapes (`push/subscribe`, `push/update`,
/// `event/push`, `event/post`): Foundation's JSONDecoder on Linux cost a tenth of a `push/subscribe` in the
/// profile. The body is parsed once by ``StoredJSON`` and mapped field by field. Anything the fast
/// path is not sure decodes exactly as JSONDecoder would (a wrong type, a missing field, a
/// fractional number, categories) returns nil, and the request goes through JSONDecoder as before,
/// so every 400 and its reason stay JSONDecoder's.
protocol FastDecodable {
    init?(fastJSON object: [String: JSONValue])
}

enum FastRequestDecoding {
    static func decode<T>(_ type: T.Type, from body: Data) -> T? {
        guard let fast = type as? any FastDecodable.Type else { return nil }
        let parsed = body.withUnsafeBytes { raw -> JSONValue? in
            let bytes = raw.bindMemory(to: UInt8.self)
            return isPlain(bytes) ? StoredJSON.decode(utf8: bytes) : nil
        }
        guard case .object(let object)? = parsed else { return nil }
        return fast.init(fastJSON: object) as? T
    }

    /// ASCII only, no raw control character inside a string, no number with a leading zero: text
    /// on which StoredJSON and JSONDecoder cannot disagree about being valid JSON. Anything else
    /// (rare from the SDK) takes JSONDecoder's path and gets its answer.
    static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var inString = false
        var escaped = false
        var previous: UInt8 = 0
        for index in bytes.indices {
            let byte = bytes[index]
            if byte >= 0x80 { return false }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if byte < 0x20 {
                    return false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]), !isDigit(previous)
            {
                return false
            }
            previous = byte
        }
        return true
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Absent or null: `.some(nil)`; a string: it; anything else: nil (let JSONDecoder say why).
    static func optionalString(_ value: JSONValue?) -> String?? {
        switch value {
        case nil, .null?: .some(nil)
        case .string(let text)?: .some(text)
        default: nil
        }
    }

    /// Absent or null: `.some(nil)`; a known environment: it; anything else: nil (JSONDecoder says why).
    static func optionalEnvironment(_ value: JSONValue?) -> APNsEnvironment?? {
        switch value {
        case nil, .null?: .some(nil)
        case .string(let text)?: APNsEnvironment(rawValue: text).map { .some($0) }
        default: nil
        }
    }

    static func optionalBool(_ value: JSONValue?) -> Bool?? {
        switch value {
        case nil, .null?: .some(nil)
        case .bool(let flag)?: .some(flag)
        default: nil
        }
    }

    /// A map of free values, as `[String: JSONValue]` decodes it. JSONDecoder reads a number such
    /// as `1.0` as an integer and StoredJSON as a double, so any fractional number falls back.
    static func optionalFields(_ value: JSONValue?) -> [String: JSONValue]?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .object(let object)?: return object.values.allSatisfy(isExact) ? .some(object) : nil
        default: return nil
        }
    }

    private static func isExact(_ value: JSONValue) -> Bool {
        switch value {
        case .double: false
        case .array(let values): values.allSatisfy(isExact)
        case .object(let object): object.values.allSatisfy(isExact)
        default: true
        }
    }
}

extension PushSubscriptionRequest: FastDecodable {
    init?(fastJSON object: [String: JSONValue]) {
        typealias F = FastRequestDecoding
        guard case .int(let time)? = object["time"], case .string(let provider)? = object["provider"],
            case .string(let token)? = object["subscription_id"], case .some(let sync) = F.optionalBool(object["sync"]),
            case .some(let profileFields) = F.optionalFields(object["profile_fields"]),
            case .some(let customFields) = F.optionalFields(object["custom_fields"]),
            case .some(let replace) = F.optionalBool(object["replace"]),
            case .some(let skipTriggers) = F.optionalBool(object["skip_triggers"]),
            case .some(let environment) = F.optionalEnvironment(object["apns_environment"])
        else { return nil }
        // Categories have their own decoding rules: JSONDecoder reads them.
        if let cats = object["cats"], cats != .null { return nil }
        self.init(
            time: time, provider: provider, subscriptionId: token, sync: sync ?? true, profileFields: profileFields,
            customFields: customFields, cats: nil, replace: replace, skipTriggers: skipTriggers,
            apnsEnvironment: environment)
    }
}

extension PushUpdateRequest: FastDecodable {
    init?(fastJSON object: [String: JSONValue]) {
        typealias F = FastRequestDecoding
        guard case .string(let provider)? = object["provider"], case .string(let token)? = object["subscription_id"],
            case .some(let oldProvider) = F.optionalString(object["old_provider"]),
            case .some(let oldToken) = F.optionalString(object["old_subscription_id"]),
            case .some(let customFields) = F.optionalFields(object["custom_fields"]),
            case .some(let environment) = F.optionalEnvironment(object["apns_environment"])
        else { return nil }
        self.init(
            oldProvider: oldProvider, oldSubscriptionId: oldToken, provider: provider, subscriptionId: token,
            customFields: customFields, apnsEnvironment: environment)
    }
}

extension PushEventRequest: FastDecodable {
    init?(fastJSON object: [String: JSONValue]) {
        guard case .array(let values)? = object["events"] else { return nil }
        var events: [Item] = []
        events.reserveCapacity(values.count)
        for value in values {
            guard case .object(let item) = value, case .string(let messageId)? = item["message_id"],
                case .string(let type)? = item["type"], let kind = Kind(rawValue: type),
                case .int(let time)? = item["time"]
            else { return nil }
            events.append(Item(messageId: messageId, type: kind, time: time))
        }
        self.init(events: events)
    }
}

extension GoalEventRequest: FastDecodable {
    /// Goals without a subscription or UTM tags (those have decoding rules of their own: JSONDecoder
    /// reads them); JSONDecoder took a seventh of an `event/post` in the profile.
    init?(fastJSON object: [String: JSONValue]) {
        typealias F = FastRequestDecoding
        guard case .array(let values)? = object["events"],
            case .some(let provider) = F.optionalString(object["provider"]),
            case .some(let subscriptionId) = F.optionalString(object["subscription_id"])
        else { return nil }
        var events: [GoalEvent] = []
        events.reserveCapacity(values.count)
        for value in values {
            guard case .object(let item) = value, case .string(let sid)? = item["sid"],
                case .string(let eventName)? = item["event_name"], case .int(let time)? = item["time"],
                case .some(let clientId) = F.optionalString(item["client_id"]),
                case .some(let sendMessageId) = F.optionalString(item["send_message_id"]),
                case .some(let matchingType) = F.optionalString(item["matching_type"]),
                case .some(let payload) = F.optionalFields(item["payload"]),
                case .some(let matching) = F.optionalFields(item["matching"]),
                case .some(let profileFields) = F.optionalFields(item["profile_fields"])
            else { return nil }
            for key in ["subscription", "utm"] {
                if let nested = item[key], nested != .null { return nil }
            }
            events.append(
                GoalEvent(
                    sid: sid, clientId: clientId ?? "", eventName: eventName, sendMessageId: sendMessageId,
                    payload: payload, matching: matching, matchingType: matchingType, profileFields: profileFields,
                    time: time))
        }
        self.init(events: events, provider: provider, subscriptionId: subscriptionId)
    }
}
