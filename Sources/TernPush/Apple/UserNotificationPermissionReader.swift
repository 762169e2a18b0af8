#if os(iOS)
    @preconcurrency import UserNotifications

    /// Reads the permission from `UNUserNotificationCenter`'s settings; every decision about it is
    /// portable (``PermissionChange``).
    struct UserNotificationPermissionReader: PushPermissionReading {
        /// Through the completion handler: this compiler crashes lowering the imported `async` form
        /// (`notificationSettings()`), as it does for the center's categories.
        func currentPermission() async -> PushPermission? {
            await withCheckedContinuation { continuation in
                UNUserNotificationCenter.current().getNotificationSettings { settings in
                    continuation.resume(returning: Self.permission(settings.authorizationStatus))
                }
            }
        }

        /// The portable value of a status; nil for one this SDK does not know (a later iOS's).
        static func permission(_ status: UNAuthorizationStatus) -> PushPermission? {
            switch status {
            case .authorized: .authorized
            case .provisional: .provisional
            case .ephemeral: .ephemeral
            case .denied: .denied
            case .notDetermined: .notDetermined
            @unknown default: nil
            }
        }
    }

    extension PushPermissionMonitor {
        /// The notification center's settings.
        static var platformReader: (any PushPermissionReading)? { UserNotificationPermissionReader() }
    }
#endif
