import Foundation
import Synchronization
import Testing

@testable import TernPush

@Suite("Live Activities are followed once, each token sent once, nothing after the end")
struct LiveActivityTrackingTests {
    /// What the tracking let through, in order.
    final class Sent: Sendable {
        let log = Mutex<[String]>([])
        func record(_ line: String) { log.withLock { $0.append(line) } }
        var lines: [String] { log.withLock { $0 } }
    }

    @Test func anActivityIsClaimedOnceUntilItEnds() async {
        let tracking = LiveActivityTracking()
        #expect(await tracking.claim("activity:A"))
        #expect(await !tracking.claim("activity:A"))
        #expect(await tracking.claim("activity:B"))
        await tracking.finish("activity:A") {}
        #expect(await !tracking.isFollowed("activity:A"))
        #expect(await tracking.claim("activity:A"), "an activity that ended may be followed again")
    }

    @Test func tokensAreSentOnceEachAndTheEndOnceAndNothingAfterIt() async {
        let tracking = LiveActivityTracking()
        let sent = Sent()
        let key = "activity:A"
        let send: @Sendable (Data) -> Void = { sent.record("token " + TokenAPI.hexString(deviceToken: $0)) }
        await tracking.forward(Data([1]), for: key, send: send)
        #expect(sent.lines.isEmpty, "a key that is not followed sends nothing")
        #expect(await tracking.claim(key))
        await tracking.forward(Data(), for: key, send: send)
        await tracking.forward(Data([1]), for: key, send: send)
        await tracking.forward(Data([1]), for: key, send: send)
        await tracking.forward(Data([2]), for: key, send: send)
        await tracking.finish(key) { sent.record("end") }
        await tracking.finish(key) { sent.record("end") }
        await tracking.forward(Data([3]), for: key, send: send)
        #expect(sent.lines == ["token 01", "token 02", "end"])
    }
}
