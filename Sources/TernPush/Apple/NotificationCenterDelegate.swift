#if os(iOS)
    @preconcurrency import UserNotifications

    /// The notification center's delegate: Tern's pushes go to the ``NotificationManager`` on the main
    /// actor, which decides and calls the completion handler exactly once; every other notification
    /// goes to the delegate the app had set before (chained, not replaced), or gets the system's
    /// defaults when it had none.
    final class NotificationCenterDelegate: NSObject, UNUserNotificationCenterDelegate {
        let manager: NotificationManager
        /// The app's own delegate (the center holds delegates weakly; so does this).
        weak var previous: (any UNUserNotificationCenterDelegate)?

        init(manager: NotificationManager, previous: (any UNUserNotificationCenterDelegate)?) {
            self.manager = manager
            self.previous = previous
        }

        func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
        ) {
            guard PushPayloadParser.isTernPush(notification.request.content.userInfo) else {
                // Not Tern's: the app's own delegate decides (the system's handler, called once from
                // any thread, is safe to hand on).
                nonisolated(unsafe) let handler = completionHandler
                let selector = #selector(userNotificationCenter(_:willPresent:withCompletionHandler:))
                if let previous, previous.responds(to: selector) {
                    previous.userNotificationCenter?(center, willPresent: notification) { handler($0) }
                } else {
                    handler([])
                }
                return
            }
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
            guard PushPayloadParser.isTernPush(response.notification.request.content.userInfo) else {
                nonisolated(unsafe) let handler = completionHandler
                let selector = #selector(userNotificationCenter(_:didReceive:withCompletionHandler:))
                if let previous, previous.responds(to: selector) {
                    previous.userNotificationCenter?(center, didReceive: response) { handler() }
                } else {
                    handler()
                }
                return
            }
            nonisolated(unsafe) let response = response
            nonisolated(unsafe) let completionHandler = completionHandler
            let manager = manager
            Task { @MainActor in
                manager.didReceive(response) { completionHandler() }
            }
        }

        func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {
            previous?.userNotificationCenter?(center, openSettingsFor: notification)
        }
    }
#endif
