import Foundation

/// The SDK's one ordered mailbox: every public call and every follow-up the SDK makes on its own
/// (the hand-over after `authenticate()`/`logOut()`, a re-subscribe, a token refresh, a retry's
/// completion) is a letter here, and the core takes them one at a time, in the order they were
/// posted. Set-up letters (app group, configuration, consent) run as they come; commands wait for
/// initialization, parked in order, while later set-up letters go ahead (see ``CoreRuntime/receive(_:)``).
final class Mailbox: Sendable {
    /// One letter.
    enum Letter: Sendable {
        /// Runs at once, initialized or not.
        case setup(@Sendable () async -> Void)
        /// Runs after every command posted before it, initialized or not (`clear`, waiting for the queue).
        case ordered(@Sendable () async -> Void)
        /// Runs once the SDK is initialized, after every command posted before it.
        case command(String, @Sendable (ReadyCore) async -> Void)
    }

    private let stream: AsyncStream<Letter>
    private let letters: AsyncStream<Letter>.Continuation

    init() {
        (stream, letters) = AsyncStream.makeStream(of: Letter.self)
    }

    /// Starts the one reader, on the core's actor: the next letter is taken once the last one has run.
    func open(for runtime: CoreRuntime) {
        let stream = stream
        Task.detached { await runtime.read(stream) }
    }

    func post(_ letter: Letter) {
        letters.yield(letter)
    }

    /// Posts a command; the stream ends once `body` ran, or once the letter is let go unrun (the
    /// SDK shut down first): a caller waiting on it never waits forever.
    func postCommand(_ function: String, _ body: @escaping @Sendable (ReadyCore) async -> Void) -> AsyncStream<Void> {
        let (ran, continuation) = AsyncStream<Void>.makeStream()
        let done = EndsWhenReleased(continuation)
        post(
            .command(function) { ready in
                await body(ready)
                done.end()
            })
        return ran
    }

    /// Posts a command that owes its caller an answer: `unrun` is called instead of `body` when the
    /// letter is let go without running (the configuration was unusable, or the SDK shut down first).
    func postCommand(
        _ function: String, unrun: @escaping @Sendable () -> Void, _ body: @escaping @Sendable (ReadyCore) async -> Void
    ) {
        let owed = OwedAnswer(unrun)
        post(
            .command(function) { ready in
                owed.ran()
                await body(ready)
            })
    }

    /// Returns once every set-up letter posted before it has run.
    func settled() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            letters.yield(.setup { done.resume() })
        }
    }

    /// Returns once every letter posted before it has run (commands waiting for initialization too).
    func drained() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            letters.yield(.ordered { done.resume() })
        }
    }

    func close() {
        letters.finish()
    }
}

/// Ends a stream when told or, at the latest, when the last reference goes: a letter the closed
/// mailbox drops still ends its caller's wait.
private final class EndsWhenReleased: Sendable {
    private let continuation: AsyncStream<Void>.Continuation

    init(_ continuation: AsyncStream<Void>.Continuation) {
        self.continuation = continuation
    }

    func end() { continuation.finish() }

    deinit { continuation.finish() }
}

/// Calls `unrun` when its last reference goes, unless ``ran()`` was called first: a command's
/// letter holds it, so a letter the core lets go unrun (``CoreEvents/configIsNotSet``, a closed
/// mailbox) still answers the caller waiting on it. The first of the two outcomes is the one kept
/// (a stream that keeps only its first value decides, so no lock is needed).
private final class OwedAnswer: Sendable {
    private let outcome: AsyncStream<Bool>.Continuation

    init(_ unrun: @escaping @Sendable () -> Void) {
        let (stream, outcome) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingOldest(1))
        self.outcome = outcome
        Task {
            for await ran in stream {
                if !ran { unrun() }
                return
            }
        }
    }

    func ran() {
        outcome.yield(true)
        outcome.finish()
    }

    deinit {
        outcome.yield(false)
        outcome.finish()
    }
}

extension CoreRuntime {
    /// A letter parked until initialization (or until the letters parked before it have run).
    enum Parked {
        case ordered(@Sendable () async -> Void)
        case command(String, @Sendable (ReadyCore) async -> Void)
    }

    /// The mailbox's reader: takes the letters one at a time on this actor, so a letter and the
    /// command inside it run here without a hop (module commands are `nonisolated(nonsending)`).
    func read(_ letters: AsyncStream<Mailbox.Letter>) async {
        for await letter in letters { await receive(letter) }
    }

    /// Takes one letter from the mailbox (called by its one reader, in order).
    func receive(_ letter: Mailbox.Letter) async {
        switch letter {
        case .setup(let job):
            // Once initialized, a set-up letter waits for the commands parked before it.
            if case .ready = phase { await awaitUnparked() }
            await job()
        case .ordered(let job):
            if parked.isEmpty, !unparking {
                await job()
            } else {
                parked.append(.ordered(job))
            }
        case .command(let function, let body):
            guard parked.isEmpty, !unparking else {
                parked.append(.command(function, body))
                return
            }
            switch phase {
            case .ready(let ready): await body(ready)
            case .failed: bus.emit(.error(function, CoreEvents.configIsNotSet))
            case .waiting, .initializing:
                if !initAwaitReported {
                    initAwaitReported = true
                    bus.emit(.info(function, CoreEvents.initAwait))
                }
                parked.append(.command(function, body))
            }
        }
    }

    /// Runs the parked letters in order: with `ready` once initialized, failing the commands with
    /// `configIsNotSet` when the configuration was unusable (`nil`).
    func unpark(_ ready: ReadyCore?) async {
        initAwaitReported = false
        guard !unparking else { return }
        unparking = true
        while !parked.isEmpty {
            switch parked.removeFirst() {
            case .ordered(let job): await job()
            case .command(let function, let body):
                if let ready {
                    await body(ready)
                } else {
                    bus.emit(.error(function, CoreEvents.configIsNotSet))
                }
            }
        }
        unparking = false
        let waiting = unparkWaiters
        unparkWaiters = []
        for waiter in waiting { waiter.resume() }
    }

    private func awaitUnparked() async {
        guard unparking || !parked.isEmpty else { return }
        await withCheckedContinuation { unparkWaiters.append($0) }
    }
}
