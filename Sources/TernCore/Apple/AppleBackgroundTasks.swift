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

        /// `BGTaskScheduler.shared`, as the portable scheduler drives it.
        struct Port: SystemTaskPort {
            func register(identifier: String, launch: @escaping @Sendable (SystemTaskRun) -> Void) -> Bool {
                BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
                    // BGTask is not marked Sendable; the system hands it over once, and it is
                    // completed once, from the run's job.
                    nonisolated(unsafe) let backgroundTask = task
                    launch(
                        SystemTaskRun(
                            setExpiration: { handler in backgroundTask.expirationHandler = handler },
                            complete: { success in backgroundTask.setTaskCompleted(success: success) }))
                }
            }

            func submit(identifier: String, earliest: Date) {
                let request = BGAppRefreshTaskRequest(identifier: identifier)
                request.earliestBeginDate = earliest
                // A refused request (too many pending, the simulator) only means no background run.
                try? BGTaskScheduler.shared.submit(request)
            }
        }

        private let scheduler = SystemBackgroundScheduler(
            port: Port(),
            claim: { identifier in Self.registered.withLock { $0.insert(identifier).inserted } },
            release: { identifier in Self.registered.withLock { _ = $0.remove(identifier) } })

        /// The scheduler over `BGTaskScheduler.shared`.
        public init() {}

        public func register(identifier: String, work: @escaping @Sendable () async -> Void) -> Bool {
            scheduler.register(identifier: identifier, work: work)
        }

        public func schedule(identifier: String, earliest: Date) async {
            await scheduler.schedule(identifier: identifier, earliest: earliest)
        }
    }
#endif
