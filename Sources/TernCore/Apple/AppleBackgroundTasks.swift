#if canImport(BackgroundTasks) && canImport(UIKit)
    import BackgroundTasks
    import Foundation

    /// ``BackgroundTaskScheduler`` over `BGTaskScheduler` (app refresh tasks). The identifier must be
    /// listed in Info.plist's `BGTaskSchedulerPermittedIdentifiers`, and registration must happen before
    /// the app finishes launching (call `registerBackgroundTask()` in
    /// `application(_:didFinishLaunchingWithOptions:)`).
    public struct AppleBackgroundTasks: BackgroundTaskScheduler {
        public init() {}

        public func register(identifier: String, work: @escaping @Sendable () async -> Void) -> Bool {
            BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
                // BGTask is not marked Sendable; Apple's own samples complete it from other threads.
                nonisolated(unsafe) let backgroundTask = task
                let job = Task {
                    await work()
                    backgroundTask.setTaskCompleted(success: !Task.isCancelled)
                }
                task.expirationHandler = { job.cancel() }
            }
        }

        public func schedule(identifier: String, earliest: Date) async {
            let request = BGAppRefreshTaskRequest(identifier: identifier)
            request.earliestBeginDate = earliest
            // A refused request (too many pending, the simulator) only means no background run.
            try? BGTaskScheduler.shared.submit(request)
        }
    }
#endif
