import Foundation

/// The SDK's background flush: when the system runs it, the outbox sends what is due.
///
/// On iOS, add the identifier ``BackgroundTasksAPI/identifier`` to `BGTaskSchedulerPermittedIdentifiers`
/// in Info.plist and call ``registerBackgroundTask()`` in `application(_:didFinishLaunchingWithOptions:)`.
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

    /// Registers the flush with the system (`backgroundTaskRegister`); each run sends what is due and
    /// reports `backgroundTaskCompleted`.
    public func registerBackgroundTask() {
        let runtime = core.runtime
        let scheduler = core.environment.backgroundTasks
        let clock = core.environment.clock
        let identifier = Self.identifier
        core.setupQueue.submit {
            let registered = await scheduler.register(identifier: identifier) {
                _ = await runtime.flush(until: clock.now().addingTimeInterval(Self.runLimit))
                await scheduler.schedule(
                    identifier: identifier, earliest: clock.now().addingTimeInterval(Self.interval))
                runtime.bus.emit(.info("registerBackgroundTask", CoreEvents.backgroundTaskCompleted))
            }
            guard registered else {
                runtime.bus.emit(
                    .error(
                        "registerBackgroundTask", CoreEvents.backgroundTaskRegister,
                        message:
                            "background task \(identifier) was refused: list it in Info.plist's BGTaskSchedulerPermittedIdentifiers"
                    ))
                return
            }
            await scheduler.schedule(identifier: identifier, earliest: clock.now().addingTimeInterval(Self.interval))
            runtime.bus.emit(.info("registerBackgroundTask", CoreEvents.backgroundTaskRegister))
        }
    }
}
