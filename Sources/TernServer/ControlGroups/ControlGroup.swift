import Foundation
import TernProtocol

/// A message's control group (`control_percent`): a share of the audience's people that gets
/// nothing, whose conversion rate the stats compare with that of the people the message went to,
/// so an operator sees whether the push made people act at all (Braze's and Airship's holdout).
///
/// A person is held out or not by a hash of the message's id and the person's (profile's) id, so
/// all of a person's devices go together, and a fan-out that is retried or resumed after a restart
/// holds out exactly the same people without keeping any state of its own to decide it.
///
/// ```swift
/// let control = ControlGroup(request)          // nil without control_percent
/// control?.holdsOut(profileId: 7, messageId: 42)
/// ```
struct ControlGroup: Sendable, Equatable {
    /// The share of the people held out, in percent.
    var percent: Int
    /// The goal (`event_name`) whose people count as converted.
    var goal: String
    /// How long after the message's start a goal counts, in hours.
    var windowHours: Int

    /// The shares a control group may take: a half at most, so that most of the audience still gets it.
    static let percents = 1...50
    /// The windows a conversion may be counted in: an hour to 30 days.
    static let windows = 1...720
    /// The window when the request leaves it out: three days.
    static let defaultWindowHours = 72

    /// The message's control group; nil for a message without one.
    init?(_ request: MessageRequest) {
        guard let percent = request.controlPercent, let goal = request.conversionGoal else { return nil }
        self.percent = percent
        self.goal = goal
        self.windowHours = request.conversionWindowHours ?? Self.defaultWindowHours
    }

    /// The window's length in milliseconds.
    var window: Int64 { Int64(windowHours) * 3_600_000 }

    /// Whether the person `profileId` is in message `messageId`'s control group.
    func holdsOut(profileId: Int64, messageId: Int64) -> Bool {
        Self.bucket(profileId: profileId, messageId: messageId) < percent
    }

    /// A person's bucket for a message, 0 to 99: SplitMix64's finalizer of the two ids, so that
    /// consecutive profile ids spread evenly and a person is not held out of every message alike.
    /// Its own arithmetic (not Swift's `Hasher`, seeded per process): the same on every node, in
    /// every release.
    static func bucket(profileId: Int64, messageId: Int64) -> Int {
        var z = UInt64(bitPattern: profileId) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(bitPattern: messageId)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % 100)
    }

    /// Checks the control group's fields and refuses what it cannot measure: a send with no
    /// audience at its start to split (a test, a trigger, a recurring message), a push nobody acts
    /// on (a Live Activity's, a background push), and an A/B test of part of the audience, whose
    /// winner would hold out other people.
    static func check(_ request: MessageRequest) throws(APIError) {
        guard let percent = request.controlPercent else {
            if request.conversionGoal != nil {
                throw .badRequest(
                    "conversion_goal goes with control_percent: add control_percent (1 to 50) to hold out a share of "
                        + "the audience and compare its conversions, or leave conversion_goal out")
            }
            if request.conversionWindowHours != nil {
                throw .badRequest(
                    "conversion_window_hours goes with control_percent: add control_percent (1 to 50), or leave "
                        + "conversion_window_hours out")
            }
            return
        }
        guard percents.contains(percent) else {
            throw .badRequest(
                "control_percent must be \(percents.lowerBound) to \(percents.upperBound) (the share of people held "
                    + "out), not \(percent); leave it out to send to everyone")
        }
        guard let goal = request.conversionGoal else {
            throw .badRequest(
                "control_percent needs conversion_goal: the goal (event_name, e.g. purchase) whose people count as "
                    + "converted")
        }
        try Validation.text(goal, field: "conversion_goal")
        if let hours = request.conversionWindowHours, !windows.contains(hours) {
            throw .badRequest(
                "conversion_window_hours must be \(windows.lowerBound) to \(windows.upperBound) (30 days), not "
                    + "\(hours); leave it out for \(defaultWindowHours)")
        }
        let refused: [(field: String, given: Bool, why: String)] = [
            ("test", request.test == true, "a test send goes to the project's test devices, with nobody to hold out"),
            (
                "trigger", request.trigger != nil,
                "a triggered message's people come one by one, with no audience at its start to split"
            ),
            (
                "repeat", request.recurrence != nil,
                "each copy of a recurring message is a message of its own; give each one-off message its control group"
            ),
            (
                "live_activity", request.liveActivity != nil,
                "a Live Activity's push updates what a person follows, not something to act on"
            ),
            (
                "push_type background", request.pushType == PushType.background.rawValue,
                "a background push shows nothing for a person to act on"
            ),
            (
                "test_audience_percent", request.testAudiencePercent != nil,
                "its winner, a message of its own, would hold out other people; split the whole audience among the "
                    + "variants, or leave control_percent out"
            ),
        ]
        if let refusal = refused.first(where: \.given) {
            throw .badRequest("control_percent does not go with \(refusal.field): \(refusal.why)")
        }
    }
}
