import Foundation

/// Carries events from the SDK's actors to the app's one subscriber, in the order they were emitted,
/// on the main queue. Public for Tern's modules: they emit through ``emit(_:)``.
public final class EventBus: Sendable {
    enum Message: Sendable {
        case subscribe(@MainActor (Event) -> Void)
        case unsubscribe
        case event(EventRecord)
        case flush(@Sendable () -> Void)
    }

    private let continuation: AsyncStream<Message>.Continuation
    private let task: Task<Void, Never>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Message.self)
        self.continuation = continuation
        task = Task { @MainActor in
            var callback: (@MainActor (Event) -> Void)?
            var active = false
            for await message in stream {
                switch message {
                case .subscribe(let newCallback):
                    callback = newCallback
                    active = true
                case .unsubscribe:
                    active = false
                case .event(let record):
                    guard active, let callback else { continue }
                    callback(record.makeEvent())
                case .flush(let done):
                    done()
                }
            }
        }
    }

    deinit {
        continuation.finish()
    }

    /// Emits one event; returns at once, the subscriber gets it later on the main queue.
    public func emit(_ record: EventRecord) {
        continuation.yield(.event(record))
    }

    func subscribe(_ callback: @escaping @MainActor (Event) -> Void) {
        continuation.yield(.subscribe(callback))
    }

    func unsubscribe() {
        continuation.yield(.unsubscribe)
    }

    /// Runs `work` on the main queue after every event emitted before the call has reached the
    /// subscriber: completions that follow an event never overtake it.
    /// After ``Tern/shutdown()`` no event is delivered any more, and `work` runs on the main queue at once.
    public func onMain(_ work: @escaping @Sendable () -> Void) {
        if case .terminated = continuation.yield(.flush(work)) { DispatchQueue.main.async(execute: work) }
    }

    /// Returns when every event emitted before the call has reached the subscriber (at once after
    /// ``Tern/shutdown()``).
    public func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            if case .terminated = continuation.yield(.flush { done.resume() }) { done.resume() }
        }
    }

    func shutdown() {
        continuation.finish()
    }
}

/// The app's door to SDK events: one subscriber, called on the main queue.
///
/// ```swift
/// Tern.shared.eventSDKFunctions.subscribe { event in
///     if event is RetryEvent { print("will retry:", event.message ?? "") }
/// }
/// ```
public struct SDKEvents: Sendable {
    let bus: EventBus

    /// Subscribes to SDK events, replacing the current subscriber. The callback runs on the main queue.
    public func subscribe(callback: @escaping @MainActor (Event) -> Void) {
        bus.subscribe(callback)
    }

    /// Stops delivering events; the subscriber stays assigned.
    public func unsubscribe() {
        bus.unsubscribe()
    }
}
