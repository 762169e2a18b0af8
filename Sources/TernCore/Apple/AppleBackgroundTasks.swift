#if os(iOS)
    import BackgroundTasks
    import Foundation
    import os

    /// ``BackgroundTaskScheduler`` over `BGTaskScheduler` (app refresh tasks). The app's alone
    /// (`register` is unavailable in app extensions): `registerBackgroundTask()` passes it in.
    ///
    /// The identifier must be listed in Info.plist's `BGTaskSchedulerPermittedIdentifiers`, the app
    /// needs the `fetch` background mode (`UIBackgroundModes`), and registration must happen before
    /// the app finishes launching (`application(_:didFinishLaunchingWithOptions:)`). Each identifier
    /// is registered with the system once per process: registering one twice would end the app, so a
    /// second registration keeps the first's work.
    @available(iOSApplicationExtension, unavailable)
    public struct AppleBackgroundTasks: BackgroundTaskScheduler {
        /// The identifiers registered in this process (the system's own registry is per process too).
        private static let registered = OSAllocatedUnfairLock(initialState: Set<String>())

        /// The scheduler over `BGTaskScheduler.shared`.
        public init() {}

        public func register(identifier: String, work: @escaping @Sendable () async -> Void) -> Bool {
            let first = Self.registered.withLock { $0.insert(identifier).inserted }
            guard first else { return true }
            let accepted = BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
                // BGTask is not marked Sendable; it is completed once, from the job below.
                nonisolated(unsafe) let backgroundTask = task
                let job = Task {
                    await work()
                    backgroundTask.setTaskCompleted(success: !Task.isCancelled)
                }
                // The system's time is up: the flush stops at its next step and the job completes the
                // task (unsuccessfully) right after.
                task.expirationHandler = { job.cancel() }
            }
            if !accepted { Self.registered.withLock { _ = $0.remove(identifier) } }
            return accepted
        }

        public func schedule(identifier: String, earliest: Date) async {
            let request = BGAppRefreshTaskRequest(identifier: identifier)
            request.earliestBeginDate = earliest
            // A refused request (too many pending, the simulator) only means no background run.
            try? BGTaskScheduler.shared.submit(request)
        }
    }
#endif
