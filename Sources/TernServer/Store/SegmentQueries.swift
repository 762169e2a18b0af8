import Foundation
import TernProtocol

/// A saved audience: a name in its project, an optional resource it is limited to, and its filter
/// (the JSON of an ``AudienceExpression``, as the API took it).
public struct SegmentRecord: Sendable, Equatable {
    public var id: Int64
    var projectId: Int64
    var resourceId: Int64?
    var name: String
    /// Canonical JSON text of the filter.
    var filter: String
    var createdAt: Int64
    var updatedAt: Int64
}

/// Where an audience filter looks: the push subscriptions (subscribed, of a known provider, with a
/// token not marked invalid) of one resource, or of every resource of a project.
public struct AudienceScope: Sendable, Equatable {
    var projectId: Int64
    var resourceId: Int64?

    /// - Parameters:
    ///   - projectId: The project whose subscriptions are looked at.
    ///   - resourceId: Only this resource's subscriptions; nil for every resource of the project.
    public init(projectId: Int64, resourceId: Int64?) {
        self.projectId = projectId
        self.resourceId = resourceId
    }
}

/// Segments, and the audience queries a filter compiles into (on both backends, through `FilterSQL`).
public protocol SegmentQueries {
    /// Stores a new segment (its `id` is ignored); a second one with the same name in the project
    /// is a `StoreError.conflict`.
    func insertSegment(_ segment: SegmentRecord) throws -> SegmentRecord
    /// The segment with this id, or nil when there is none.
    ///
    /// - Parameter id: The segment's id.
    func segment(id: Int64) throws -> SegmentRecord?
    /// A project's segments (every project's when nil), by name.
    func segments(projectId: Int64?) throws -> [SegmentRecord]
    /// Saves name, resource, filter and `updated_at`.
    func updateSegment(_ segment: SegmentRecord) throws
    /// Deletes a segment; messages already sent to it keep the filter they were made with.
    ///
    /// - Parameter id: The segment's id.
    /// - Returns: False when there was no such segment.
    func deleteSegment(id: Int64) throws -> Bool

    /// How many push subscriptions in `scope` the filter admits at `now` (all of them when nil).
    func audienceCount(_ scope: AudienceScope, filter: AudienceExpression?, now: Int64) throws -> Int64
    /// `limit` of them, in the order the index gives (a sample, not the first by id: it stops as
    /// soon as it has them).
    func audienceSample(_ scope: AudienceScope, filter: AudienceExpression?, now: Int64, limit: Int) throws
        -> [Subscription]
    /// The next chunk after subscription id `cursor`, for the fan-out (the push rules are checked
    /// again there); their fields and categories as `reading` asks.
    func pushCandidates(
        _ scope: AudienceScope, filter: AudienceExpression?, now: Int64, after cursor: Int64, limit: Int,
        reading: CandidateDetail
    )
        throws -> [AudienceCandidate]
    /// Keeps the profiles of each list `filter`'s engagement conditions read at `now` under message
    /// `messageId`, for its fan-out (the lists of `EngagementLists`, in the same order); a profile
    /// kept already stays once.
    func keepAudienceLists(messageId: Int64, filter: AudienceExpression, now: Int64) throws
    /// Removes message `messageId`'s kept lists (its fan-out is over).
    func forgetAudienceLists(messageId: Int64) throws
    /// Sets the subscription's fields (the built-in ones a device reported merged in) and their
    /// columns, leaving `updated_at` alone: a report is not a new token (an invalid mark stays).
    func setSubscriptionFields(id: Int64, fields: [String: JSONValue]) throws
}
