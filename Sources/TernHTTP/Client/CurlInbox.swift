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

/// How requests reach the client's loop thread: callers put submissions and cancellations here
/// from any thread, many per round, and new work wakes the thread out of `curl_multi_poll` only
/// while it polls, so a busy loop takes its work without wake-ups.
final class CurlInbox: Sendable {
    private struct State {
        var work = CurlLoopWork()
        /// The loop thread is in (or about to enter) `curl_multi_poll`.
        var polling = false
        /// A wake-up was sent since the loop started polling.
        var woken = false
        /// Set once the multi handle is freed: no wake-up may touch it after that.
        var closed = false

        var isEmpty: Bool { work.submissions.isEmpty && work.cancellations.isEmpty && !work.stopping }
    }

    let multi: CurlMultiHandle
    private let state = Mutex(State())

    init(multi: CurlMultiHandle) {
        self.multi = multi
    }

    /// Hands a request to the loop; false when the client is already closed (the caller fails it).
    /// Checks cancellation under the lock, so a cancellation requested after this call is queued
    /// after the submission and always finds it.
    func submit(_ submission: CurlSubmission) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.work.submissions.append(submission)
            if Task.isCancelled { state.work.cancellations.append(submission.id) }
            wake(&state)
            return true
        }
    }

    /// Asks the loop to cancel a request; safe from any thread, before or after the request started.
    func requestCancellation(_ id: UInt64) {
        state.withLock { state in
            state.work.cancellations.append(id)
            wake(&state)
        }
    }

    func stop() {
        state.withLock { state in
            state.work.stopping = true
            wake(&state)
        }
    }

    /// Frees the multi handle (on the loop thread, at its end); hands back the submissions that
    /// arrived after the last round, for the caller to fail.
    func close() -> [CurlSubmission] {
        let late = state.withLock { state in
            state.closed = true
            defer { state.work.submissions.removeAll() }
            return state.work.submissions
        }
        curl_multi_cleanup(multi.pointer)
        return late
    }

    /// Inside the lock, so that `close` cannot free the handle between the check and the call.
    /// Only a polling loop needs waking; one wake-up per poll is enough.
    private func wake(_ state: inout State) {
        guard state.polling, !state.woken, !state.closed else { return }
        state.woken = true
        curl_multi_wakeup(multi.pointer)
    }

    /// The requests, cancellations and whether to stop, handed over since the last call.
    func drain() -> CurlLoopWork {
        state.withLock { state in
            let stopping = state.work.stopping
            defer { state.work = CurlLoopWork(stopping: stopping) }
            return state.work
        }
    }

    /// Waits in `curl_multi_poll` up to `timeout` ms unless work is already waiting.
    func poll(timeout: Int32) {
        let idle = state.withLock { state in
            guard state.isEmpty else { return false }
            state.polling = true
            state.woken = false
            return true
        }
        guard idle else { return }
        curl_multi_poll(multi.pointer, nil, 0, timeout, nil)
        state.withLock { $0.polling = false }
    }
}
