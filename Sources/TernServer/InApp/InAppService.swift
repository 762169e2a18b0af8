import Foundation
import TernProtocol

/// In-app campaigns: the management side (create, edit, start, pause, end, preview, caps,
/// statistics, static resources) here, the devices' side in `InAppService+Devices.swift`. One
/// instance serves both, so a change here reloads what placements answer.
public struct InAppService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64
    let catalog = InAppCatalog()
    let placed = InAppPlacedCounter()

    init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    static let listLimit = 1000

    // MARK: campaigns

    func campaigns(projectId: Int64?, resourceId: Int64?, status: String?) async throws -> [InAppCampaignView] {
        if let status, InAppCampaignStatus(rawValue: status) == nil {
            let known = InAppCampaignStatus.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIError.badRequest("status must be one of \(known), not \(status.prefix(32))")
        }
        return try await store.read { tx in
            try tx.inAppCampaigns(projectId: projectId, resourceId: resourceId, status: status, limit: Self.listLimit)
                .map { try $0.view(staticNames: tx.inAppStaticNames(campaignId: $0.id)) }
        }
    }

    func campaign(_ id: String) async throws -> InAppCampaignView {
        let id = try Self.campaignId(id)
        return try await store.read { tx in
            let record = try Self.record(tx, id)
            return try record.view(staticNames: tx.inAppStaticNames(campaignId: id))
        }
    }

    /// A new campaign, as a draft, after every check.
    func create(_ spec: InAppCampaignSpec) async throws -> InAppCampaignView {
        let schedule = try InAppValidation.check(spec)
        let spec = InAppValidation.normalized(spec)
        let now = clock()
        let view = try await store.write { tx in
            try Self.checkTenancy(tx, spec)
            let record = try tx.insertInAppCampaign(
                InAppCampaignRecord(
                    id: 0, projectId: spec.projectId, resourceId: spec.resourceId, name: spec.name,
                    status: InAppCampaignStatus.draft.rawValue, priority: Int64(spec.priority ?? 0),
                    startsAt: schedule.startsAt, endsAt: schedule.endsAt, definition: try Self.definition(spec),
                    createdAt: now, updatedAt: now))
            return try record.view(staticNames: [])
        }
        await catalog.invalidate()
        return view
    }

    /// Replaces the fields `changes` names (null clears an optional one), checked as on create.
    func edit(_ id: String, changes: [String: JSONValue]) async throws -> InAppCampaignView {
        let id = try Self.campaignId(id)
        let now = clock()
        let view = try await store.write { tx in
            var record = try Self.record(tx, id)
            guard record.campaignStatus != .ended else {
                throw APIError.conflict(
                    "campaign \(id) has ended: an ended campaign cannot be edited; create a new one")
            }
            let stored = try JSONCoders.decoder.decode(
                [String: JSONValue].self, from: try JSONCoders.encoder.encode(try record.spec()))
            if let project = changes["project_id"], project != stored["project_id"] {
                throw InAppValidation.refuse("project_id", "a campaign stays in its project")
            }
            let merged = stored.merging(changes) { _, new in new }
            let raw = try JSONCoders.decoder.decode(InAppCampaignSpec.self, from: try JSONCoders.encoder.encode(merged))
            let schedule = try InAppValidation.check(raw)
            let spec = InAppValidation.normalized(raw)
            try Self.checkTenancy(tx, spec)
            record.resourceId = spec.resourceId
            record.name = spec.name
            record.priority = Int64(spec.priority ?? 0)
            record.startsAt = schedule.startsAt
            record.endsAt = schedule.endsAt
            record.definition = try Self.definition(spec)
            record.updatedAt = now
            try tx.updateInAppCampaign(record)
            return try record.view(staticNames: tx.inAppStaticNames(campaignId: id))
        }
        await catalog.invalidate()
        return view
    }

    /// What `start`, `pause` and `end` do.
    enum Transition: String, Sendable, CaseIterable {
        case start, pause, end

        func next(from status: InAppCampaignStatus) -> InAppCampaignStatus? {
            switch (self, status) {
            case (.start, .draft), (.start, .paused), (.start, .active): .active
            case (.pause, .active), (.pause, .paused): .paused
            case (.end, _): .ended
            default: nil
            }
        }
    }

    func transition(_ id: String, _ transition: Transition) async throws -> InAppCampaignView {
        let id = try Self.campaignId(id)
        let now = clock()
        let view = try await store.write { tx in
            var record = try Self.record(tx, id)
            guard let next = transition.next(from: record.campaignStatus) else {
                throw APIError.conflict(
                    "campaign \(id) is \(record.status): \(transition.rawValue) needs "
                        + (transition == .pause ? "an active campaign" : "a draft or paused campaign"))
            }
            if next != record.campaignStatus {
                record.status = next.rawValue
                record.updatedAt = now
                try tx.updateInAppCampaign(record)
            }
            return try record.view(staticNames: tx.inAppStaticNames(campaignId: id))
        }
        await catalog.invalidate()
        return view
    }

    /// The campaign as a device would receive it, whatever its status.
    func preview(_ id: String) async throws -> InAppPlacement {
        let id = try Self.campaignId(id)
        return try await store.read { tx in
            let record = try Self.record(tx, id)
            return try record.placement(
                smid: "\(id).preview", servesStatic: !(try tx.inAppStaticNames(campaignId: id)).isEmpty)
        }
    }

    func stats(_ id: String) async throws -> InAppStatsView {
        let id = try Self.campaignId(id)
        await placed.flush(store: store, now: clock())
        return try await store.read { tx in
            _ = try Self.record(tx, id)
            return InAppStatsView(campaignId: id, counts: try tx.inAppStats(campaignId: id))
        }
    }

    // MARK: static resources

    /// Stores a static resource of an HTML campaign.
    func putStatic(_ id: String, name: String, contentType: String?, bytes: Data) async throws
        -> InAppCampaignView
    {
        let id = try Self.campaignId(id)
        guard InAppValidation.isStaticName(name) else {
            throw InAppValidation.refuse("name", "use 1 to 128 letters, digits, dots, dashes or underscores")
        }
        guard !bytes.isEmpty else { throw InAppValidation.refuse("body", "send the resource's bytes") }
        guard bytes.count <= InAppValidation.maxStaticBytes else {
            throw APIError(
                status: 413, reason: "body: a static resource is at most \(InAppValidation.maxStaticBytes) bytes")
        }
        let type = contentType.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } ?? Self.contentType(forName: name)
        let now = clock()
        let view = try await store.write { tx in
            let record = try Self.record(tx, id)
            try tx.putInAppStatic(
                campaignId: id, name: name, file: InAppStaticFile(contentType: type, bytes: bytes), now: now)
            return try record.view(staticNames: tx.inAppStaticNames(campaignId: id))
        }
        await catalog.invalidate()
        return view
    }

    /// A static resource, for `GET /api/v1/inapp/static/{campaign_id}/{name}`.
    func staticFile(_ id: String, name: String) async throws -> InAppStaticFile {
        guard let campaignId = Int64(id), campaignId > 0 else {
            throw APIError.notFound("static resource \(id.prefix(32))/\(name.prefix(128)) not found")
        }
        let file = try await store.read { tx in try tx.inAppStatic(campaignId: campaignId, name: name) }
        guard let file else {
            throw APIError.notFound("static resource \(campaignId)/\(name.prefix(128)) not found")
        }
        return file
    }

    /// The content type a static resource gets from its name's extension when none is given.
    public static func contentType(forName name: String) -> String {
        switch name.split(separator: ".").last?.lowercased() ?? "" {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "svg": "image/svg+xml"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "html", "htm": "text/html; charset=utf-8"
        case "woff": "font/woff"
        case "woff2": "font/woff2"
        case "ttf": "font/ttf"
        case "otf": "font/otf"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    // MARK: project caps

    func projectCaps(projectId: Int64) async throws -> InAppCaps {
        try await store.read { tx in
            guard try tx.project(id: projectId) != nil else {
                throw APIError.notFound("project \(projectId) not found")
            }
            return try Self.projectCaps(tx, projectId: projectId)
        }
    }

    func setProjectCaps(projectId: Int64, _ caps: InAppCaps) async throws -> InAppCaps {
        try InAppValidation.check(caps, "caps")
        let now = clock()
        let json = String(decoding: try JSONCoders.encoder.encode(caps), as: UTF8.self)
        try await store.write { tx in
            guard try tx.project(id: projectId) != nil else {
                throw APIError.notFound("project \(projectId) not found")
            }
            try tx.setInAppProjectCaps(projectId: projectId, caps: json, now: now)
        }
        await catalog.invalidate()
        return caps
    }

    static func projectCaps(_ tx: any StoreTransaction, projectId: Int64) throws -> InAppCaps {
        guard let text = try tx.inAppProjectCaps(projectId: projectId) else { return .none }
        return try JSONCoders.decoder.decode(InAppCaps.self, from: Data(text.utf8))
    }

    // MARK: helpers

    static func campaignId(_ text: String) throws(APIError) -> Int64 {
        guard let id = Int64(text), id > 0 else {
            throw APIError.notFound("campaign \"\(text.prefix(32))\" not found: campaign ids are positive integers")
        }
        return id
    }

    static func record(_ tx: any StoreTransaction, _ id: Int64) throws -> InAppCampaignRecord {
        guard let record = try tx.inAppCampaign(id: id) else { throw APIError.notFound("campaign \(id) not found") }
        return record
    }

    static func definition(_ spec: InAppCampaignSpec) throws -> String {
        let definition = InAppDefinition(
            displayType: spec.displayType, anonymous: spec.anonymous ?? false, triggers: spec.triggers,
            audience: spec.audience, caps: spec.caps ?? .none, content: spec.content)
        return String(decoding: try JSONCoders.encoder.encode(definition), as: UTF8.self)
    }

    /// The project exists, the resource is one of its, and the audience's categories are the resource's.
    static func checkTenancy(_ tx: any StoreTransaction, _ spec: InAppCampaignSpec) throws {
        guard try tx.project(id: spec.projectId) != nil else {
            throw APIError.notFound("project \(spec.projectId) not found")
        }
        guard let resource = try tx.resource(id: spec.resourceId) else {
            throw APIError.notFound("resource \(spec.resourceId) not found")
        }
        guard resource.projectId == spec.projectId else {
            throw InAppValidation.refuse(
                "resource_id", "resource \(resource.id) belongs to project \(resource.projectId), not \(spec.projectId)"
            )
        }
        let known = Set(try tx.categories(resourceId: resource.id).map(\.name))
        for (index, name) in (spec.audience?.categories ?? []).enumerated() where !known.contains(name) {
            throw InAppValidation.refuse(
                "audience.categories[\(index)]", "resource \(resource.id) has no category \"\(name.prefix(64))\"")
        }
    }
}
