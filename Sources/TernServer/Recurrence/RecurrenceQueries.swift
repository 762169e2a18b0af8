import Foundation

/// Recurring messages: which are due, and each one's next time, moved once.
public protocol RecurrenceQueries {
    /// Recurring messages not cancelled whose next time is at or before `now`, soonest first.
    func messagesDueToRecur(now: Int64, limit: Int) throws -> [StoredMessage]
    /// Moves the message's next time from `from` to `to` (nil: it has none left) if its request is
    /// still `content`; false when another runner moved it first (the copy for `from` is then that
    /// runner's) or an edit replaced the request since it was read (the next pass copies the new one).
    func advanceRecurrence(messageId: Int64, from: Int64, to: Int64?, content: String) throws -> Bool
    /// The message has no next time (it was cancelled).
    func stopRecurrence(messageId: Int64) throws
}
