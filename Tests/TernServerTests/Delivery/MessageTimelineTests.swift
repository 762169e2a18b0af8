import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `GET …/messages/{id}/timeline`: each figure in the UTC bucket of its time (an outcome's, a
/// device's clamped to the message's start and the server's receipt, a push's first goal's), the
/// empty buckets between with zeros, the bucket chosen by the span when none is asked, too many
/// points refused with the bucket to use, and the hours kept once the rows per device go.
@Suite struct MessageTimelineTests {
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    /// A sent message with a figure of each kind, at times the test set; `start`: the hour it began
    /// in (it went a minute and under a second after). Hours from `start`:
    /// 0: sent 2 (a run of first attempts), failed 1, opened 1 (the device's clock far behind,
    ///    held to the message's start);
    /// 1: delivered 1, converted 1 (the push's first goal; its second, in hour 2, is not another);
    /// 2: nothing;
    /// 3: sent 1 (a retry, an appended outcome), delivered 1 (the device's clock hours ahead, held
    ///    to when the server got the report).
    struct Sent {
        let harness: DeliveryHarness
        let id: String
        let start: Int64
        let sentAt: Int64
        let pushIds: [String: String]

        static func make(_ factory: StoreFactory) async throws -> Sent {
            let harness = try await DeliveryHarness.make(store: factory, frozenClock: true)
            _ = try await harness.server.admin(
                "POST", "/projects/\(harness.server.bootstrap.projectId)/pixels", json: ["sid": "shop"])
            for token in ["d0", "d1", "d2", "d3"] { try await harness.subscribe(token) }
            harness.sender.script("d1", [.failed(reason: "BadTopic")])
            harness.sender.script(
                "d2", [.retry(after: nil, reason: "TooManyRequests"), .sent(providerMessageId: "p2")])
            // The message goes a minute (and under a second) into an hour.
            let now = harness.clock.milliseconds
            harness.clock.advance(seconds: Double((hour - now % hour + minute + 999) / 1000))
            let sentAt = harness.clock.milliseconds
            let start = sentAt / hour * hour
            let id = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
            while try await harness.engine.drain() > 0 {}
            harness.clock.advance(seconds: 3 * 3600)
            while try await harness.engine.drain() > 0 {}
            var pushIds: [String: String] = [:]
            for push in harness.sender.pushes { pushIds[push.token] = try MessageVariantTests.shown(push).pushId }
            let reports: [[String: Any]] = [
                ["message_id": pushIds["d0"] ?? "", "type": "open", "time": 2000],
                ["message_id": pushIds["d0"] ?? "", "type": "delivery", "time": sentAt + 65 * minute],
                ["message_id": pushIds["d3"] ?? "", "type": "delivery", "time": sentAt + 10 * hour],
            ]
            let reply = try await harness.server.sdk(.eventPush, ["events": reports])
            try #require(reply.status == 200, "\(reply.errorText)")
            let goals = try await harness.server.sdk(
                .eventPost,
                [
                    "events": [70, 150].map { minutes in
                        [
                            "sid": "shop", "client_id": "c-\(minutes)", "event_name": "purchase",
                            "send_message_id": pushIds["d0"] ?? "", "time": sentAt + Int64(minutes) * minute,
                        ] as [String: Any]
                    }
                ])
            try #require(goals.status == 200, "\(goals.errorText)")
            return Sent(harness: harness, id: id, start: start, sentAt: sentAt, pushIds: pushIds)
        }

        func timeline(_ bucket: String? = nil) async throws -> InProcessServer.Reply {
            try await harness.server.admin(
                "GET", "/messages/\(id)/timeline", query: bucket.map { ["bucket": $0] } ?? [:])
        }
    }

    /// A point as `[at, sent, failed, delivered, opened, converted]`.
    static func rows(_ reply: InProcessServer.Reply) -> [[Int64]] {
        (reply.json["points"] as? [[String: Any]] ?? []).map { point in
            ["at", "sent", "failed", "delivered", "opened", "converted"].map { point.int($0) }
        }
    }

    @Test(arguments: StoreFactory.all)
    func eachFigureIsInTheBucketOfItsTimeAndTheGapsAreZeros(factory: StoreFactory) async throws {
        let sent = try await Sent.make(factory)
        defer { Task { await sent.harness.finish() } }
        let start = sent.start
        let hours = try await sent.timeline("hour")
        try #require(hours.status == 200, "\(hours.errorText)")
        #expect(hours.json["message_id"] as? String == sent.id && hours.json["bucket"] as? String == "hour")
        #expect(
            Self.rows(hours) == [
                [start, 2, 1, 0, 1, 0],
                [start + Self.hour, 0, 0, 1, 0, 1],
                [start + 2 * Self.hour, 0, 0, 0, 0, 0],
                [start + 3 * Self.hour, 1, 0, 1, 0, 0],
            ], "\(hours.json)")
        // The same figures as the funnel's.
        let stats = try await sent.harness.stats(sent.id)
        #expect(stats.int("sent") == 3 && stats.int("failed") == 1 && stats.int("delivered") == 2)
        #expect(stats.int("opened") == 1 && stats.int("converted") == 1)

        // Three hours and a minute: minutes, from the one it went in to the one of the retry.
        let chosen = try await sent.timeline()
        #expect(chosen.json["bucket"] as? String == "minute")
        let minutes = Self.rows(chosen)
        #expect(minutes.count == 181, "\(minutes.count)")
        #expect(minutes.first == [start + Self.minute, 2, 1, 0, 1, 0])
        #expect(minutes.last == [start + 3 * Self.hour + Self.minute, 1, 0, 1, 0, 0])
        #expect(minutes.filter { $0.dropFirst().allSatisfy { $0 == 0 } }.count == 181 - 4)

        let days = Self.rows(try await sent.timeline("day"))
        let firstDay = start / Self.day * Self.day
        #expect(days.first?.first == firstDay)
        #expect(days.count == Int(((start + 3 * Self.hour) / Self.day * Self.day - firstDay) / Self.day) + 1)
        #expect((1...5).map { index in days.map { $0[index] }.reduce(0, +) } == [3, 1, 2, 1, 1])
    }

    /// More than 2,000 points is a 400 naming the bucket to use; left out, a coarser one is chosen.
    @Test(arguments: StoreFactory.all)
    func tooManyPointsAreRefusedWithTheBucketToUse(factory: StoreFactory) async throws {
        let sent = try await Sent.make(factory)
        defer { Task { await sent.harness.finish() } }
        // An open 40 hours later: 2,400 minutes and more.
        sent.harness.clock.advance(seconds: 40 * 3600)
        let now = sent.harness.clock.milliseconds
        let reply = try await sent.harness.server.sdk(
            .eventPush, ["events": [["message_id": sent.pushIds["d3"] ?? "", "type": "open", "time": now]]])
        try #require(reply.status == 200)
        let refused = try await sent.timeline("minute")
        #expect(refused.status == 400)
        #expect(
            refused.errorText.contains("bucket=minute") && refused.errorText.contains("use bucket=hour or bucket=day"),
            "\(refused.errorText)")
        let chosen = try await sent.timeline()
        #expect(chosen.status == 200 && chosen.json["bucket"] as? String == "hour")
        #expect(Self.rows(chosen).count == Int((now / Self.hour * Self.hour - sent.start) / Self.hour) + 1)
    }

    @Test(arguments: StoreFactory.all)
    func aBadBucketAnUnknownMessageAndAnotherProjectsKeyAreRefused(factory: StoreFactory) async throws {
        let sent = try await Sent.make(factory)
        defer { Task { await sent.harness.finish() } }
        let server = sent.harness.server
        let week = try await sent.timeline("week")
        #expect(
            week.status == 400 && week.errorText.contains("bucket must be minute, hour or day"), "\(week.errorText)")
        let unknown = try await server.admin("GET", "/messages/m_nope/timeline")
        #expect(unknown.status == 404 && unknown.errorText.contains("m_nope"), "\(unknown.errorText)")
        // Another project's read key: answered as the stats answer it, and not a 200.
        let other = try await server.admin("POST", "/projects", json: ["name": "other"])
        let otherId = try #require(other.json["id"] as? Int)
        let made = try await server.admin("POST", "/keys", json: ["project_id": otherId, "role": "read", "name": "r"])
        let key = try #require(made.json["secret"] as? String, "\(made.json)")
        func get(_ path: String) async -> InProcessServer.Reply {
            await server.send(
                "GET", "/api/v1/admin/messages/\(sent.id)/\(path)", headers: ["Authorization": "Bearer \(key)"])
        }
        let stats = await get("stats")
        let timeline = await get("timeline")
        #expect([403, 404].contains(timeline.status) && timeline.status == stats.status, "\(timeline.status)")
        // The message's own project's read key may read it.
        let own = try await server.admin(
            "POST", "/keys", json: ["project_id": server.bootstrap.projectId, "role": "read", "name": "own"])
        let ownKey = try #require(own.json["secret"] as? String)
        let allowed = await server.send(
            "GET", "/api/v1/admin/messages/\(sent.id)/timeline", headers: ["Authorization": "Bearer \(ownKey)"])
        #expect(allowed.status == 200)
    }

    /// Once `--delivery-retention-days` removes the rows per device, the timeline reads the hours
    /// kept: the same points at hour and day buckets; minutes are refused with what to use.
    @Test(arguments: StoreFactory.all)
    func theTimelineOutlivesTheRowsPerDevice(factory: StoreFactory) async throws {
        let sent = try await Sent.make(factory)
        defer { Task { await sent.harness.finish() } }
        let before = (hour: try await sent.timeline("hour"), day: try await sent.timeline("day"))
        try #require(before.hour.status == 200 && before.day.status == 200)
        let later = sent.harness.clock.milliseconds + Self.day + Self.minute
        var retention = DeliveryRetention(
            store: sent.harness.server.store, days: 1, logger: Logger(minimum: .error, sink: { _ in }),
            clock: { later })
        retention.stepRows = 2
        #expect(try await retention.pass().messages == 1)
        #expect(try await sent.harness.stats(sent.id)["deliveries_removed_at"] != nil)
        let after = (hour: try await sent.timeline("hour"), day: try await sent.timeline("day"))
        #expect(Self.rows(after.hour) == Self.rows(before.hour) && Self.rows(after.hour).count == 4)
        #expect(Self.rows(after.day) == Self.rows(before.day))
        let minutes = try await sent.timeline("minute")
        #expect(minutes.status == 400 && minutes.errorText.contains("use bucket=hour"), "\(minutes.errorText)")
        let chosen = try await sent.timeline()
        #expect(chosen.json["bucket"] as? String == "hour" && Self.rows(chosen) == Self.rows(before.hour))
    }

    @Test func theBucketIsChosenByTheSpan() {
        let hour = Self.hour
        #expect(TimelineBucket.chosen(span: 0, minuteKept: true) == .minute)
        #expect(TimelineBucket.chosen(span: 6 * hour, minuteKept: true) == .minute)
        #expect(TimelineBucket.chosen(span: 6 * hour + 1, minuteKept: true) == .hour)
        #expect(TimelineBucket.chosen(span: 0, minuteKept: false) == .hour)
        #expect(TimelineBucket.chosen(span: 14 * Self.day, minuteKept: true) == .hour)
        #expect(TimelineBucket.chosen(span: 14 * Self.day + 1, minuteKept: false) == .day)
    }

    @Test func pointsAreSummedIntoLongerBucketsAndTheGapsFilled() {
        var a = TimelinePoint(at: 2 * Self.minute)
        a.sent = 1
        var b = TimelinePoint(at: Self.hour + 5 * Self.minute)
        b.opened = 2
        var c = TimelinePoint(at: 3 * Self.minute)
        c.failed = 4
        let hours = TimelinePoints.filled([b, a, c], bucket: .hour)
        #expect(hours.map(\.row) == [[0, 1, 4, 0, 0, 0], [Self.hour, 0, 0, 0, 2, 0]])
        let minutes = TimelinePoints.filled([a, c], bucket: .minute)
        #expect(minutes.map(\.row) == [[2 * Self.minute, 1, 0, 0, 0, 0], [3 * Self.minute, 0, 4, 0, 0, 0]])
        #expect(TimelinePoints.filled([a, b], bucket: .minute).count == 64)
        #expect(TimelinePoints.filled([], bucket: .day).isEmpty)
    }
}
