import Foundation
import TernProtocol

/// Profile fields in a message's title, subtitle, body, click URL and custom data's text values:
/// `{{first_name}}`, or with the text a person without the field sees, `{{first_name|there}}`.
/// Each device's push is made for its person when it is sent (``MessagePersonalizer``), and each
/// person's inbox copy when it is written; a field that is missing, empty, null, a list or an
/// object gives the fallback (empty when there is none). In the click URL each value (and
/// fallback) is percent-encoded, so a person's field cannot break the link. A `{{` must open a
/// placeholder; `}}` alone is text.
///
/// ```swift
/// Personalization.render("Hi {{first_name|there}}!", fields: ["first_name": .string("Ana")])   // "Hi Ana!"
/// Personalization.render("Hi {{first_name|there}}!", fields: [:])                              // "Hi there!"
/// ```
enum Personalization {
    /// Placeholders a text may have.
    static let maxPlaceholders = 20

    /// One placeholder: the field it names and the text shown without it.
    struct Placeholder: Sendable, Equatable {
        var name: String
        var fallback: String
    }

    /// The parts of a text: its runs of plain text and its placeholders, in order.
    enum Part: Sendable, Equatable {
        case text(Substring)
        case field(Placeholder)
    }

    /// `text` cut into its parts; a refusal names `field` (`title`, `variants[1] (b): body`).
    static func parts(_ text: String, field: String) throws(APIError) -> [Part] {
        var parts: [Part] = []
        var rest = text[...]
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { parts.append(.text(rest[..<open.lowerBound])) }
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw .badRequest(
                    "\(field) has a {{ with no }} after it: a placeholder is {{field}} or {{field|fallback}}")
            }
            let inside = rest[open.upperBound..<close.lowerBound]
            let bar = inside.firstIndex(of: "|")
            let name = inside[..<(bar ?? inside.endIndex)].trimmingCharacters(in: .whitespaces)
            guard FieldName.isValid(name) else {
                throw .badRequest(
                    "\(field) has {{\(inside.prefix(64))}}, whose field name is not valid: letters, digits, _ and -, "
                        + "up to 64, starting with a letter or _")
            }
            let fallback = bar.map { inside[inside.index(after: $0)...].trimmingCharacters(in: .whitespaces) } ?? ""
            parts.append(.field(Placeholder(name: name, fallback: fallback)))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { parts.append(.text(rest)) }
        guard parts.count(where: { if case .field = $0 { true } else { false } }) <= maxPlaceholders else {
            throw .badRequest("\(field) has more than \(maxPlaceholders) placeholders")
        }
        return parts
    }

    /// `text` with each placeholder replaced by its field's value in `fields`, or its fallback,
    /// each passed through `encode` (a URL's percent-encoding).
    static func render(_ text: String, fields: [String: JSONValue], encode: (String) -> String = { $0 }) -> String {
        guard text.contains("{{"), let parts = try? parts(text, field: "") else { return text }
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .field(let placeholder): out += encode(value(fields[placeholder.name]) ?? placeholder.fallback)
            }
        }
        return out
    }

    /// A value as a URL may carry it anywhere: everything but RFC 3986's unreserved characters
    /// percent-encoded.
    static func urlEncoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A field's value as text; nil when a person has none to show.
    static func value(_ field: JSONValue?) -> String? {
        switch field {
        case .string(let text) where !text.isEmpty: text
        case .int(let number): String(number)
        case .double(let number): number.formatted(.number.grouping(.never))
        case .bool(let flag): flag ? "true" : "false"
        default: nil
        }
    }

    /// The texts a person sees or follows, with the name a refusal gives each: the message's, then
    /// each version's.
    static func texts(_ request: MessageRequest) -> [(field: String, text: String?)] {
        func texts(
            _ prefix: String, title: String?, subtitle: String?, body: String?, link: String?,
            data: [String: JSONValue]?
        ) -> [(String, String?)] {
            var texts = [
                (prefix + "title", title), (prefix + "subtitle", subtitle), (prefix + "body", body),
                (prefix + "click_url", link),
            ]
            for (key, value) in (data ?? [:]).sorted(by: { $0.key < $1.key }) {
                if case .string(let text) = value { texts.append((prefix + "data.\(key)", text)) }
            }
            return texts
        }
        var all = texts(
            "", title: request.title, subtitle: request.subtitle, body: request.body, link: request.clickURL,
            data: request.data)
        for (index, variant) in (request.variants ?? []).enumerated() {
            all += texts(
                "\(MessageVariants.name(index)): ", title: variant.title, subtitle: variant.subtitle,
                body: variant.body,
                link: variant.clickURL, data: variant.data)
        }
        for (language, localized) in (request.localizations ?? [:]).sorted(by: { $0.key < $1.key }) {
            all += texts(
                "localizations.\(language).", title: localized.title, subtitle: localized.subtitle,
                body: localized.body, link: localized.clickURL, data: nil)
        }
        return all
    }

    /// The profile fields `request`'s texts name; empty for a message without placeholders. Each
    /// placeholder is checked; a background push, which shows no text, may have none.
    static func fields(_ request: MessageRequest) throws(APIError) -> Set<String> {
        var names: Set<String> = []
        for (field, text) in texts(request) {
            guard let text, text.contains("{{") else { continue }
            for case .field(let placeholder) in try parts(text, field: field) { names.insert(placeholder.name) }
        }
        return names
    }

    /// `request` as `fields`' person sees it: its title, subtitle, body, click URL (each value
    /// percent-encoded) and custom data's text values rendered.
    static func personalized(_ request: MessageRequest, fields: [String: JSONValue]) -> MessageRequest {
        var shown = request
        shown.title = request.title.map { render($0, fields: fields) }
        shown.subtitle = request.subtitle.map { render($0, fields: fields) }
        shown.body = request.body.map { render($0, fields: fields) }
        shown.clickURL = request.clickURL.map { render($0, fields: fields, encode: urlEncoded) }
        shown.data = request.data?.mapValues { value in
            guard case .string(let text) = value else { return value }
            return .string(render(text, fields: fields))
        }
        return shown
    }

    /// `request` as a person with none of its fields sees it (every fallback): what is checked,
    /// and sized, when it is made.
    static func withFallbacks(_ request: MessageRequest) -> MessageRequest { personalized(request, fields: [:]) }
}

/// A personalized message's pushes, each made for its person as it is sent: the message's texts
/// (its version's, in an A/B test) rendered with the person's profile fields, then encoded as a
/// payload of its own. Made once for a batch's run of the message; a message without placeholders
/// has none, and its pushes keep the stored payload.
struct MessagePersonalizer: Sendable {
    /// The message's request, and each version's in an A/B test (made once, not for each push).
    let request: MessageRequest
    let versions: [MessageRequest]
    /// The profile fields its texts name.
    let names: Set<String>

    /// True when the message has texts in other languages: each device's payload is made in its
    /// language (``MessageLocalizations``).
    let localized: Bool

    /// The personalizer of `message`; nil when its texts have no placeholder and no other language.
    init?(_ message: borrowing StoredMessage) throws {
        // Most messages have neither: a look at the stored request, not a decoding of it.
        guard message.content.contains("{{") || message.content.contains(#""localizations""#) else { return nil }
        let request = try FanOut.request(message)
        let names = try Personalization.fields(request)
        let localized = !(request.localizations ?? [:]).isEmpty
        guard !names.isEmpty || localized else { return nil }
        self.request = request
        self.versions = (request.variants ?? []).indices.map { request.version($0) }
        self.names = names
        self.localized = localized
    }

    /// The payload of delivery `deliveryId` (of `variant`, in an A/B test) for a person with
    /// `fields`; refused when the texts made for them make it larger than APNs takes.
    func payload(
        _ message: borrowing StoredMessage, deliveryId: Int64, variant: Int?, fields: [String: JSONValue],
        language: String? = nil
    ) throws(APIError) -> Data {
        let version = variant.flatMap { versions.indices.contains($0) ? versions[$0] : nil } ?? request
        let shown = Personalization.personalized(localized ? version.localized(language) : version, fields: fields)
        let pushId = message.pushId(deliveryId: deliveryId, variant: variant)
        do {
            return try MessagePlan.template(shown, background: false, pushIdLength: pushId.utf8.count)
                .payload(pushId: pushId)
        } catch {
            throw .badRequest("personalized for its person, \(error.reason)")
        }
    }
}
