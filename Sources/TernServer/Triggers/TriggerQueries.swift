import Foundation

/// A triggered message's waits: one a person and message, due when its goal's delay ends.
public protocol TriggerQueries {
    /// Every project's triggered messages that are not cancelled.
    func activeTriggers() throws -> [Int64: [TriggerDirectory.Entry]]
    /// Starts the person's wait for the message (a wait already running keeps its time).
    func armTrigger(messageId: Int64, profileId: Int64, dueAt: Int64) throws
    /// Ends the person's waits for these messages, unsent.
    func disarmTriggers(messageIds: [Int64], profileId: Int64) throws
    /// Waits due at `now`, oldest first.
    func dueTriggerRuns(now: Int64, limit: Int) throws -> [TriggerRun]
    /// Removes the wait if it is still there and due; false when it is not (taken, or cancelled).
    func takeTriggerRun(messageId: Int64, profileId: Int64, now: Int64) throws -> Bool
    /// Ends every wait for the message (it was cancelled).
    func removeTriggerRuns(messageId: Int64) throws
}

/// One person's wait for a triggered message.
public struct TriggerRun: Sendable, Equatable {
    var messageId: Int64
    var profileId: Int64
}
