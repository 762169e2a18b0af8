import Foundation

/// The messages each person was sent, as a project's frequency cap counts them (``FrequencyCap``).
public protocol FrequencyQueries {
    /// Of `profileIds`, how many messages other than `messageId` each was sent after `since`
    /// (ms since 1970); a profile with none is absent.
    func recentMessageCounts(profileIds: [Int64], since: Int64, excluding messageId: Int64) throws -> [Int64: Int]
    /// Records that the message goes to each of `profileIds`, sent at `at`; a profile it went to
    /// already is kept as it was.
    func recordMessage(_ messageId: Int64, profileIds: [Int64], at: Int64) throws
    /// Removes up to `limit` records of messages sent before `before`; returns how many.
    func pruneMessageRecords(before: Int64, limit: Int) throws -> Int
    /// Adds to the devices a message skipped because their person reached the frequency cap.
    func addSkippedByFrequencyCap(messageId: Int64, count: Int) throws
    /// The devices a message skipped because their person reached the frequency cap.
    func skippedByFrequencyCap(messageId: Int64) throws -> Int64
}
