import Foundation
import TernCrypto
import TernProtocol

/// The one place a push's JSON is made: `aps` as Apple defines it, the `tern` object the SDK reads
/// (with `mutable-content: 1` whenever the extension has work), and custom data as top-level keys.
///
/// Each device gets its own `tern.message_id` (the message's id, a dot, the delivery's id), so the
/// JSON is built once per message as a template around that id:
///
/// ```swift
/// let template = try PushPayloadBuilder.template(content, publicId: "m_3fa2")
/// let payload = template.payload(pushId: "m_3fa2.17")
/// ```
enum PushPayloadBuilder {
    /// A payload split where the push id goes.
    struct Template: Sendable, Equatable {
        var prefix: Data
        var suffix: Data

        /// The payload for one delivery.
        func payload(pushId: String) -> Data {
            // One buffer of the payload's size, the three parts copied in: appended to a copy of
            // the prefix, the id (through an array of its own) and the suffix each grew or
            // copied it again, 2.3 % of tern's CPU in a send.
            var pushId = pushId
            return pushId.withUTF8 { id in
                var data = Data(count: prefix.count + id.count + suffix.count)
                data.withUnsafeMutableBytes { out in
                    prefix.withUnsafeBytes { out.copyMemory(from: $0) }
                    UnsafeMutableRawBufferPointer(rebasing: out[prefix.count...]).copyMemory(
                        from: UnsafeRawBufferPointer(id))
                    suffix.withUnsafeBytes {
                        UnsafeMutableRawBufferPointer(rebasing: out[(prefix.count + id.count)...]).copyMemory(from: $0)
                    }
                }
                return data
            }
        }

        /// The size of the largest payload this template makes for a message id of `publicIdLength`
        /// characters (a delivery id has at most 19 digits).
        func maxSize(publicIdLength: Int) -> Int { prefix.count + suffix.count + publicIdLength + 1 + 19 }
    }

    /// What goes into the payload, already validated.
    struct Content: Sendable, Equatable {
        var title: String?
        var subtitle: String?
        var body: String?
        var badge: Int?
        var sound: String?
        var threadId: String?
        /// `aps.category`: a category the app registered itself.
        var category: String?
        var background: Bool
        var mediaURL: String?
        var buttons: [PushButton]
        var clickURL: String?
        var track: TernPushPayload.Tracking
        var data: [String: JSONValue]
        /// How it interrupts, where to show it and which Focus lets it through
        /// (``NotificationPresentation``).
        var presentation = NotificationPresentation()
        /// The alert's texts as keys of the app's strings (``AlertLocalization``).
        var localization = AlertLocalization()

        init(
            title: String? = nil, subtitle: String? = nil, body: String? = nil, badge: Int? = nil,
            sound: String? = nil, threadId: String? = nil, category: String? = nil, background: Bool = false,
            mediaURL: String? = nil,
            buttons: [PushButton] = [], clickURL: String? = nil,
            track: TernPushPayload.Tracking = .init(delivery: true, open: true), data: [String: JSONValue] = [:]
        ) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.badge = badge
            self.sound = sound
            self.threadId = threadId
            self.category = category
            self.background = background
            self.mediaURL = mediaURL
            self.buttons = buttons
            self.clickURL = clickURL
            self.track = track
            self.data = data
        }
    }

    /// The `tern` object for `pushId`.
    static func ternObject(_ content: Content, pushId: String) -> TernPushPayload {
        TernPushPayload(
            messageId: pushId, mediaURL: content.mediaURL, buttons: content.buttons.isEmpty ? nil : content.buttons,
            clickURL: content.clickURL, track: content.track)
    }

    /// The whole payload as a JSON object, with `pushId` as the message id.
    static func json(_ content: Content, pushId: String) throws -> [String: JSONValue] {
        let tern = ternObject(content, pushId: pushId)
        var aps: [String: JSONValue] = [:]
        if content.background {
            aps["content-available"] = .int(1)
        } else {
            var alert: [String: JSONValue] = [:]
            if let title = content.title { alert["title"] = .string(title) }
            if let subtitle = content.subtitle { alert["subtitle"] = .string(subtitle) }
            if let body = content.body { alert["body"] = .string(body) }
            content.localization.apply(to: &alert)
            aps["alert"] = .object(alert)
            if let sound = content.sound { aps["sound"] = .string(sound) }
            if let category = content.category { aps["category"] = .string(category) }
            if tern.needsServiceExtension { aps["mutable-content"] = .int(1) }
            content.presentation.apply(to: &aps, sound: content.sound)
        }
        if let badge = content.badge { aps["badge"] = .int(Int64(badge)) }
        if let threadId = content.threadId { aps["thread-id"] = .string(threadId) }
        var payload = content.data
        payload["aps"] = .object(aps)
        payload[TernPushPayload.key] = tern.json
        return payload
    }

    /// The payload split around a placeholder id that appears nowhere else in it.
    static func template(_ content: Content) throws -> Template {
        try template { .object(try json(content, pushId: $0)) }
    }

    /// The payload `make` builds around a push id, split where a placeholder id that appears
    /// nowhere else went (a notification's, or a Live Activity's).
    static func template(_ make: (String) throws -> JSONValue) throws -> Template {
        let placeholder = "tern-push-id-" + Digest.randomHex(bytes: 12)
        let data = try JSONCoders.encoder.encode(try make(placeholder))
        let marker = Data(placeholder.utf8)
        guard let range = data.firstRange(of: marker) else {
            throw APIError(status: 500, reason: "internal error: the payload lost its message id while encoding")
        }
        return Template(prefix: Data(data[..<range.lowerBound]), suffix: Data(data[range.upperBound...]))
    }
}
