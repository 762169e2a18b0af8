import CCurl
import Foundation
import Synchronization

/// libcurl's multi handle. Only the loop thread touches it, except `curl_multi_wakeup`, which
/// libcurl allows from any thread.
struct CurlMultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// A serial executor that is one thread: it runs `CurlSession`'s jobs between rounds of libcurl's
/// multi loop, so the actor owns the multi handle and every easy handle without locks. New jobs,
/// cancellations and shutdown wake the thread out of `curl_multi_poll`.
final class CurlLoopExecutor: SerialExecutor {
    private struct Inbox {
        var jobs: [UnownedJob] = []
        var cancellations: [UInt64] = []
        var stopping = false
        /// Set once the multi handle is freed: no wake-up may touch it after that.
        var closed = false
        var thread: ObjectIdentifier?
    }

    let multi: CurlMultiHandle
    private let inbox = Mutex(Inbox())

    init(multi: CurlMultiHandle) {
        self.multi = multi
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        inbox.withLock { inbox in
            inbox.jobs.append(job)
            wake(inbox)
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// The loop thread is the actor's isolation domain, inside a job or between jobs.
    func checkIsolated() {
        let current = ObjectIdentifier(Thread.current)
        precondition(inbox.withLock { $0.thread } == current, "CurlSession used off its loop thread")
    }

    /// Asks the loop to cancel a request; safe from any thread, before or after the request started.
    func requestCancellation(_ id: UInt64) {
        inbox.withLock { inbox in
            inbox.cancellations.append(id)
            wake(inbox)
        }
    }

    func stop() {
        inbox.withLock { inbox in
            inbox.stopping = true
            wake(inbox)
        }
    }

    /// Frees the multi handle (on the loop thread, at its end).
    func close() {
        inbox.withLock { $0.closed = true }
        curl_multi_cleanup(multi.pointer)
    }

    /// Inside the lock, so that `close` cannot free the handle between the check and the call.
    private func wake(_ inbox: Inbox) {
        if !inbox.closed { curl_multi_wakeup(multi.pointer) }
    }

    /// Claims the current thread as the loop thread.
    func adoptCurrentThread() {
        let current = ObjectIdentifier(Thread.current)
        inbox.withLock { $0.thread = current }
    }

    /// Runs the jobs queued so far, then hands back cancellations and whether to stop.
    func drain() -> (cancellations: [UInt64], stopping: Bool) {
        while true {
            let jobs = inbox.withLock { inbox in
                defer { inbox.jobs.removeAll(keepingCapacity: true) }
                return inbox.jobs
            }
            if jobs.isEmpty { break }
            for job in jobs { job.runSynchronously(on: asUnownedSerialExecutor()) }
        }
        return inbox.withLock { inbox in
            defer { inbox.cancellations.removeAll() }
            return (inbox.cancellations, inbox.stopping)
        }
    }
}
