#if os(iOS)
    import Foundation

    extension TernEnvironment {
        /// The iOS ports an app and its extensions share: URLSession, UIDevice, the app-group
        /// container. Nothing app-only: the lifecycle is a relay the app attaches its own to
        /// (``AppleAppLifecycle``), and the app passes `BGTaskScheduler` (``AppleBackgroundTasks``)
        /// when it registers the background flush; an extension does neither.
        public static var apple: TernEnvironment {
            TernEnvironment(
                deviceInfo: AppleDeviceInfo(), container: AppleAppGroupContainer(), lifecycle: AppLifecycleRelay(),
                backgroundTasks: ManualBackgroundScheduler(),
                buildAPNsEnvironment: { AppleProvisioningProfile.environment })
        }
    }
#endif
