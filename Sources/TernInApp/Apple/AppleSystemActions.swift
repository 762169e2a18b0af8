#if os(iOS)
    import Foundation
    import UIKit
    import UserNotifications

    extension PlatformLifecycle {
        /// didBecomeActive / didEnterBackground through the core's Apple lifecycle.
        static func attachApple(_ core: CoreServices) {
            core.attachAppLifecycle(AppleAppLifecycle())
        }
    }

    /// iOS's defaults: links open with the system; `request_push` asks the notification center for
    /// permission and registers for remote notifications when it is granted.
    struct AppleSystemActions: InAppSystemActions {
        var opensLinks: Bool { true }
        var requestsPush: Bool { true }

        @MainActor func open(_ url: URL) {
            UIApplication.shared.open(url)
        }

        @MainActor func requestPush() {
            UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .badge, .sound]) { granted, _ in
                guard granted else { return }
                Task { @MainActor in UIApplication.shared.registerForRemoteNotifications() }
            }
        }
    }
#endif
