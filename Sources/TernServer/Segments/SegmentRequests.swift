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
    var projectId: Int64?
    var name: String?
    /// Limits the segment to one resource's subscriptions; absent, every resource of the project.
    var resourceId: Int64?
    /// An ``AudienceExpression``'s JSON.
    var filter: JSONValue?

    /// A segment to create, or the changes to one (a property left nil is not changed).
    ///
    /// - Parameters:
    ///   - projectId: The project it belongs to; the key's project when nil.
    ///   - name: Its name, unique in the project.
    ///   - resourceId: The resource it is limited to; nil for every resource of the project.
    ///   - filter: Its ``AudienceExpression`` as JSON.
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
    var projectId: Int64
    var resourceId: Int64?
    var filter: JSONValue
    /// How many subscriptions the sample shows: 0 to 100, default 20.
    var sample: Int?

    /// A preview of an unsaved filter.
    ///
    /// - Parameters:
    ///   - projectId: The project whose subscriptions are counted.
    ///   - resourceId: Only subscriptions of this resource; nil for the whole project.
    ///   - filter: The ``AudienceExpression`` as JSON.
    ///   - sample: How many matching subscriptions to list as well; none when nil.
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
    var projectId: Int64
    var resourceId: Int64?
    var name: String
    var filter: JSONValue
    var createdAt: Int64
    var updatedAt: Int64

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
    var sample: [SubscriptionView]
    /// How long the two queries took, in milliseconds.
    var tookMs: Double

    enum CodingKeys: String, CodingKey {
        case count, sample
        case tookMs = "took_ms"
    }
}
