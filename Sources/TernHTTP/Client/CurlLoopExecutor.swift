import CCurl
import Foundation
import Synchronization

/// libcurl's multi handle. Only the loop thread touches it, except `curl_multi_wakeup`, which
/// libcurl allows from any thread.
struct CurlMultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// A request handed to the loop thread, with the continuation its answer resumes.
struct CurlSubmission: @unchecked Sendable {
    let id: UInt64
    let prepared: CurlRequestOptions
    let continuation: CheckedContinuation<HTTP2Response, any Error>
}

/// What the loop thread picks up between rounds of libcurl's work.
struct CurlLoopWork {
    var submissions: [CurlSubmission] = []
    var cancellations: [UInt64] = []
    var stopping = false
}

/// A serial executor that is one thread: it runs `CurlSession`'s jobs between rounds of libcurl's
/// multi loop, so the actor owns the multi handle and every easy handle without locks. Requests
/// arrive as submissions, many per round, without an actor hop each. New work wakes the thread
/// out of `curl_multi_poll` only while it polls, so a busy loop takes its work without wake-ups.
final class CurlLoopExecutor: SerialExecutor {
    private struct Inbox {
        var jobs: [UnownedJob] = []
        var work = CurlLoopWork()
        /// The loop thread is in (or about to enter) `curl_multi_poll`.
        var polling = false
        /// A wake-up was sent since the loop started polling.
        var woken = false
        /// Set once the multi handle is freed: no wake-up may touch it after that.
        var closed = false
        var thread: ObjectIdentifier?

        var isEmpty: Bool {
            jobs.isEmpty && work.submissions.isEmpty && work.cancellations.isEmpty && !work.stopping
        }
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
            wake(&inbox)
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

    /// Hands a request to the loop; false when the client is already closed (the caller fails it).
    /// Checks cancellation under the lock, so a cancellation requested after this call is queued
    /// after the submission and always finds it.
    func submit(_ submission: CurlSubmission) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            inbox.work.submissions.append(submission)
            if Task.isCancelled { inbox.work.cancellations.append(submission.id) }
            wake(&inbox)
            return true
        }
    }

    /// Asks the loop to cancel a request; safe from any thread, before or after the request started.
    func requestCancellation(_ id: UInt64) {
        inbox.withLock { inbox in
            inbox.work.cancellations.append(id)
            wake(&inbox)
        }
    }

    func stop() {
        inbox.withLock { inbox in
            inbox.work.stopping = true
            wake(&inbox)
        }
    }

    /// Frees the multi handle (on the loop thread, at its end); hands back the submissions that
    /// arrived after the last round, for the caller to fail.
    func close() -> [CurlSubmission] {
        let late = inbox.withLock { inbox in
            inbox.closed = true
            defer { inbox.work.submissions.removeAll() }
            return inbox.work.submissions
        }
        curl_multi_cleanup(multi.pointer)
        return late
    }

    /// Inside the lock, so that `close` cannot free the handle between the check and the call.
    /// Only a polling loop needs waking; one wake-up per poll is enough.
    private func wake(_ inbox: inout Inbox) {
        guard inbox.polling, !inbox.woken, !inbox.closed else { return }
        inbox.woken = true
        curl_multi_wakeup(multi.pointer)
    }

    /// Claims the current thread as the loop thread.
    func adoptCurrentThread() {
        let current = ObjectIdentifier(Thread.current)
        inbox.withLock { $0.thread = current }
    }

    /// Runs the jobs queued so far, then hands back the requests, cancellations and whether to stop.
    func drain() -> CurlLoopWork {
        while true {
            let jobs = inbox.withLock { inbox in
                defer { inbox.jobs.removeAll(keepingCapacity: true) }
                return inbox.jobs
            }
            if jobs.isEmpty { break }
            for job in jobs { job.runSynchronously(on: asUnownedSerialExecutor()) }
        }
        return inbox.withLock { inbox in
            let stopping = inbox.work.stopping
            defer { inbox.work = CurlLoopWork(stopping: stopping) }
            return inbox.work
        }
    }

    /// Waits in `curl_multi_poll` up to `timeout` ms unless work is already waiting.
    func poll(timeout: Int32) {
        let idle = inbox.withLock { inbox in
            guard inbox.isEmpty else { return false }
            inbox.polling = true
            inbox.woken = false
            return true
        }
        guard idle else { return }
        curl_multi_poll(multi.pointer, nil, 0, timeout, nil)
        inbox.withLock { $0.polling = false }
    }
}
