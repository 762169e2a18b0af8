import Foundation
import TernProtocol

/// Segments through the management API: saved audiences with a name per project (create, list,
/// show, edit, delete), and previews (count and a sample) of a saved or unsaved filter. Every
/// filter is checked by ``AudienceExpression/parse(_:path:)`` before it is stored.
///
/// ```swift
/// let segments = SegmentService(store: store)
/// let made = try await segments.create(SegmentSpec(projectId: 1, name: "engaged", filter: filter))
/// let preview = try await segments.preview(id: made.id, sample: 20)
/// ```
public struct SegmentService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    /// Largest sample a preview shows.
    static let maxSample = 100

    /// - Parameters:
    ///   - store: Where segments are kept and counted.
    ///   - clock: The current time in milliseconds since 1970 (tests pass their own).
    public init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    /// Saves a new segment after checking its name and filter.
    ///
    /// - Parameters:
    ///   - spec: The segment's project, name, resource and filter.
    ///   - keyProject: The project of the key that asks, used when `spec` names no project; nil for a
    ///     server-wide key.
    /// - Returns: The saved segment as the API shows it.
    /// - Throws: An ``APIError`` naming the field and the reason: a missing project, name or filter, a
    ///   malformed filter, a resource not in the project, or a name the project already has (409).
    public func create(_ spec: SegmentSpec, keyProject: Int64? = nil) async throws -> SegmentView {
        guard let projectId = spec.projectId ?? keyProject else {
            throw APIError.badRequest("project_id is missing: the project the segment belongs to")
        }
        let name = try Validation.name(spec.name)
        guard let filter = spec.filter else {
            throw APIError.badRequest(
                "filter is missing: e.g. {\"field\": \"session_count\", \"op\": \">=\", \"value\": 3}")
        }
        let text = try Self.filterText(filter)
        let expression = try AudienceExpression.parse(filter)
        let now = clock()
        return try await Self.conflicts(name, projectId) {
            try await store.write { tx in
                try Self.check(tx, projectId: projectId, resourceId: spec.resourceId)
                try EngagementCheck.check(tx, expression, projectId: projectId, path: "filter")
                let stored = try tx.insertSegment(
                    SegmentRecord(
                        id: 0, projectId: projectId, resourceId: spec.resourceId, name: name, filter: text,
                        createdAt: now, updatedAt: now))
                return try Self.view(stored)
            }
        }
    }

    func segments(projectId: Int64?) async throws -> [SegmentView] {
        try await store.read { tx in try tx.segments(projectId: projectId).map(Self.view) }
    }

    func segment(id: Int64) async throws -> SegmentView {
        try await store.read { tx in try Self.view(try Self.find(tx, id)) }
    }

    /// Changes what `spec` gives (a `project_id` must be the segment's own).
    func edit(id: Int64, _ spec: SegmentSpec) async throws -> SegmentView {
        let name = try spec.name.map { text throws(APIError) in try Validation.name(text) }
        let text = try spec.filter.map { json throws(APIError) in try Self.filterText(json) }
        let expression = try spec.filter.map { json throws(APIError) in try AudienceExpression.parse(json) }
        let now = clock()
        return try await store.write { tx in
            var segment = try Self.find(tx, id)
            if let projectId = spec.projectId, projectId != segment.projectId {
                throw APIError.badRequest(
                    "project_id: segment \(id) belongs to project \(segment.projectId); a segment cannot move")
            }
            if let resourceId = spec.resourceId {
                try Self.check(tx, projectId: segment.projectId, resourceId: resourceId)
                segment.resourceId = resourceId
            }
            if let name, name != segment.name {
                if try tx.segments(projectId: segment.projectId).contains(where: { $0.name == name }) {
                    throw APIError.conflict("project \(segment.projectId) already has a segment named \(name)")
                }
                segment.name = name
            }
            if let text, let expression {
                try EngagementCheck.check(tx, expression, projectId: segment.projectId, path: "filter")
                segment.filter = text
            }
            segment.updatedAt = now
            try tx.updateSegment(segment)
            return try Self.view(segment)
        }
    }

    func delete(id: Int64) async throws {
        guard try await store.write({ try $0.deleteSegment(id: id) }) else {
            throw APIError.notFound("segment \(id) does not exist")
        }
    }

    /// The saved segment's count and a sample of up to `sample` of its subscriptions (the default
    /// size when nil; 0 for the count alone) now. Throws a 404 `APIError` for an unknown segment,
    /// a 400 for a sample size out of range.
    public func preview(id: Int64, sample: Int?) async throws -> AudiencePreview {
        let size = try Self.sampleSize(sample)
        let now = clock()
        return try await store.read { tx in
            let segment = try Self.find(tx, id)
            let filter = try AudienceExpression.parse(try Self.filterJSON(segment))
            try EngagementCheck.check(tx, filter, projectId: segment.projectId, path: "segment \(id): filter")
            return try Self.preview(
                tx, AudienceScope(projectId: segment.projectId, resourceId: segment.resourceId), filter, size, now)
        }
    }

    /// An unsaved filter's count and sample now.
    public func preview(_ request: AudiencePreviewRequest) async throws -> AudiencePreview {
        let size = try Self.sampleSize(request.sample)
        let filter = try AudienceExpression.parse(request.filter)
        let now = clock()
        return try await store.read { tx in
            try Self.check(tx, projectId: request.projectId, resourceId: request.resourceId)
            try EngagementCheck.check(tx, filter, projectId: request.projectId, path: "filter")
            return try Self.preview(
                tx, AudienceScope(projectId: request.projectId, resourceId: request.resourceId), filter, size, now)
        }
    }

    static func preview(
        _ tx: any StoreTransaction, _ scope: AudienceScope, _ filter: AudienceExpression, _ size: Int, _ now: Int64
    ) throws -> AudiencePreview {
        let started = DispatchTime.now().uptimeNanoseconds
        let count = try tx.audienceCount(scope, filter: filter, now: now)
        let sample = size == 0 ? [] : try tx.audienceSample(scope, filter: filter, now: now, limit: size)
        let views = try sample.map {
            SubscriptionView(
                $0, profileId: try tx.profile(id: $0.profileId)?.publicId ?? "",
                tags: try tx.tags(subscriptionId: $0.id))
        }
        let took = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
        return AudiencePreview(count: count, sample: views, tookMs: (took * 10).rounded() / 10)
    }

    static func find(_ tx: any StoreTransaction, _ id: Int64) throws -> SegmentRecord {
        guard let segment = try tx.segment(id: id) else { throw APIError.notFound("segment \(id) does not exist") }
        return segment
    }

    /// The project exists and the resource (when given) is a push resource of it.
    static func check(_ tx: any StoreTransaction, projectId: Int64, resourceId: Int64?) throws {
        try AdminService.project(tx, projectId)
        guard let resourceId else { return }
        guard let resource = try tx.resource(id: resourceId), resource.projectId == projectId else {
            throw APIError.notFound("resource_id: resource \(resourceId) is not a resource of project \(projectId)")
        }
        guard resource.isPush else {
            throw APIError.badRequest("resource_id: resource \(resourceId) has no push channel: pick a push resource")
        }
    }

    static func sampleSize(_ sample: Int?) throws(APIError) -> Int {
        let size = sample ?? 20
        guard (0...maxSample).contains(size) else { throw .badRequest("sample must be 0 to \(maxSample), not \(size)") }
        return size
    }

    /// The filter checked, as the canonical JSON text stored.
    static func filterText(_ json: JSONValue) throws(APIError) -> String {
        _ = try AudienceExpression.parse(json)
        return StoredJSON.encode(json)
    }

    static func filterJSON(_ segment: SegmentRecord) throws -> JSONValue {
        guard let json = StoredJSON.decode(segment.filter) else {
            throw StoreError.backend("segment \(segment.id) has an unreadable filter")
        }
        return json
    }

    static func view(_ segment: SegmentRecord) throws -> SegmentView {
        SegmentView(
            id: segment.id, projectId: segment.projectId, resourceId: segment.resourceId, name: segment.name,
            filter: try filterJSON(segment), createdAt: segment.createdAt, updatedAt: segment.updatedAt)
    }

    static func conflicts<T>(_ name: String, _ projectId: Int64, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch StoreError.conflict {
            throw APIError.conflict("project \(projectId) already has a segment named \(name)")
        }
    }
}
