import TernNotificationService
import UserNotifications

/// The Notification Service Extension: Tern's pushes get their media, their buttons and a delivery
/// report; anything else is shown as it came.
final class NotificationService: UNNotificationServiceExtension {
    override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        TernNSE.shared.setAppGroup(groupName: "group.org.tern.example")
        guard TernNSE.shared.isTernPush(request) else {
            contentHandler(request.content)
            return
        }
        TernNSE.shared.handleNotificationRequest(request: request, contentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        TernNSE.shared.serviceExtensionTimeWillExpire()
    }
}
