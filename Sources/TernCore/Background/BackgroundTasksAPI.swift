import Foundation

/// The SDK's background flush: when the system runs it, the outbox sends what is due.
///
/// On iOS: add ``BackgroundTasksAPI/identifier`` to `BGTaskSchedulerPermittedIdentifiers` in
/// Info.plist, turn on the `fetch` background mode (`UIBackgroundModes`), and call
/// `registerBackgroundTask()` in `application(_:didFinishLaunchingWithOptions:)`.
public struct BackgroundTasksAPI: Sendable {
    let core: CoreServices

    /// `<bundle id>.tern.flush`.
    public static var identifier: String {
        (Bundle.main.bundleIdentifier ?? "tern") + ".tern.flush"
    }

    /// The longest a background run keeps sending.
    public static let runLimit: TimeInterval = 25
    /// How soon after one run the next is asked for.
    public static let interval: TimeInterval = 15 * 60

    #if !os(iOS)
        /// Registers the flush with the environment's scheduler (`backgroundTaskRegister`); each run
        /// sends what is due and reports `backgroundTaskCompleted`. On iOS the app's own
        /// `registerBackgroundTask()` passes `BGTaskScheduler` in.
        public func registerBackgroundTask() {
            registerBackgroundTask(scheduler: core.environment.backgroundTasks)
        }
    #endif

    /// Registers the flush with `scheduler` (`backgroundTaskRegister`, or that event as an error with
    /// the reason when the system refused); each run sends what is due until it is done, the run
    /// limit passes or the system cancels it, then reports `backgroundTaskCompleted`.
    public func registerBackgroundTask(scheduler: any BackgroundTaskScheduler) {
        let runtime = core.runtime
        let clock = core.environment.clock
        let identifier = Self.identifier
        let function = "registerBackgroundTask"
        // Registered here, on the caller's thread: iOS refuses registrations after launch.
        let registered = scheduler.register(identifier: identifier) {
            _ = await runtime.flush(until: clock.now().addingTimeInterval(Self.runLimit))
            await scheduler.schedule(identifier: identifier, earliest: clock.now().addingTimeInterval(Self.interval))
            runtime.bus.emit(.info(function, CoreEvents.backgroundTaskCompleted))
        }
        guard registered else {
            let reason = "list \(identifier) in Info.plist's BGTaskSchedulerPermittedIdentifiers"
            runtime.bus.emit(
                .error(
                    function, CoreEvents.backgroundTaskRegister,
                    message: "background task \(identifier) was refused: \(reason)", value: ["reason": reason]))
            return
        }
        core.runtime.mailbox.post(
            .setup {
                await scheduler.schedule(
                    identifier: identifier, earliest: clock.now().addingTimeInterval(Self.interval))
                runtime.bus.emit(.info(function, CoreEvents.backgroundTaskRegister))
            })
    }
}
