import Foundation

/// The push providers Tern knows, by their wire names: the one list the SDK, the server and the
/// command line read (a subscription's `provider`, a message's `audience.provider`, the sender a
/// delivery goes through).
public enum PushProvider: String, Codable, Sendable, CaseIterable {
    case apns = "ios-apns"
    case firebase = "ios-firebase"
    case huawei = "ios-huawei"

    /// Every wire name, in declaration order, for error messages ("use one of …").
    public static var wireNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// The channels a subscription can be on, by their wire names: the one list the SDK, the server
/// and the command line read (a goal's `subscription.channel`, a resource's `channels`, a stored
/// subscription's channel).
///
/// `push` subscriptions are identified by provider and token, `email` by address, `sms` by phone
/// number, and the cc-data channels (``ccData``) by their `cc_data` object.
public enum SubscriptionChannel: String, Codable, Sendable, CaseIterable {
    case email
    case sms
    case push
    case telegramBot = "telegram_bot"
    case whatsapp
    case viber
    case notify

    /// The channels whose subscriptions carry `cc_data` (e.g. a chat id) instead of an address.
    public static let ccData: [SubscriptionChannel] = [.telegramBot, .whatsapp, .viber, .notify]

    /// Every wire name, sorted, for error messages ("use one of …").
    public static var wireNames: String { allCases.map(\.rawValue).sorted().joined(separator: ", ") }
}
