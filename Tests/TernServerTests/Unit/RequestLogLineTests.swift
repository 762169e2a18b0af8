import Foundation
import Synchronization
import Testing

@testable import TernServer

/// The request's log line, written in place, is the line the general `log` writes for the same
/// fields; and request ids made here are 16 hex digits, never repeated.
@Suite struct RequestLogLineTests {
    /// Lines a logger wrote, each without its `ts` (the only field that differs between two calls).
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])

        var sink: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }

        func withoutTimestamps() -> [String] {
            lines.withLock { $0 }.map {
                $0.replacingOccurrences(of: #"\{"ts":"[^"]*","#, with: "{", options: .regularExpression)
            }
        }
    }

    @Test(arguments: [
        (200, nil as String?, nil as Int64?), (503, "disk full \"/data\"", nil), (201, nil, 42), (500, "é\n", 7),
    ])
    func theRequestLineIsTheGeneralLineForItsFields(status: Int, error: String?, keyId: Int64?) async throws {
        let lines = Lines()
        let logger = Logger(minimum: .debug, sink: lines.sink)
        let note = KeyNote()
        note.keyId = keyId
        KeyNote.$current.withValue(keyId == nil ? nil : note) {
            var fields: [String: any Sendable] = [
                "route": "/push/subscribe", "method": "POST", "status": status, "duration_ms": 1.234,
                "request_id": "0123456789abcdef",
            ]
            if let error { fields["error"] = error }
            logger.log(.info, "request", fields)
            logger.request(
                .info, route: "/push/subscribe", method: "POST", status: status, durationMs: 1.234,
                requestId: "0123456789abcdef", error: error)
        }
        let written = lines.withoutTimestamps()
        try #require(written.count == 2)
        #expect(written[0] == written[1])
        #expect(written[1].contains(#""status":\#(status)"#))
        #expect(written[1].contains("key_id") == (keyId != nil))
        let object = try JSONSerialization.jsonObject(with: Data(written[1].utf8)) as? [String: Any]
        #expect(object?["error"] as? String == error)
    }

    @Test func aLineBelowTheLevelIsNotWritten() {
        let lines = Lines()
        let logger = Logger(minimum: .warn, sink: lines.sink)
        logger.request(.info, route: "/", method: "GET", status: 200, durationMs: 0, requestId: "a", error: nil)
        #expect(lines.withoutTimestamps().isEmpty)
        logger.request(.error, route: "/", method: "GET", status: 500, durationMs: 0, requestId: "a", error: "x")
        #expect(lines.withoutTimestamps().count == 1)
    }

    @Test func requestIdsAreSixteenHexDigitsAndNeverRepeat() {
        let source = RequestIdSource(seed: 0)
        var seen = Set<String>()
        for _ in 0..<100_000 {
            let id = source.next()
            #expect(id.count == 16 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            seen.insert(id)
        }
        #expect(seen.count == 100_000)
        // Consecutive ids share no obvious structure: they differ in about half their bits.
        let a = UInt64(source.next(), radix: 16)!
        let b = UInt64(source.next(), radix: 16)!
        #expect((a ^ b).nonzeroBitCount > 16)
        #expect(RequestIdSource.hex(0x0123_4567_89AB_CDEF) == "0123456789abcdef")
        #expect(RequestIdSource.hex(0) == "0000000000000000")
    }

    @Test func twoSourcesWithDifferentSeedsStartDifferently() {
        #expect(RequestIdSource(seed: 1).next() != RequestIdSource(seed: 2).next())
    }
}
