import Foundation

/// A triggered message's waits: one a person and message, due when its goal's delay ends; for a
/// message with re-entry, the person's row stays between waits (their round, when it last went).
public protocol TriggerQueries {
    /// Every project's triggered messages that are not cancelled.
    func activeTriggers() throws -> [Int64: [TriggerDirectory.Entry]]
    /// Starts the person's wait for the message (a wait already running keeps its time). After the
    /// message went to them, only a message with re-entry starts another, and only when it went
    /// at or before `wentBefore` (now less the re-entry time); nil: it never starts one.
    func armTrigger(messageId: Int64, profileId: Int64, dueAt: Int64, wentBefore: Int64?) throws
    /// Ends the person's waits for these messages, unsent.
    func disarmTriggers(messageIds: [Int64], profileId: Int64) throws
    /// A device moved at log-in from `source`, its own anonymous profile, to `target`, and left
    /// `source` without a subscribed push subscription: `source`'s waits for these messages end
    /// there and start on `target` with their due time (not restarted), their round and when the
    /// message last went to `source`. A message whose wait `target` already runs, or whose row
    /// there forbids re-entry yet (as ``armTrigger(messageId:profileId:dueAt:wentBefore:)`` with
    /// now less the re-entry time), keeps `target`'s: `source`'s wait is dropped, so a person never
    /// gets two sends of one wait. A wait a runner took meanwhile stays taken. Answers how many
    /// waits `target` took.
    func moveTriggerWaits(from source: Int64, to target: Int64, triggers: [TriggerDirectory.Entry], now: Int64)
        throws -> Int
    /// Waits due at `now`, oldest first.
    func dueTriggerRuns(now: Int64, limit: Int) throws -> [TriggerRun]
    /// Ends the wait if it is still there and due, and answers the round it sends (1 without
    /// re-entry); nil when it is not there (taken, or cancelled). `keep`: the person's row stays
    /// (a message with re-entry), else it goes.
    func takeTriggerRun(messageId: Int64, profileId: Int64, now: Int64, keep: Bool) throws -> Int?
    /// The message went to the person: their next wait sends the next round, and their re-entry
    /// time counts from `now`.
    func noteTriggerWent(messageId: Int64, profileId: Int64, now: Int64) throws
    /// Ends every wait for the message (it was cancelled).
    func removeTriggerRuns(messageId: Int64) throws
    /// Round `round` (2 and on) of the triggered message: the one made already, else one made now
    /// (a copy of it, `<id>-<round>`); of several runners, one makes it.
    func triggerRound(of message: StoredMessage, round: Int, now: Int64) throws -> StoredMessage
    /// The rounds made of the triggered message `publicId` (not the message itself), in order.
    func triggerRounds(of publicId: String) throws -> [StoredMessage]
    /// How many rounds the triggered message `publicId` has, itself included.
    func triggerRoundCount(of publicId: String) throws -> Int
    /// The figures of every round of the triggered message summed, read across the rounds at once;
    /// nil when a round's reports were removed (its kept figures count instead).
    func triggerRoundTotals(of message: StoredMessage) throws -> RoundTotals?
}

/// One person's wait for a triggered message.
public struct TriggerRun: Sendable, Equatable {
    var messageId: Int64
    var profileId: Int64
}
