import Foundation
import TernProtocol

/// Reads a notification's `userInfo` into a checked ``TernPushMessage``, or says why it cannot.
///
/// It never throws and never traps: every malformed part becomes a ``PushIssue`` carrying the
/// reference's push event (`errorHandleUserInfo`, `uidIsNil`, `errorMediaKeyMissing`,
/// `errorButtonsKeyMissing`, `invalidButtonIdentifier`, `outOfRangeForIdentifier`), and the rest of
/// the message is kept. The payload's format is in `docs/push-payload.md`.
///
/// ```swift
/// let outcome = PushPayloadParser().parse(userInfo: request.content.userInfo)
/// ```
public struct PushPayloadParser: Sendable {
    /// Longest message id accepted (it becomes part of a category identifier).
    public static let maxMessageIdLength = 256

    /// Which media URLs are accepted.
    public var mediaPolicy: MediaURLPolicy

    /// A parser.
    ///
    /// - Parameter mediaPolicy: Which media URLs are accepted; default https only.
    public init(mediaPolicy: MediaURLPolicy = MediaURLPolicy()) {
        self.mediaPolicy = mediaPolicy
    }

    /// True when `userInfo` carries a `tern` object: the only marker of a Tern push.
    public static func isTernPush(_ userInfo: [AnyHashable: Any]) -> Bool {
        userInfo[TernPushPayload.key].map { UserInfoConversion.value($0)?.objectValue != nil } ?? false
    }

    /// True when the JSON payload carries a `tern` object.
    public static func isTernPush(json: [String: JSONValue]) -> Bool {
        json[TernPushPayload.key]?.objectValue != nil
    }

    /// Parses what the OS hands over as `userInfo`.
    public func parse(userInfo: [AnyHashable: Any]) -> PushParseOutcome {
        parse(json: UserInfoConversion.json(from: userInfo))
    }

    /// Parses a push's raw JSON, as APNs carries it.
    public func parse(data: Data) -> PushParseOutcome {
        // JSONSerialization then the userInfo conversion: what the OS does with an APNs payload, and
        // several times faster than decoding `JSONValue` with Codable.
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return .malformed([PushIssue(.errorHandleUserInfo, reason: "the payload is not a JSON object")])
        }
        return parse(json: UserInfoConversion.json(fromStringKeyed: object))
    }

    /// Parses a payload already in JSON values.
    public func parse(json: [String: JSONValue]) -> PushParseOutcome {
        guard let raw = json[TernPushPayload.key] else { return .notTern }
        guard let tern = raw.objectValue else {
            let reason = "'\(TernPushPayload.key)' must be an object, got \(raw.kindName)"
            return .malformed([
                PushIssue(.errorHandleUserInfo, reason: reason, details: ["key": .string(TernPushPayload.key)])
            ])
        }
        var issues: [PushIssue] = []
        var message = TernPushMessage(messageId: nil, alert: Self.alert(from: json["aps"]))
        message.version = version(tern[Key.version], issues: &issues)
        message.messageId = messageId(tern[Key.messageId], issues: &issues)
        message.mediaURL = mediaURL(tern[Key.mediaURL], issues: &issues)
        message.buttons = PushButtonRules.buttons(from: tern[Key.buttons], issues: &issues)
        message.clickURL = clickURL(tern[Key.clickURL], issues: &issues)
        message.track = track(tern[Key.track], issues: &issues)
        message.customData = json.filter { $0.key != "aps" && $0.key != TernPushPayload.key }
        return .push(message, issues: issues)
    }

    private typealias Key = TernPushPayload.Key

    private func version(_ value: JSONValue?, issues: inout [PushIssue]) -> Int {
        guard let value, value != .null else { return TernPushPayload.currentVersion }
        if let number = value.intValue, number >= 1, number <= Int64(Int32.max) { return Int(number) }
        issues.append(
            PushIssue(
                .errorHandleUserInfo,
                reason: "'\(Key.version.stringValue)' must be a positive integer, got \(value.kindName)",
                details: ["key": .string(Key.version.stringValue)]))
        return TernPushPayload.currentVersion
    }

    private func messageId(_ value: JSONValue?, issues: inout [PushIssue]) -> String? {
        let reason: String
        switch value {
        case .none, .some(.null):
            reason = "message_id is missing"
        case .some(.string(let text)) where text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty:
            reason = "message_id is empty"
        case .some(.string(let text)) where text.count > Self.maxMessageIdLength:
            reason = "message_id is longer than \(Self.maxMessageIdLength) characters"
        case .some(.string(let text)):
            return text
        case .some(let other):
            reason = "message_id must be a string, got \(other.kindName)"
        }
        issues.append(PushIssue(.uidIsNil, reason: reason, details: ["key": .string(Key.messageId.stringValue)]))
        return nil
    }

    private func mediaURL(_ value: JSONValue?, issues: inout [PushIssue]) -> URL? {
        switch value {
        case .none, .some(.null):
            return nil
        case .some(.string(let text)):
            switch mediaPolicy.check(text) {
            case .success(let url): return url
            case .failure(let issue):
                issues.append(issue)
                return nil
            }
        case .some(let other):
            let reason = "media_url must be a string, got \(other.kindName)"
            issues.append(
                PushIssue(.errorMediaKeyMissing, reason: reason, details: ["key": .string(Key.mediaURL.stringValue)]))
            return nil
        }
    }

    private func clickURL(_ value: JSONValue?, issues: inout [PushIssue]) -> URL? {
        switch value {
        case .none, .some(.null):
            return nil
        case .some(.string(let text)):
            if let url = PushButtonRules.absoluteURL(text) { return url }
            issues.append(
                PushIssue(
                    .errorHandleUserInfo, reason: "click_url is not an absolute URL",
                    details: ["key": .string(Key.clickURL.stringValue), "url": .string(text)]))
            return nil
        case .some(let other):
            let reason = "click_url must be a string, got \(other.kindName)"
            issues.append(
                PushIssue(.errorHandleUserInfo, reason: reason, details: ["key": .string(Key.clickURL.stringValue)]))
            return nil
        }
    }

    private func track(_ value: JSONValue?, issues: inout [PushIssue]) -> TernPushPayload.Tracking {
        let none = TernPushPayload.Tracking(delivery: false, open: false)
        guard let value, value != .null else { return none }
        guard let object = value.objectValue else {
            let reason = "track must be an object, got \(value.kindName)"
            issues.append(
                PushIssue(.errorHandleUserInfo, reason: reason, details: ["key": .string(Key.track.stringValue)]))
            return none
        }
        var tracking = none
        for key in TernPushPayload.Tracking.Key.allCases {
            guard let flag = object[key], flag != .null else { continue }
            guard let bool = flag.boolValue else {
                let reason = "track.\(key.stringValue) must be a boolean, got \(flag.kindName)"
                issues.append(
                    PushIssue(.errorHandleUserInfo, reason: reason, details: ["key": .string(Key.track.stringValue)]))
                continue
            }
            switch key {
            case .delivery: tracking.delivery = bool
            case .open: tracking.open = bool
            }
        }
        return tracking
    }

    /// `aps.alert` as text: a string is the body; an object gives title, subtitle and body.
    static func alert(from aps: JSONValue?) -> PushAlert {
        guard let alert = aps?.objectValue?["alert"] else { return PushAlert() }
        if let body = alert.stringValue { return PushAlert(body: body) }
        guard let object = alert.objectValue else { return PushAlert() }
        return PushAlert(
            title: object["title"]?.stringValue, subtitle: object["subtitle"]?.stringValue,
            body: object["body"]?.stringValue)
    }
}
