import CCurl
import Foundation

/// The body of the client's thread: jobs, then libcurl's transfers, then a poll that new work
/// interrupts; at shutdown every request still open fails with `.shutDown`.
enum CurlLoop {
    static func run(executor: CurlLoopExecutor, session: CurlSession) {
        executor.adoptCurrentThread()
        while true {
            let (cancellations, stopping) = executor.drain()
            if stopping { break }
            let timeout = session.assumeIsolated { session in
                for id in cancellations { session.cancel(id: id) }
                return session.pump()
            }
            curl_multi_poll(executor.multi.pointer, nil, 0, timeout, nil)
        }
        session.assumeIsolated { $0.shutDown() }
        // Jobs that raced with shutdown run now and meet the closed session.
        _ = executor.drain()
        executor.close()
    }
}
