import Foundation

/// The push providers Tern knows, by their wire names: the one list the SDK, the server and the
/// command line read (a subscription's `provider`, a message's `audience.provider`, the sender a
/// delivery goes through).
public enum PushProvider: String, Codable, Sendable, CaseIterable {
    /// Apple Push Notification service, with the device's APNs token.
    case apns = "ios-apns"
    /// Firebase Cloud Messaging (HTTP v1), with the FCM registration token.
    case firebase = "ios-firebase"
    /// Huawei Push Kit, with the HMS token.
    case huawei = "ios-huawei"

    /// Every wire name, in declaration order, for error messages ("use one of …").
    public static var wireNames: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The longest push token (`subscription_id`) the server takes, in code points as
    /// ``TextLength`` counts them.
    public static let maxTokenLength = 4096

    /// True when `provider` and `token` name a device as the server takes it: a provider Tern knows
    /// and a token of 1 to ``maxTokenLength`` code points. The SDK names its device on a batch of
    /// goals only then, so that a token the server would refuse never costs the goals.
    ///
    /// ```swift
    /// PushProvider.acceptsDevice(provider: "ios-apns", token: "3f2a…")   // true
    /// ```
    public static func acceptsDevice(provider: String, token: String) -> Bool {
        PushProvider(rawValue: provider) != nil && !token.isEmpty && TextLength.fits(token, max: maxTokenLength)
    }
}

/// The channels a subscription can be on, by their wire names: the one list the SDK, the server
/// and the command line read (a goal's `subscription.channel`, a resource's `channels`, a stored
/// subscription's channel).
///
/// `push` subscriptions are identified by provider and token, `email` by address, `sms` by phone
/// number, and the cc-data channels (``ccData``) by their `cc_data` object.
public enum SubscriptionChannel: String, Codable, Sendable, CaseIterable {
    /// E-mail, by address.
    case email
    /// Text messages, by phone number.
    case sms
    /// Push notifications, by provider and token.
    case push
    /// A Telegram bot's chat (cc-data).
    case telegramBot = "telegram_bot"
    /// WhatsApp (cc-data).
    case whatsapp
    /// Viber (cc-data).
    case viber
    /// Another messenger's notification channel (cc-data).
    case notify
    /// In-app messages: one subscription per profile and resource, made by `inapp/subscribe` (no
    /// token); not a channel a goal or a resource names.
    case inapp
    /// A Live Activity's ActivityKit push token (`live-activity/token` with an activity id): the
    /// server's updates and end of that activity go to it. Not a channel a goal or a resource names.
    case liveActivity = "live_activity"
    /// A device's push-to-start token for an activity type (`live-activity/token` without an activity
    /// id): a start of an activity of that type goes to it. Not a channel a goal or a resource names.
    case liveActivityStart = "live_activity_start"

    /// The channels of ActivityKit's tokens, which the server writes from `live-activity/token`.
    public static let liveActivities: [SubscriptionChannel] = [.liveActivity, .liveActivityStart]

    /// The channels a goal's subscription or a resource's `channels` may name (all but ``inapp`` and
    /// ``liveActivities``).
    public static let addressable: [SubscriptionChannel] = allCases.filter {
        $0 != .inapp && !liveActivities.contains($0)
    }

    /// The channels whose subscriptions carry `cc_data` (e.g. a chat id) instead of an address.
    public static let ccData: [SubscriptionChannel] = [.telegramBot, .whatsapp, .viber, .notify]

    /// The wire names of ``addressable``, sorted, for error messages ("use one of …").
    public static var wireNames: String { addressable.map(\.rawValue).sorted().joined(separator: ", ") }
}
