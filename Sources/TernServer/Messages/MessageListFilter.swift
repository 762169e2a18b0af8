import Foundation

/// What `GET /api/v1/admin/messages` narrows its list to; every part left out (nil) lets every
/// message through, and the parts combine (a message must pass each).
///
/// ```swift
/// let filter = MessageListFilter(state: .standing, kind: .trigger, text: "cart")
/// ```
public struct MessageListFilter: Sendable, Equatable {
    /// Where a message stands. Each message has one state: the first of cancelled, standing,
    /// scheduled, sending and done that fits it.
    public enum State: String, CaseIterable, Sendable {
        /// Its time (`send_at`) is ahead and its audience is not yet read.
        case scheduled
        /// Its audience is being read, or deliveries are queued or being sent.
        case sending
        /// Every delivery was written and none is queued or being sent.
        case done
        /// An operator cancelled it.
        case cancelled
        /// Not cancelled and still to send on its own: a triggered message (or one of its rounds),
        /// or a recurring message with a copy still to come.
        case standing
    }

    /// What sort of message it is. Each message has one kind: the first of live_activity, trigger,
    /// repeat, ab_test and one_off that fits it.
    public enum Kind: String, CaseIterable, Sendable {
        /// Sent once: sent now or at its `send_at`, or a test send.
        case oneOff = "one_off"
        /// A triggered message, or one of its rounds (`trigger_round_of`).
        case trigger
        /// A recurring message, or one of its copies (`recurring_of`).
        case recurring = "repeat"
        /// A Live Activity's update, end or start (`push_type` `liveactivity`).
        case liveActivity = "live_activity"
        /// An A/B test (`variants`), or the message that sent a test's winner to the rest.
        case abTest = "ab_test"
    }

    /// The longest text `q` takes.
    public static let textLimit = 100

    /// Only messages in this state.
    public var state: State?
    /// Only messages of this kind.
    public var kind: Kind?
    /// Found, in any letter case, in the title, the body (of any language or version) or the id.
    public var text: String?
    /// Created at or after this time (ms since 1970).
    public var createdAfter: Int64?
    /// Created before this time (ms since 1970).
    public var createdBefore: Int64?
    /// This project's messages only; nil: every project's.
    public var projectId: Int64?

    /// A filter of the parts given.
    public init(
        state: State? = nil, kind: Kind? = nil, text: String? = nil, createdAfter: Int64? = nil,
        createdBefore: Int64? = nil, projectId: Int64? = nil
    ) {
        self.state = state
        self.kind = kind
        self.text = text
        self.createdAfter = createdAfter
        self.createdBefore = createdBefore
        self.projectId = projectId
    }

    /// The `LIKE` pattern (its escape character a backslash) the store narrows the text by, on the id
    /// and the stored request (JSON) lowercased: never narrower than the text, so each message it lets
    /// through is checked by ``holdsText(_:_:)``. An ASCII letter is lowercased (SQLite's `LOWER` folds
    /// ASCII only); another character is any one (`_`: its case may differ); a quote or a backslash is
    /// two, as the JSON writes them; a control character any number (`%`).
    var storePattern: String? {
        guard let text else { return nil }
        var pattern = "%"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%", "_": pattern += "\\" + String(scalar)
            case "\"": pattern += "_\""
            case "\\": pattern += "__"
            case _ where scalar.value < 0x20: pattern += "%"
            case _ where scalar.isASCII: pattern += String(scalar).lowercased()
            default: pattern += "_"
            }
        }
        return pattern + "%"
    }

    /// Whether `message` (with its request) holds the text: always true without one.
    func holdsText(_ message: StoredMessage, _ request: MessageRequest) -> Bool {
        guard let text = text?.lowercased() else { return true }
        var places = [message.publicId, request.title, request.body]
        for variant in request.variants ?? [] { places += [variant.title, variant.body] }
        for localization in (request.localizations ?? [:]).values { places += [localization.title, localization.body] }
        return places.contains { $0?.lowercased().contains(text) == true }
    }
}

extension MessageListFilter {
    /// The filter `GET …/messages`'s query names: `state`, `kind`, `q`, `created_after`,
    /// `created_before` (a time in ms since 1970, or ISO 8601: `2026-11-27` or
    /// `2026-11-27T09:00:00Z`). A part outside its values is refused with 400.
    /// The query's `name` as one of `T`'s values (nil when absent), or a 400 that lists them.
    private static func choice<T: CaseIterable & RawRepresentable>(
        _: T.Type, _ query: [String: String], _ name: String
    ) throws(APIError) -> T? where T.RawValue == String {
        guard let text = query[name] else { return nil }
        guard let value = T(rawValue: text) else {
            throw .badRequest(
                "\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text.prefix(32))\""
            )
        }
        return value
    }

    static func parse(_ query: [String: String], projectId: Int64?) throws(APIError) -> MessageListFilter {
        var filter = MessageListFilter(projectId: projectId)
        filter.state = try choice(State.self, query, "state")
        filter.kind = try choice(Kind.self, query, "kind")
        if let text = query["q"] {
            // Counted as the API document counts a string's length: in Unicode code points.
            let length = text.unicodeScalars.count
            guard (1...textLimit).contains(length) else {
                throw .badRequest(
                    "q must be 1 to \(textLimit) characters of the title, body or id to find (it has \(length)); "
                        + "leave it out to list every message")
            }
            filter.text = text
        }
        filter.createdAfter = try query["created_after"].map { text throws(APIError) in
            try time(text, field: "created_after")
        }
        filter.createdBefore = try query["created_before"].map { text throws(APIError) in
            try time(text, field: "created_before")
        }
        return filter
    }

    /// `text` as ms since 1970: digits as they are, else an ISO 8601 time or a day (UTC).
    static func time(_ text: String, field: String) throws(APIError) -> Int64 {
        if !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let ms = Int64(text) { return ms }
        let styles = [
            Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true),
            Date.ISO8601FormatStyle().year().month().day(),
        ]
        for style in styles {
            if let date = try? style.parse(text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        }
        throw .badRequest(
            "\(field) must be a time in ms since 1970 or ISO 8601 (2026-11-27 or 2026-11-27T09:00:00Z), not "
                + "\"\(text.prefix(40))\"")
    }
}
