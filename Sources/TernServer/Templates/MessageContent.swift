import Foundation
import TernProtocol

/// What a message says, apart from whom it goes to and when: the fields a saved template keeps
/// (``TemplateView``) and fills into a message that names it (`template_id`). They are the
/// request's own fields (``MessageRequest``), by their API names, decoded and checked as a
/// message's are; the audience, the timing and the delivery options (`push_type`, `priority`,
/// `time_to_live`, `collapse_id`, `inbox`, tracking, `topic`, `environment`) belong to each send.
///
/// ```swift
/// let content = try MessageContent.check(["title": "Welcome", "body": "Glad you're here"])
/// let filled = try MessageContent.fill(request, from: content)   // the request's own title wins
/// ```
enum MessageContent {
    /// The request's content fields.
    static let keys: [MessageRequest.CodingKeys] = [
        .title, .subtitle, .body, .mediaURL, .clickURL, .buttons, .category, .badge, .sound, .threadId, .data,
        .iosCategory, .localizations, .titleLocKey, .titleLocArgs, .subtitleLocKey, .subtitleLocArgs, .bodyLocKey,
        .bodyLocArgs, .interruptionLevel, .relevanceScore, .targetContentId, .filterCriteria,
    ]

    /// The content fields' API names.
    static let names: Set<String> = Set(keys.map(\.rawValue))

    /// The content checked as a message of its own would be (the same refusals, naming the field),
    /// without its nulls: the object a template keeps.
    ///
    /// - Parameter content: Content fields by their API names (``names``).
    /// - Throws: ``APIError`` 400 for a field a message would refuse, or content a message could not
    ///   send (an alert needs a title or a body).
    static func check(_ content: [String: JSONValue]) throws -> [String: JSONValue] {
        let kept = content.filter { $0.value != .null }
        var body = kept
        // Any audience: the content is checked, not whom it goes to (that is each message's).
        body[MessageRequest.CodingKeys.audience.rawValue] = .object(["type": "resource", "resource_id": 1])
        let request = try JSONCoders.decoder.decode(MessageRequest.self, from: JSONCoders.encoder.encode(body))
        _ = try MessagePlan(request, publicId: "m_" + String(repeating: "0", count: 16))
        return kept
    }

    /// `request` with `content`'s fields where it gives none; what it gives stays.
    static func fill(_ request: MessageRequest, from content: [String: JSONValue]) throws -> MessageRequest {
        let given = try JSONCoders.decoder.decode(JSONValue.self, from: JSONCoders.encoder.encode(request))
        var merged = given.objectValue ?? [:]
        for (name, value) in content where names.contains(name) && merged[name] == nil { merged[name] = value }
        return try JSONCoders.decoder.decode(MessageRequest.self, from: JSONCoders.encoder.encode(merged))
    }

}
