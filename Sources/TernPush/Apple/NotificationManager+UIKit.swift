#if os(iOS)
    @preconcurrency import UserNotifications
    import UIKit

    extension NotificationManager {
        /// Makes the SDK the notification center's delegate, asks the person for permission, and
        /// registers for remote notifications. Call it in `application(_:didFinishLaunchingWithOptions:)`
        /// (the delegate must be set before launch ends, or a tap that launched the app is missed), after
        /// setting the app's own delegate if it has one: notifications that are not Tern's go on to it.
        /// The token arrives in `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
        /// It also hands the app's lifecycle to the SDK, and once the person answered, Tern reads the
        /// notification permission and reports it with the subscription (`_push_permission`).
        ///
        /// ```swift
        /// Tern.shared.push.notificationManager.registerForPushNotifications(for: application)
        /// ```
        @available(iOSApplicationExtension, unavailable)
        public func registerForPushNotifications(
            for application: UIApplication, options: UNAuthorizationOptions = [.alert, .sound, .badge]
        ) {
            let center = UNUserNotificationCenter.current()
            attachLifecycle?(AppleAppLifecycle())
            // Set once: a second call must not chain the SDK's delegate to itself.
            if let installed = platformDelegate as? NotificationCenterDelegate, center.delegate === installed {
                application.registerForRemoteNotifications()
                return
            }
            let delegate = NotificationCenterDelegate(manager: self, previous: center.delegate)
            platformDelegate = delegate
            center.delegate = delegate
            urlOpener = ApplicationURLOpener(application: application)
            application.registerForRemoteNotifications()
            let denied = permissionDenied
            let answered = permissionAnswered
            // @Sendable: the center answers on a background queue, not the main actor.
            center.requestAuthorization(options: options) { @Sendable granted, _ in
                if !granted { denied?() }
                answered?()
            }
        }

        /// Checks the app's host categories and registers them beside `preserving` and Tern's own
        /// message categories, in one `setNotificationCategories` call.
        ///
        /// ```swift
        /// let order = UNNotificationCategory(identifier: "ORDER_V1", actions: [
        ///     UNNotificationAction(identifier: "VIEW_ORDER", title: "View order", options: .foreground)
        /// ], intentIdentifiers: [], options: [])
        /// try await manager.registerHostCategories([order], preserving: otherHostCategories)
        /// ```
        public func registerHostCategories(
            _ categories: [UNNotificationCategory], preserving others: Set<UNNotificationCategory> = []
        ) async throws {
            let actions = try HostNotificationActions(categories: categories.map(NotificationCategory.init))
            _ = try actions.categoriesForRegistration(preserving: others.map(NotificationCategory.init))
            let center = UNUserNotificationCenter.current()
            let tern = await UserNotificationCategoryStore.registered().filter {
                MessageCategory.isTernCategory($0.identifier)
            }
            center.setNotificationCategories(tern.union(others).union(categories))
            setHostActions(actions)
        }
    }

    /// Opens URLs the app's handler did not take, with the application the manager was registered for.
    @available(iOSApplicationExtension, unavailable)
    struct ApplicationURLOpener: URLOpening {
        let application: UIApplication

        @MainActor func open(_ url: URL) async -> Bool {
            // The completion-handler form: this compiler crashes lowering the imported `async` one here.
            await withCheckedContinuation { continuation in
                application.open(url, options: [:]) { opened in continuation.resume(returning: opened) }
            }
        }
    }
#endif
