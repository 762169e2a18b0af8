import Foundation
import Testing

@testable import TernServer

/// `MessageStats` keeps its delivery counts in `DeliveryCounts` and writes them flat, as the API
/// document has them; `tern send` reads them back.
@Suite struct MessageStatsCodingTests {
    @Test func statsAreWrittenFlatAndReadBack() throws {
        var stats = MessageStats(
            messageId: "m_1",
            counts: DeliveryCounts(
                total: 10, byStatus: [.queued: 1, .sending: 2, .sent: 4, .failed: 2, .invalidToken: 1]),
            failedByReason: ["BadTopic": 2], delivered: 3, opened: 1, done: false, skippedByPreference: 5)
        stats.skippedByFrequencyCap = 2
        stats.converted = 1
        let data = try JSONEncoder().encode(stats)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "message_id", "targeted", "queued", "sending", "sent", "failed", "failed_by_reason", "invalid_token",
                "delivered", "opened", "converted", "done", "skipped_by_preference", "skipped_by_frequency_cap",
            ])
        #expect(object["converted"] as? Int == 1)
        #expect(object["targeted"] as? Int == 10)
        #expect(object["sending"] as? Int == 2)
        #expect(object["invalid_token"] as? Int == 1)
        #expect(
            object["skipped_by_preference"] as? Int == 5, "the funnel's preference skips, as the API document has them")
        #expect(object["skipped_by_frequency_cap"] as? Int == 2)
        #expect(try JSONDecoder().decode(MessageStats.self, from: data) == stats)
    }
}
