import CCurl
import Foundation

/// The body of the client's thread: jobs and new requests, then libcurl's transfers, then a poll
/// that new work interrupts; at shutdown every request still open fails with `.shutDown`.
enum CurlLoop {
    static func run(executor: CurlLoopExecutor, session: CurlSession) {
        executor.adoptCurrentThread()
        while true {
            let work = executor.drain()
            if work.stopping { break }
            let timeout = session.assumeIsolated { session in
                session.start(work.submissions)
                for id in work.cancellations { session.cancel(id: id) }
                return session.pump()
            }
            executor.poll(timeout: timeout)
        }
        session.assumeIsolated { $0.shutDown() }
        // Requests that raced with shutdown meet the closed session.
        let work = executor.drain()
        session.assumeIsolated { $0.start(work.submissions) }
        for late in executor.close() {
            late.continuation.resume(throwing: CurlSession.shutDownError)
        }
    }
}
