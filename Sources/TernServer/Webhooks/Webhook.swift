import Foundation
import TernCrypto
import TernProtocol

/// What a webhook can be told of: a delivery's outcome at its provider, the devices' reports, a
/// push subscription's changes, goals, what people do with in-app messages, and their inbox's
/// reads and deletes.
public enum WebhookEventType: String, Codable, Sendable, CaseIterable {
    /// The provider accepted a push.
    case sent = "push.sent"
    /// A push was given up (refused for good, out of retries, expired, cancelled, or its token is
    /// no longer valid), with the reason.
    case failed = "push.failed"
    /// A device's extension reported a push arrived (`event/push` delivery).
    case delivered = "push.delivered"
    /// A person opened a push (`event/push` open).
    case opened = "push.opened"
    /// A push subscription was made, or its status or token changed, by the SDK's calls
    /// (`push/subscribe`, `push/suspend`, `push/unsubscribe`, `push/unsuspend`, `push/update`).
    case subscriptionChanged = "subscription.changed"
    /// An app posted a goal (`event/post`), with its pixel, name, payload and the message it credits.
    case goalReached = "goal.reached"
    /// A device drew an in-app message (`inapp/event` `shown`).
    case inAppShown = "inapp.shown"
    /// A person tapped an in-app message's button (`inapp/event` `clicked`), with the button's id.
    case inAppClicked = "inapp.clicked"
    /// An in-app message was closed (`inapp/event` `closed`).
    case inAppClosed = "inapp.closed"
    /// An in-app message could not be shown (`inapp/event` `error`), with the reason.
    case inAppError = "inapp.error"
    /// A person marked an inbox message read (`inbox/read`), the first time.
    case inboxRead = "inbox.read"
    /// A person deleted an inbox message (`inbox/delete`), the first time.
    case inboxDeleted = "inbox.deleted"

    /// The types a device's report becomes.
    init(report: PushEventRequest.Kind) {
        self = report == .open ? .opened : .delivered
    }

    /// The type an in-app event becomes.
    init(inApp kind: InAppEventRequest.Kind) {
        self =
            switch kind {
            case .shown: .inAppShown
            case .clicked: .inAppClicked
            case .closed: .inAppClosed
            case .error: .inAppError
            }
    }
}

/// `POST /api/v1/admin/projects/{project_id}/webhooks`: where to post the project's events, and
/// which.
public struct WebhookRequest: Codable, Sendable, Equatable {
    /// An https URL (plain http only on loopback); at most 2048 characters.
    public var url: String
    /// One or more of ``WebhookEventType``'s names.
    public var events: [String]

    /// A webhook of `events` to `url`.
    public init(url: String, events: [String]) {
        self.url = url
        self.events = events
    }

    /// The request checked: its URL, and its events as known types (each once). Every refusal says
    /// what to change.
    func checked() throws(APIError) -> [WebhookEventType] {
        _ = try MessageURLs.httpsOrLoopback(
            url, "url", why: "events carry tokens; plain http only on loopback")
        guard !events.isEmpty else {
            throw .badRequest("events is empty: name one or more of \(Self.known)")
        }
        var types: [WebhookEventType] = []
        for name in events {
            guard let type = WebhookEventType(rawValue: name) else {
                throw .badRequest("events has \(name.prefix(64)), which is not an event: \(Self.known)")
            }
            if !types.contains(type) { types.append(type) }
        }
        return types
    }

    static var known: String { WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ") }
}

/// A project's webhook as the API shows it: where it posts, what, and how its posts are going.
public struct WebhookView: Codable, Sendable, Equatable {
    /// Its id, for `DELETE …/webhooks/{webhook_id}`.
    public var id: Int64
    /// The project whose events it gets.
    public var projectId: Int64
    /// Where they are posted.
    public var url: String
    /// The event types it gets (``WebhookEventType``'s names).
    public var events: [String]
    /// The signing secret: only in the answer that made the webhook.
    public var secret: String?
    /// The secret's last four characters, to tell secrets apart.
    public var secretHint: String
    /// When it was made (ms since 1970).
    public var createdAt: Int64
    /// Events waiting to be posted (new, or retried after a failed post).
    public var pending: Int64
    /// Events given up after failing for ``WebhookLimits/maxAge``.
    public var dropped: Int64
    /// The last post's HTTP status (0: no answer); nil before the first.
    public var lastStatus: Int?
    /// Why the last post failed; nil after a success.
    public var lastError: String?
    /// When the last post was made (ms since 1970).
    public var lastAttemptAt: Int64?
    /// When a post last succeeded (ms since 1970).
    public var lastSuccessAt: Int64?

    enum CodingKeys: String, CodingKey {
        case id, url, events, secret, pending, dropped
        case projectId = "project_id"
        case secretHint = "secret_hint"
        case createdAt = "created_at"
        case lastStatus = "last_status"
        case lastError = "last_error"
        case lastAttemptAt = "last_attempt_at"
        case lastSuccessAt = "last_success_at"
    }
}

/// The limits of webhooks, in one place.
public enum WebhookLimits {
    /// Webhooks a project may have.
    public static let perProject = 10
    /// Events in one post.
    public static let batch = 500
    /// An event that could not be posted for this long (ms) is given up and counted as dropped.
    public static let maxAge: Int64 = 24 * 3600 * 1000
    /// How long a post may take (seconds) before it counts as failed.
    public static let timeout: TimeInterval = 10
    /// How long events claimed for a post stay out of other senders' claims (ms): past the timeout.
    public static let lease: Int64 = 60_000

    /// When a batch that failed `attempts` times is tried again: 5 s, doubling, at most an hour.
    static func retryDelay(attempts: Int) -> Int64 {
        min(5_000 << min(max(attempts - 1, 0), 20), 3_600_000)
    }
}

/// A webhook's signature of one post: `t=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<body>">`
/// with the webhook's secret, in the `Tern-Signature` header, so the receiver can tell the post is
/// Tern's and recent.
enum WebhookSignature {
    static let header = "Tern-Signature"

    static func sign(body: Data, secret: String, seconds: Int64) -> String {
        let signed = Data("\(seconds).".utf8) + body
        return "t=\(seconds),v1=" + Digest.hex(Digest.hmacSHA256(key: Data(secret.utf8), data: signed))
    }

    /// A new secret: `whsec_` and 32 random bytes in hex.
    static func newSecret() -> String { "whsec_" + Digest.randomHex(bytes: 32) }
}

/// The event `POST …/webhooks/{webhook_id}/test` sends: its type, which no webhook subscribes to.
enum WebhookTestEvent {
    static let type = "webhook.test"

    static func json(now: Int64) -> String {
        #"{"type":"\#(type)","time":\#(now)}"#
    }
}

/// One event as a webhook receives it. Its `id` is given when it is posted (the row's); a receiver
/// drops a repeat by it, as a post that timed out is made again.
struct WebhookEvent: Decodable, Sendable, Equatable {
    var type: String
    /// When it happened (ms since 1970): the outcome's record, or the device's report.
    var time: Int64
    /// The message's public id, the push id the device saw, and the delivery's id.
    var messageId: String
    var pushId: String
    var deliveryId: Int64
    /// An A/B test's version, `a` for the first.
    var variant: String?
    var provider: String?
    var token: String?
    var reason: String?

    enum CodingKeys: String, CodingKey {
        case type, time, variant, provider, token, reason
        case messageId = "message_id"
        case pushId = "push_id"
        case deliveryId = "delivery_id"
    }

    /// Its JSON, as stored until it is posted. Written by hand: an outcome's event is made for every
    /// delivery of a project with a webhook, and Foundation's encoder was 12 % of tern's CPU in such a
    /// send (`WEBHOOK=1 bench/send/run.sh`).
    func json() -> String {
        var out = WebhookJSON(type: type, time: time)
        out.string(CodingKeys.messageId.rawValue, messageId)
        out.string(CodingKeys.pushId.rawValue, pushId)
        out.integer(CodingKeys.deliveryId.rawValue, deliveryId)
        out.string(CodingKeys.variant.rawValue, variant)
        out.string(CodingKeys.provider.rawValue, provider)
        out.string(CodingKeys.token.rawValue, token)
        out.string(CodingKeys.reason.rawValue, reason)
        return out.text
    }
}

/// An event's JSON object written by hand, its keys in the order given and absent values left out:
/// `{"type":…,"time":…,…}`. The dispatcher puts the row's `id` in front when it posts it.
struct WebhookJSON {
    private var out: [UInt8] = []

    /// An event of `type` at `time` (ms since 1970).
    init(type: String, time: Int64) {
        out.reserveCapacity(320)
        out.append(contentsOf: #"{"type":"#.utf8)
        JSONText.appendString(type, to: &out)
        integer("time", time)
    }

    private mutating func key(_ key: String) {
        out.append(contentsOf: #",""#.utf8)
        out.append(contentsOf: key.utf8)
        out.append(contentsOf: #"":"#.utf8)
    }

    mutating func string(_ key: String, _ value: String?) {
        guard let value else { return }
        self.key(key)
        JSONText.appendString(value, to: &out)
    }

    mutating func integer(_ key: String, _ value: Int64?) {
        guard let value else { return }
        self.key(key)
        out.append(contentsOf: String(value).utf8)
    }

    /// A value that is JSON already (an object the app sent, encoded).
    mutating func json(_ key: String, _ value: Data?) {
        guard let value else { return }
        self.key(key)
        out.append(contentsOf: value)
    }

    /// The object, closed.
    var text: String { String(decoding: out + [UInt8(ascii: "}")], as: UTF8.self) }
}
