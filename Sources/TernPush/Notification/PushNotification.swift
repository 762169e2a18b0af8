import Foundation

/// A notification on the device, as a value: what the notification manager decides on.
///
/// The Apple glue makes one from `UNNotification`; the simulated device and tests build it directly.
public struct PushNotification: Sendable, Equatable {
    /// The notification request's identifier.
    public var identifier: String
    /// When it was delivered.
    public var date: Date
    /// What it shows and carries.
    public var content: NotificationContent

    /// A notification.
    ///
    /// - Parameters:
    ///   - identifier: The request's identifier.
    ///   - date: When it was delivered; default now.
    ///   - content: Its content.
    public init(identifier: String, date: Date = Date(), content: NotificationContent) {
        self.identifier = identifier
        self.date = date
        self.content = content
    }
}

/// The person's answer to a notification: a tap, a button, or a dismissal.
public struct PushNotificationResponse: Sendable, Equatable {
    /// The identifier iOS gives a tap on the notification itself.
    public static let defaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
    /// The identifier iOS gives a dismissal (only for categories that ask for it).
    public static let dismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"

    /// The notification answered.
    public var notification: PushNotification
    /// What the person did: ``defaultActionIdentifier`` for a tap, ``dismissActionIdentifier`` for a
    /// dismissal, else an action's identifier (`tern.button.<id>` for a Tern button).
    public var actionIdentifier: String

    /// A response.
    ///
    /// - Parameters:
    ///   - notification: The notification.
    ///   - actionIdentifier: What the person did; default a tap on the notification.
    public init(notification: PushNotification, actionIdentifier: String = Self.defaultActionIdentifier) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
    }
}

/// Something that can be read as a ``PushNotification`` (`UNNotification` on Apple platforms).
public protocol PushNotificationRepresentable {
    /// The notification as a value.
    var pushNotification: PushNotification { get }
}

/// Something that can be read as a ``PushNotificationResponse`` (`UNNotificationResponse` on Apple platforms).
public protocol PushNotificationResponseRepresentable {
    /// The response as a value.
    var pushResponse: PushNotificationResponse { get }
}

extension PushNotification: PushNotificationRepresentable {
    /// Itself.
    public var pushNotification: PushNotification { self }
}

extension PushNotificationResponse: PushNotificationResponseRepresentable {
    /// Itself.
    public var pushResponse: PushNotificationResponse { self }
}

#if !os(iOS)
    /// The notification type the manager's callbacks receive: `UNNotification` on iOS,
    /// ``PushNotification`` elsewhere (macOS and Linux: the manager's logic, tested on values).
    public typealias PlatformNotification = PushNotification
    /// The response type the manager's callbacks receive: `UNNotificationResponse` on iOS,
    /// ``PushNotificationResponse`` elsewhere.
    public typealias PlatformNotificationResponse = PushNotificationResponse
#endif

extension Notification.Name {
    /// Posted when a notification is about to be shown in the foreground;
    /// `userInfo["notification"]` is the ``PlatformNotification``.
    public static let ternPushWillPresent = Notification.Name("TernPushWillPresent")
    /// Posted when the person tapped a notification or one of its buttons;
    /// `userInfo["response"]` is the ``PlatformNotificationResponse``.
    public static let ternPushDidReceive = Notification.Name("TernPushDidReceive")
}
