import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Prints how long `GET …/stats` of a message with a control group takes at 100,000 people, on
/// each store: the people recorded by a real fan-out, 200,000 goals of the project (a third named
/// `purchase`, spread over a week around the send). Asserts nothing about time; runs only with
/// `TERN_MEASURE_CONTROL_GROUP=1` (it seeds for a minute or more).
@Suite struct ControlGroupStatsMeasure {
    static let people = 100_000
    static let goals = 200_000

    @Test(
        .enabled(if: ProcessInfo.processInfo.environment["TERN_MEASURE_CONTROL_GROUP"] == "1"),
        arguments: StoreFactory.all)
    func statsReadAtOneHundredThousandPeople(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let resourceId = harness.resourceId
        let projectId = harness.server.bootstrap.projectId
        var profiles: [Int64] = []
        for batch in stride(from: 0, to: Self.people, by: 10_000) {
            profiles += try await harness.server.store.write { tx in
                let dbId = try #require(try tx.resource(id: resourceId)).dbId
                return try (batch..<batch + 10_000).map { person in
                    let profile = try tx.createProfile(dbId: dbId, publicId: "person-\(person)", now: 1)
                    _ = try tx.insertSubscription(
                        SubscriptionValues(
                            profileId: profile.id, resourceId: resourceId, channel: .push, provider: .apns,
                            token: "t\(person)", status: .subscribed, hashId: "t\(person)", clientTime: 1), now: 1)
                    return profile.id
                }
            }
        }
        let sendAt = ServerClock.milliseconds() + 3_600_000
        let id = try await harness.send(
            ["type": "resource", "resource_id": resourceId],
            extra: ["control_percent": 10, "conversion_goal": "purchase", "send_at": sendAt])
        var done = false
        while !done {
            done = try await harness.server.store.write { tx in
                let message = try MessageService.find(tx, id)
                try FanOut().step(tx, message: message, now: sendAt)
                return try MessageService.find(tx, id).fanOutDone
            }
        }
        let owners = profiles
        for batch in stride(from: 0, to: Self.goals, by: 20_000) {
            try await harness.server.store.write { tx in
                var generator = SystemRandomNumberGenerator()
                let pixel =
                    try tx.pixels(projectId: projectId).first
                    ?? tx.createPixel(projectId: projectId, sid: "shop", name: "Shop", now: 1)
                for index in batch..<batch + 20_000 {
                    let time = sendAt - 3 * 86_400_000 + Int64.random(in: 0..<(7 * 86_400_000), using: &generator)
                    try tx.insertGoal(
                        GoalRecord(
                            pixelId: pixel.id, profileId: owners[index % owners.count], resourceId: nil,
                            clientId: "c", eventName: index % 3 == 0 ? "purchase" : "view", sendMessageId: nil,
                            payload: nil, matching: nil, matchingType: nil, utm: nil, time: time, receivedAt: time))
                }
            }
        }
        var times: [Double] = []
        var stats: [String: Any] = [:]
        for _ in 0..<5 {
            let start = ContinuousClock.now
            stats = try await harness.stats(id)
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        let group = try #require(stats["control_group"] as? [String: Any])
        print(
            "control group stats, \(factory.name), \(Self.people) people, \(Self.goals) goals: median "
                + "\(String(format: "%.1f", times.sorted()[2])) ms (runs \(times.map { String(format: "%.1f", $0) })); "
                + "\(group["control"] ?? "") \(group["sent"] ?? "")")
    }
}
