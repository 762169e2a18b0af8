#if os(iOS)
    import Foundation

    @available(iOSApplicationExtension, unavailable)
    extension BackgroundTasksAPI {
        /// Registers the flush with `BGTaskScheduler` and hands the app's lifecycle to the SDK
        /// (sessions, background time for database work). Call it in
        /// `application(_:didFinishLaunchingWithOptions:)`; calling it again does nothing more.
        public func registerBackgroundTask() {
            core.attachAppLifecycle(AppleAppLifecycle())
            registerBackgroundTask(scheduler: AppleBackgroundTasks())
        }
    }

    @available(iOSApplicationExtension, unavailable)
    extension Tern {
        /// Hands the app's lifecycle (`UIApplication`) to the SDK: sessions start and end with the
        /// foreground, and database work that straddles the app leaving the foreground gets background
        /// time. `registerBackgroundTask()` and `registerForPushNotifications(for:)` do it already; call
        /// it in `application(_:didFinishLaunchingWithOptions:)` when the app calls neither.
        public func attachApplication() {
            core.attachAppLifecycle(AppleAppLifecycle())
        }
    }
#endif
