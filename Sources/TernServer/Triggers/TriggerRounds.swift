import Foundation

/// The rounds of a triggered message with re-entry (`trigger.reentry_after_minutes`). A device
/// gets a message once (its deliveries are one a device and message, the send path's key), so a
/// person's n-th time is sent through the message's round n: round 1 is the message itself, round
/// n an ordinary message row made once, on demand, when the first person's n-th wait ends, as a
/// copy of it (its request, payload and audience) whose id is the message's with `-n`
/// (`m_3fa2c1d9e8b7a6f5-2`). Its own page and statistics, `trigger_round_of` naming the message;
/// the message's view counts its rounds (`trigger_rounds`) and its statistics sum them
/// (`all_rounds`). Cancelling the message cancels its rounds.
enum TriggerRounds {
    /// The highest round: a payload is checked with this round's id (``longestPublicId(_:_:)``);
    /// a person would reach it after 19 years of one goal a minute.
    static let last = 9_999_999

    /// The public id of the message's round `round`: the message's own for round 1.
    static func publicId(of publicId: String, round: Int) -> String {
        round == 1 ? publicId : "\(publicId)-\(round)"
    }

    /// The longest public id a push of the message made from `request` starts with: its last
    /// round's, for a triggered message with re-entry.
    static func longestPublicId(_ publicId: String, _ request: MessageRequest) -> String {
        request.trigger?.reentryAfterMinutes == nil ? publicId : Self.publicId(of: publicId, round: last)
    }

    /// Round `round` of `message`, to be inserted: the message as stored, made now, standing (no
    /// fan-out of its own: ``TriggerRunner`` writes each person's deliveries), not itself a trigger.
    static func copy(of message: StoredMessage, round: Int, now: Int64) -> StoredMessage {
        var copy = message
        copy.id = 0
        copy.publicId = publicId(of: message.publicId, round: round)
        copy.fanOutCursor = 0
        copy.fanOutDone = true
        copy.total = 0
        copy.createdAt = now
        copy.cancelledAt = nil
        copy.sendAt = nil
        copy.triggerEvent = nil
        copy.triggerCancelEvent = nil
        copy.triggerDelay = nil
        copy.triggerReentry = nil
        copy.triggerRoundOf = message.publicId
        copy.triggerRound = round
        return copy
    }

    /// The figures of every round of `message` summed: read across the rounds at once while
    /// their reports are kept (a handful of queries whatever the rounds: the rounds' push ids all
    /// start with the message's id), or round by round (`figures`) once a round's were removed
    /// (`--delivery-retention-days`) and its kept figures count.
    static func totals(
        _ tx: any StoreTransaction, _ message: StoredMessage, figures: (StoredMessage) throws -> MessageStats
    ) throws -> RoundTotals {
        if let totals = try tx.triggerRoundTotals(of: message) { return totals }
        var totals = RoundTotals()
        for round in [message] + (try tx.triggerRounds(of: message.publicId)) {
            totals.add(try figures(round))
        }
        return totals
    }
}

/// A triggered message's rounds' figures summed (`all_rounds` in its statistics): what it sent to
/// everyone, each time. A field is the sum of that field of each round's statistics.
public struct RoundTotals: Codable, Sendable, Equatable {
    /// The rounds made, the message itself included.
    public var rounds = 0
    /// Devices the rounds went to (a delivery each).
    public var targeted: Int64 = 0
    /// Deliveries waiting for their turn or a retry.
    public var queued: Int64 = 0
    /// Deliveries being sent now.
    public var sending: Int64 = 0
    /// Deliveries the provider accepted.
    public var sent: Int64 = 0
    /// Deliveries refused for good or out of retries.
    public var failed: Int64 = 0
    /// Deliveries refused because the token is no longer valid.
    public var invalidToken: Int64 = 0
    /// Devices whose extension reported a round's push.
    public var delivered: Int64 = 0
    /// Devices that opened a round's push.
    public var opened: Int64 = 0
    /// Devices that opened a round's push and then reached a goal naming it.
    public var converted: Int64 = 0
    /// Devices skipped because their person turned the message's category off.
    public var skippedByPreference: Int64 = 0
    /// Devices skipped because their person had reached the project's frequency cap.
    public var skippedByFrequencyCap: Int64 = 0

    /// Adds one round's statistics.
    mutating func add(_ stats: MessageStats) {
        rounds += 1
        targeted += stats.targeted
        queued += stats.queued
        sending += stats.sending
        sent += stats.sent
        failed += stats.failed
        invalidToken += stats.invalidToken
        delivered += stats.delivered
        opened += stats.opened
        converted += stats.converted
        skippedByPreference += stats.skippedByPreference
        skippedByFrequencyCap += stats.skippedByFrequencyCap
    }

    enum CodingKeys: String, CodingKey {
        case rounds, targeted, queued, sending, sent, failed, delivered, opened, converted
        case invalidToken = "invalid_token"
        case skippedByPreference = "skipped_by_preference"
        case skippedByFrequencyCap = "skipped_by_frequency_cap"
    }
}
