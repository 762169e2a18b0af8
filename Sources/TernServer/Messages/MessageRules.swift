import Foundation
import TernProtocol

/// The URLs a message carries.
enum MessageURLs {
    static let maxLength = 2048

    /// Media the extension downloads: https (plain http only on loopback, for local testing).
    /// `field` is the request's name for it, which the reason starts with.
    static func media(_ text: String, _ field: String = "media_url") throws(APIError) -> String {
        _ = try httpsOrLoopback(text, field, why: "the extension downloads nothing else")
        return text
    }

    /// An https URL with a host, or plain http to loopback (local testing); `why` ends the refusal.
    static func httpsOrLoopback(_ text: String, _ field: String, why: String) throws(APIError) -> URL {
        let url = try absolute(text, field)
        let scheme = url.scheme?.lowercased() ?? ""
        let host = url.host?.lowercased() ?? ""
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw .badRequest("\(field) must be https (\(why)), not \(scheme)://")
        }
        guard !host.isEmpty else { throw .badRequest("\(field) has no host: send an absolute https URL") }
        return url
    }

    /// A link the app opens: any absolute URL (https or the app's own scheme).
    static func link(_ text: String, _ field: String) throws(APIError) -> String {
        _ = try absolute(text, field)
        return text
    }

    static func absolute(_ text: String, _ field: String) throws(APIError) -> URL {
        guard !text.isEmpty else { throw .badRequest("\(field) is empty: leave it out or send a URL") }
        guard TextLength.fits(text, max: maxLength) else {
            throw .badRequest("\(field) is longer than \(maxLength) characters")
        }
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty,
            text.rangeOfCharacter(from: .whitespacesAndNewlines) == nil
        else {
            throw .badRequest("\(field) \(text.prefix(64)) is not an absolute URL (scheme://...)")
        }
        return url
    }
}

/// Notification buttons: at most 3, unique ids, an action the SDK knows, a URL exactly for `url`.
enum MessageButtons {
    static func check(_ buttons: [MessageRequest.Button]) throws(APIError) -> [PushButton] {
        guard buttons.count <= PushButton.maxCount else {
            throw .badRequest("buttons has \(buttons.count) items: at most \(PushButton.maxCount)")
        }
        var seen: Set<String> = []
        var checked: [PushButton] = []
        for (index, button) in buttons.enumerated() {
            let field = "buttons[\(index)]"
            if let problem = PushButton.identifierProblem(button.id) {
                throw .badRequest("\(field): \(problem) (devices drop a button whose id breaks this)")
            }
            guard seen.insert(button.id).inserted else {
                throw .badRequest("\(field).id \(button.id) is used twice: button ids must be unique in a message")
            }
            guard !button.title.isEmpty, TextLength.fits(button.title, max: 256) else {
                throw .badRequest("\(field).title must be 1 to 256 characters")
            }
            guard let action = PushButton.Action(rawValue: button.action) else {
                let known = PushButton.Action.allCases.map(\.rawValue).joined(separator: ", ")
                throw .badRequest("\(field).action must be one of \(known), not \(button.action.prefix(32))")
            }
            var url: String?
            if action == .url {
                guard let text = button.url else {
                    throw .badRequest("\(field) has action url but no url: add the URL to open")
                }
                url = try MessageURLs.link(text, "\(field).url")
            } else if button.url != nil {
                throw .badRequest("\(field).url goes only with action url, not \(action.rawValue)")
            }
            checked.append(PushButton(id: button.id, title: button.title, action: action, url: url))
        }
        return checked
    }
}

/// The audience's shape, checked without the store.
enum MessageAudienceRules {
    static func check(_ audience: MessageAudience) throws(APIError) {
        var allowed: Set<String> = ["resource_id", "status", "categories", "fields", "tags"]
        switch audience.type {
        case .profile:
            guard let id = audience.profileId, !id.isEmpty else {
                throw .badRequest("audience type profile needs profile_id (the profile's id)")
            }
            allowed.insert("profile_id")
        case .profiles:
            let ids = audience.profileIds ?? []
            guard !ids.isEmpty, ids.count <= MessageAudience.maxProfiles else {
                throw .badRequest("audience type profiles needs 1 to \(MessageAudience.maxProfiles) profile_ids")
            }
            if ids.contains(where: \.isEmpty) { throw .badRequest("audience.profile_ids has an empty id") }
            allowed.insert("profile_ids")
        case .token:
            try Validation.provider(audience.provider ?? "", field: "audience.provider")
            try Validation.token(audience.token ?? "", field: "audience.token")
            allowed.formUnion(["provider", "token"])
        case .resource:
            guard audience.resourceId != nil else {
                throw .badRequest("audience type resource needs resource_id")
            }
        case .topic:
            if let problem = PreferenceRules.problem(topic: audience.topic ?? "") {
                throw .badRequest("audience.\(problem)")
            }
            allowed.insert("topic")
        case .segment:
            guard let id = audience.segmentId, id > 0 else {
                throw .badRequest(
                    "audience type segment needs segment_id (a segment of the project: tern segments list)")
            }
            allowed.insert("segment_id")
            allowed.remove("resource_id")
        case .liveActivity:
            try LiveActivityNames.id(audience.activityId ?? "", field: "audience.activity_id")
            allowed = ["activity_id", "status"]
        }
        if let filter = audience.filter {
            guard audience.type == .resource else {
                throw .badRequest(
                    "audience.filter goes with type resource (a segment brings its own filter), not \(audience.type.rawValue)"
                )
            }
            _ = try AudienceExpression.parse(filter, path: "audience.filter")
        }
        let given: [(String, Bool)] = [
            ("profile_id", audience.profileId != nil), ("profile_ids", audience.profileIds != nil),
            ("provider", audience.provider != nil), ("token", audience.token != nil),
            ("topic", audience.topic != nil), ("segment_id", audience.segmentId != nil),
            ("resource_id", audience.resourceId != nil), ("activity_id", audience.activityId != nil),
            ("categories", audience.categories != nil), ("fields", audience.fields != nil),
            ("tags", audience.tags != nil),
        ]
        if let stray = given.first(where: { $0.1 && !allowed.contains($0.0) }) {
            throw .badRequest("audience.\(stray.0) does not go with type \(audience.type.rawValue)")
        }
        if let status = audience.status, status != SubscriptionStatus.subscribed.rawValue {
            throw .badRequest(
                "audience.status can only be subscribed: suspended and unsubscribed subscriptions never get pushes")
        }
        for name in audience.categories ?? [] where !FieldName.isValid(name) {
            throw .badRequest("audience.categories has \(name.prefix(64)), which is not a category name")
        }
        for key in (audience.fields ?? [:]).keys where key.isEmpty {
            throw .badRequest("audience.fields has an empty field name")
        }
        for key in (audience.tags ?? [:]).keys where key.isEmpty || !TextLength.fits(key, max: 128) {
            throw .badRequest("audience.tags keys must be 1 to 128 characters")
        }
    }
}
