import Foundation
import TernProtocol

/// `POST /api/v1/admin/segments` (every field but `resource_id` required) and
/// `PATCH /api/v1/admin/segments/{segment_id}` (what is given changes; `resource_id: null` stays).
///
/// ```json
/// {"project_id": 1, "name": "Engaged on 2.x", "resource_id": 1,
///  "filter": {"and": [{"field": "session_count", "op": ">=", "value": 3},
///                     {"field": "app_version", "op": ">=", "value": "2.0"}]}}
/// ```
public struct SegmentSpec: Codable, Sendable, Equatable {
    public var projectId: Int64?
    public var name: String?
    /// Limits the segment to one resource's subscriptions; absent, every resource of the project.
    public var resourceId: Int64?
    /// An ``AudienceExpression``'s JSON.
    public var filter: JSONValue?

    public init(projectId: Int64? = nil, name: String? = nil, resourceId: Int64? = nil, filter: JSONValue? = nil) {
        self.projectId = projectId
        self.name = name
        self.resourceId = resourceId
        self.filter = filter
    }

    enum CodingKeys: String, CodingKey {
        case name, filter
        case projectId = "project_id"
        case resourceId = "resource_id"
    }
}

/// `POST /api/v1/admin/audience/preview`: a filter not saved yet, previewed (the dashboard's
/// builder).
public struct AudiencePreviewRequest: Codable, Sendable, Equatable {
    public var projectId: Int64
    public var resourceId: Int64?
    public var filter: JSONValue
    /// How many subscriptions the sample shows: 0 to 100, default 20.
    public var sample: Int?

    public init(projectId: Int64, resourceId: Int64? = nil, filter: JSONValue, sample: Int? = nil) {
        self.projectId = projectId
        self.resourceId = resourceId
        self.filter = filter
        self.sample = sample
    }

    enum CodingKeys: String, CodingKey {
        case filter, sample
        case projectId = "project_id"
        case resourceId = "resource_id"
    }
}

/// A segment as the management API shows it.
public struct SegmentView: Codable, Sendable, Equatable {
    public var id: Int64
    public var projectId: Int64
    public var resourceId: Int64?
    public var name: String
    public var filter: JSONValue
    public var createdAt: Int64
    public var updatedAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, name, filter
        case projectId = "project_id"
        case resourceId = "resource_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// A preview: how many push subscriptions match now, and a sample of them.
public struct AudiencePreview: Encodable, Sendable {
    /// Subscriptions (subscribed, of a known provider, token not marked invalid) the filter admits.
    public var count: Int64
    /// Up to the sample size of them, in index order, with their fields and tags.
    public var sample: [SubscriptionView]
    /// How long the two queries took, in milliseconds.
    public var tookMs: Double

    enum CodingKeys: String, CodingKey {
        case count, sample
        case tookMs = "took_ms"
    }
}
