import Foundation
import TernProtocol

/// How a message's audience uses filters: a `segment` audience takes its segment's resource and
/// filter when the message is made (later edits of the segment do not change a message already
/// made), a `resource` audience may carry a filter of its own; both are looked up with the
/// filter compiled to SQL, and refused when they match nothing.
enum SegmentAudience {
    /// The request with the segment's resource and filter in its audience (and its project when
    /// the request names none); other audiences as they are.
    static func resolve(_ tx: any StoreTransaction, _ request: MessageRequest, keyProject: Int64?) throws
        -> MessageRequest
    {
        guard request.audience.type == .segment else { return request }
        let id = request.audience.segmentId ?? 0
        guard let segment = try tx.segment(id: id), keyProject == nil || keyProject == segment.projectId else {
            throw APIError.notFound(
                "segment \(id) does not exist\(keyProject.map { " in project \($0)" } ?? "") (audience.segment_id)")
        }
        if let projectId = request.projectId, projectId != segment.projectId {
            throw APIError.badRequest(
                "segment \(id) is a segment of project \(segment.projectId), not of project_id \(projectId)")
        }
        var resolved = request
        resolved.projectId = segment.projectId
        resolved.audience.resourceId = segment.resourceId
        resolved.audience.filter = try SegmentService.filterJSON(segment)
        return resolved
    }

    /// Where a filtered audience looks and its filter; nil for an audience without a filter.
    static func filtered(_ audience: MessageAudience, projectId: Int64) throws -> (AudienceScope, AudienceExpression)? {
        guard audience.type == .resource || audience.type == .segment, let json = audience.filter else { return nil }
        return (
            AudienceScope(projectId: projectId, resourceId: audience.resourceId),
            try AudienceExpression.parse(json, path: "audience.filter")
        )
    }

    /// ``filtered(_:projectId:)`` after ``EngagementCheck``: a 400 for an engagement condition on a
    /// message that is unknown, of another project or past retention.
    static func checked(_ tx: any StoreTransaction, _ audience: MessageAudience, projectId: Int64) throws
        -> (AudienceScope, AudienceExpression)?
    {
        guard let (scope, filter) = try filtered(audience, projectId: projectId) else { return nil }
        let path = audience.type == .segment ? "segment \(audience.segmentId ?? 0): filter" : "audience.filter"
        try EngagementCheck.check(tx, filter, projectId: projectId, path: path)
        return (scope, filter)
    }

    /// Refuses a filtered audience that matches no subscription now (409), with what to change.
    static func requireMatches(_ tx: any StoreTransaction, _ audience: MessageAudience, projectId: Int64, now: Int64)
        throws
    {
        guard let (scope, filter) = try checked(tx, audience, projectId: projectId) else { return }
        guard try tx.audienceCount(scope, filter: filter, now: now) == 0 else { return }
        let what =
            audience.type == .segment
            ? "segment \(audience.segmentId ?? 0)" : "audience.filter on resource \(audience.resourceId ?? 0)"
        throw APIError.conflict(
            "\(what) matches no push subscription now: nothing was sent (preview it with "
                + "POST /api/v1/admin/audience/preview, or change the filter)")
    }
}
