import Foundation

/// One run of a system background task (`BGTask` on iOS), as the system hands it over.
struct SystemTaskRun: Sendable {
    /// Sets what runs when the system's time for the task is up.
    let setExpiration: @Sendable (_ handler: @escaping @Sendable () -> Void) -> Void
    /// Tells the system the run ended (`setTaskCompleted(success:)`).
    let complete: @Sendable (_ success: Bool) -> Void
}

/// The system's background-task scheduler as ``SystemBackgroundScheduler`` drives it
/// (`BGTaskScheduler` on iOS; a fake in tests).
protocol SystemTaskPort: Sendable {
    /// Registers `launch` for `identifier`; false when the system refuses.
    func register(identifier: String, launch: @escaping @Sendable (SystemTaskRun) -> Void) -> Bool
    /// Asks for a run of `identifier`, not before `earliest`.
    func submit(identifier: String, earliest: Date)
}

/// What the SDK does with a system background task, decided here so Linux tests reach it; the
/// Apple side (`AppleBackgroundTasks`) only passes `BGTaskScheduler` in.
///
/// - Each identifier is registered with the system once per process: a second
///   `BGTaskScheduler.register` for one identifier ends the app, so a second registration keeps
///   the first's work and reports success. A refused one can be tried again.
/// - Each run is a job; the expiration handler cancels it, the flush stops at its next step, and
///   the task is completed once the job ends: successfully unless it was cancelled.
struct SystemBackgroundScheduler<Port: SystemTaskPort>: BackgroundTaskScheduler {
    let port: Port
    /// Claims `identifier` for this process: true the first time (the per-process record lives
    /// with the port's owner, as the system's own registry is per process).
    let claim: @Sendable (_ identifier: String) -> Bool
    /// Gives up a claim whose registration the system refused.
    let release: @Sendable (_ identifier: String) -> Void

    func register(identifier: String, work: @escaping @Sendable () async -> Void) -> Bool {
        guard claim(identifier) else { return true }
        let accepted = port.register(identifier: identifier) { run in Self.run(run, work) }
        if !accepted { release(identifier) }
        return accepted
    }

    func schedule(identifier: String, earliest: Date) async {
        port.submit(identifier: identifier, earliest: earliest)
    }

    /// Runs `work` for the system's `run`: cancelled when the system's time is up, completed when
    /// it ends.
    @discardableResult
    static func run(_ run: SystemTaskRun, _ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        let job = Task {
            await work()
            run.complete(!Task.isCancelled)
        }
        run.setExpiration { job.cancel() }
        return job
    }
}
