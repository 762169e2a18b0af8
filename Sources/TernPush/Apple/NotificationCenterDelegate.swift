#if canImport(UserNotifications)
    @preconcurrency import UserNotifications

    /// The notification center's delegate: forwards each callback to the ``NotificationManager`` on the
    /// main actor, which decides and calls the completion handler exactly once.
    final class NotificationCenterDelegate: NSObject, UNUserNotificationCenterDelegate {
        let manager: NotificationManager

        init(manager: NotificationManager) {
            self.manager = manager
        }

        func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
        ) {
            // UNNotification is immutable and the system's completion handler may be called from any
            // thread, once: both are safe to carry to the main actor.
            nonisolated(unsafe) let notification = notification
            nonisolated(unsafe) let completionHandler = completionHandler
            let manager = manager
            Task { @MainActor in
                manager.willPresent(notification) { options in completionHandler(options.userNotificationOptions) }
            }
        }

        func userNotificationCenter(
            _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping () -> Void
        ) {
            nonisolated(unsafe) let response = response
            nonisolated(unsafe) let completionHandler = completionHandler
            let manager = manager
            Task { @MainActor in
                manager.didReceive(response) { completionHandler() }
            }
        }
    }
#endif
