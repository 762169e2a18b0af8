import Foundation

/// Lets a sender lane sleep until there is work or a deadline passes, whichever comes first.
actor WakeSignal {
    private var pending = false
    private var waiter: (id: UUID, continuation: CheckedContinuation<Void, Never>, timer: Task<Void, Never>)?
    private let clock: any TernClock

    init(clock: any TernClock) {
        self.clock = clock
    }

    /// Returns on ``notify()`` (or at once if one came since the last wait) or after `timeout` seconds.
    func wait(timeout: TimeInterval) async {
        if pending {
            pending = false
            return
        }
        let id = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let clock = self.clock
            let timer = Task { [weak self] in
                guard (try? await clock.sleep(seconds: max(0, timeout))) != nil else { return }
                await self?.fire(id)
            }
            waiter = (id, continuation, timer)
        }
    }

    func notify() {
        if let waiter {
            self.waiter = nil
            waiter.timer.cancel()
            waiter.continuation.resume()
        } else {
            pending = true
        }
    }

    private func fire(_ id: UUID) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume()
    }
}

/// Runs submitted jobs one at a time, in the order they were submitted; `submit` returns at once
/// and may be called from any thread.
final class SerialQueue: Sendable {
    typealias Job = @Sendable () async -> Void
    private let continuation: AsyncStream<Job>.Continuation

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
        self.continuation = continuation
        Task.detached {
            for await job in stream { await job() }
        }
    }

    func submit(_ job: @escaping Job) {
        continuation.yield(job)
    }

    /// Returns when every job submitted before it has run.
    func drain() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            continuation.yield { done.resume() }
        }
    }

    func finish() {
        continuation.finish()
    }
}
