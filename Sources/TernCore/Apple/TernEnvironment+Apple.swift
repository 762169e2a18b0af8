#if canImport(UIKit)
    import Foundation

    extension TernEnvironment {
        /// The iOS ports: URLSession, UIDevice, the app-group container, UIApplication's lifecycle,
        /// BGTaskScheduler.
        public static var apple: TernEnvironment {
            #if canImport(BackgroundTasks)
                let background: any BackgroundTaskScheduler = AppleBackgroundTasks()
            #else
                let background: any BackgroundTaskScheduler = ManualBackgroundScheduler()
            #endif
            return TernEnvironment(
                deviceInfo: AppleDeviceInfo(), container: AppleAppGroupContainer(), lifecycle: AppleAppLifecycle(),
                backgroundTasks: background)
        }
    }
#endif
