import Foundation
import TernProtocol

/// A message's texts in other languages (`localizations`): each device gets the title, subtitle,
/// body, click URL and media of its own language (its subscription's `language`, the SDK's
/// `_os_language`), the message's own where a language has none of them, or where the device's
/// language has no entry.
///
/// ```json
/// {"title": "Sale", "body": "30% off today", "click_url": "https://example.com/sale",
///  "localizations": {"es": {"title": "Rebajas", "body": "30 % hoy", "click_url": "https://example.com/es/rebajas",
///                           "media_url": "https://cdn.example.com/rebajas.jpg"},
///                    "pt-BR": {"body": "30% hoje"}},
///  "audience": {"type": "resource", "resource_id": 1}}
/// ```
public struct MessageLocalization: Codable, Sendable, Equatable {
    /// The title in this language.
    public var title: String?
    /// The subtitle in this language.
    public var subtitle: String?
    /// The body in this language.
    public var body: String?
    /// The link opened when the notification is tapped, in this language (a store page in it).
    public var clickURL: String?
    /// The image, GIF, audio or video the extension attaches, in this language (a picture with text
    /// in it); an https URL as the message's own.
    public var mediaURL: String?

    /// - Parameters:
    ///   - title: The title in this language; nil: the message's.
    ///   - subtitle: The subtitle in this language; nil: the message's.
    ///   - body: The body in this language; nil: the message's.
    ///   - clickURL: The click URL in this language; nil: the message's.
    ///   - mediaURL: The media in this language; nil: the message's.
    public init(
        title: String? = nil, subtitle: String? = nil, body: String? = nil, clickURL: String? = nil,
        mediaURL: String? = nil
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.clickURL = clickURL
        self.mediaURL = mediaURL
    }

    enum CodingKeys: String, CodingKey {
        case title, subtitle, body
        case clickURL = "click_url"
        case mediaURL = "media_url"
    }
}

/// The rules of ``MessageLocalization``, and which one a device gets.
enum MessageLocalizations {
    /// At most this many languages a message.
    static let maxLanguages = 50

    /// Checks the localizations and what goes with them; each language's payload is checked as the
    /// message's is (its texts, click URL and media by the message's own rules, its size with the
    /// longest push id), so a device is never refused for its language.
    static func check(_ request: MessageRequest, background: Bool, pushIdLength: Int) throws(APIError) {
        guard let localizations = request.localizations else { return }
        guard !localizations.isEmpty else {
            throw .badRequest("localizations is empty: leave it out, or give a language's texts")
        }
        guard localizations.count <= maxLanguages else {
            throw .badRequest("localizations has \(localizations.count) languages, more than \(maxLanguages)")
        }
        if background { throw .badRequest("localizations do not go with a background push: it shows no text") }
        if request.variants != nil {
            throw .badRequest("localizations do not go with variants: an A/B test compares one language's texts")
        }
        for (language, texts) in localizations.sorted(by: { $0.key < $1.key }) {
            guard isLanguage(language) else {
                throw .badRequest(
                    "localizations has \"\(language.prefix(32))\", which is not a language: a code such as es, pt-BR or "
                        + "zh-Hant")
            }
            guard
                texts.title != nil || texts.subtitle != nil || texts.body != nil || texts.clickURL != nil
                    || texts.mediaURL != nil
            else {
                throw .badRequest("localizations.\(language) has no title, subtitle, body, click_url or media_url")
            }
            do throws(APIError) {
                _ = try MessagePlan.template(
                    Personalization.withFallbacks(request.localized(language)), background: false,
                    pushIdLength: pushIdLength)
            } catch {
                throw .badRequest("localizations.\(language): \(error.reason)")
            }
        }
    }

    /// A language code: 2 or 3 letters, then subtags of letters and digits (`es`, `pt-BR`,
    /// `zh-Hant-TW`).
    static func isLanguage(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// The entry of `localizations` for a device of `language`: its whole code (`pt-BR`), else its
    /// language alone (`pt`), compared without case; nil when neither has one (or the device said no
    /// language).
    static func entry(for language: String?, in localizations: [String: MessageLocalization]) -> String? {
        guard let language, !language.isEmpty else { return nil }
        let wanted = language.lowercased().replacingOccurrences(of: "_", with: "-")
        let primary = wanted.split(separator: "-").first.map(String.init) ?? wanted
        let keys = localizations.keys.sorted()
        return keys.first { $0.lowercased() == wanted } ?? keys.first { $0.lowercased() == primary }
    }
}

extension MessageRequest {
    /// The request as a device of `language` gets it: the texts, click URL and media of its
    /// localization in place of the message's own; the request itself when there is none for it.
    func localized(_ language: String?) -> MessageRequest {
        guard let localizations, let key = MessageLocalizations.entry(for: language, in: localizations),
            let texts = localizations[key]
        else { return self }
        var request = self
        if let title = texts.title { request.title = title }
        if let subtitle = texts.subtitle { request.subtitle = subtitle }
        if let body = texts.body { request.body = body }
        if let clickURL = texts.clickURL { request.clickURL = clickURL }
        if let mediaURL = texts.mediaURL { request.mediaURL = mediaURL }
        return request
    }
}
