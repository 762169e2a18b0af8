#if os(iOS)
    // UserNotifications has no Sendable annotations yet; its values are only read here.
    @preconcurrency import UserNotifications
    import Foundation
    import TernProtocol

    /// The notification type the manager's callbacks receive on Apple platforms.
    public typealias PlatformNotification = UNNotification
    /// The response type the manager's callbacks receive on Apple platforms.
    public typealias PlatformNotificationResponse = UNNotificationResponse

    extension UNNotification: PushNotificationRepresentable {
        public var pushNotification: PushNotification {
            PushNotification(identifier: request.identifier, date: date, content: NotificationContent(request.content))
        }
    }

    extension UNNotificationResponse: PushNotificationResponseRepresentable {
        public var pushResponse: PushNotificationResponse {
            PushNotificationResponse(notification: notification.pushNotification, actionIdentifier: actionIdentifier)
        }
    }

    extension NotificationContent {
        /// The value of a notification's content; attachments are not read (the extension only adds one).
        public init(_ content: UNNotificationContent) {
            self.init(
                title: content.title, subtitle: content.subtitle, body: content.body,
                userInfo: UserInfoConversion.json(from: content.userInfo),
                categoryIdentifier: content.categoryIdentifier, threadIdentifier: content.threadIdentifier,
                badge: content.badge?.intValue)
        }
    }

    extension NotificationServiceResult {
        /// What to hand the extension's content handler: `original` itself when the notification is shown
        /// as it came, otherwise a copy with the attachment and the message's category.
        public func userNotificationContent(from original: UNNotificationContent) -> UNNotificationContent {
            guard !isAsItCame, let copy = original.mutableCopy() as? UNMutableNotificationContent else {
                return original
            }
            if let categoryIdentifier { copy.categoryIdentifier = categoryIdentifier }
            if let attachment {
                // The system moves the file into its own store; a file it refuses leaves the text and buttons.
                let options = [UNNotificationAttachmentOptionsTypeHintKey: attachment.kind.typeIdentifier]
                if let made = try? UNNotificationAttachment(
                    identifier: attachment.identifier, url: attachment.fileURL, options: options)
                {
                    copy.attachments = original.attachments + [made]
                }
            }
            return copy
        }
    }

    extension PresentationOptions {
        /// The system's options; `.alert` becomes a banner and a list entry.
        public var userNotificationOptions: UNNotificationPresentationOptions {
            var options: UNNotificationPresentationOptions = []
            if contains(.badge) { options.insert(.badge) }
            if contains(.sound) { options.insert(.sound) }
            if contains(.banner) || contains(.alert) { options.insert(.banner) }
            if contains(.list) || contains(.alert) { options.insert(.list) }
            return options
        }
    }

    extension NotificationCategory {
        /// The value of a registered category (its plain actions; text-input details are not kept).
        public init(_ category: UNNotificationCategory) {
            self.init(
                identifier: category.identifier,
                actions: category.actions.map { action in
                    var options: NotificationAction.Options = []
                    if action.options.contains(.foreground) { options.insert(.foreground) }
                    if action.options.contains(.destructive) { options.insert(.destructive) }
                    if action.options.contains(.authenticationRequired) { options.insert(.authenticationRequired) }
                    return NotificationAction(identifier: action.identifier, title: action.title, options: options)
                })
        }

        /// The category to register with the notification center.
        public var userNotificationCategory: UNNotificationCategory {
            let actions = actions.map { action in
                var options: UNNotificationActionOptions = []
                if action.options.contains(.foreground) { options.insert(.foreground) }
                if action.options.contains(.destructive) { options.insert(.destructive) }
                if action.options.contains(.authenticationRequired) { options.insert(.authenticationRequired) }
                return UNNotificationAction(identifier: action.identifier, title: action.title, options: options)
            }
            return UNNotificationCategory(identifier: identifier, actions: actions, intentIdentifiers: [], options: [])
        }
    }
#endif
