import CCurl
import Foundation

/// The body of the client's thread: new requests and cancellations, then libcurl's transfers,
/// then a poll that new work interrupts; at shutdown every request still open fails with
/// `.shutDown`. The session is made here and never leaves this thread.
enum CurlLoop {
    static func run(inbox: CurlInbox, configuration: HTTP2Client.Configuration) {
        let session = CurlSession(inbox: inbox, configuration: configuration)
        while true {
            let work = inbox.drain()
            if work.stopping { break }
            session.start(work.submissions)
            for id in work.cancellations { session.cancel(id: id) }
            inbox.poll(timeout: session.pump())
        }
        session.shutDown()
        // Requests that raced with shutdown meet the closed session.
        session.start(inbox.drain().submissions)
        for late in inbox.close() {
            late.continuation.resume(throwing: CurlSession.shutDownError)
        }
    }
}
