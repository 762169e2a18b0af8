import Foundation
import TernProtocol

/// `GET /api/v1/admin/resources/{resource_id}/devices/export?after=CURSOR&limit=N`: a resource's
/// push subscriptions, a page at a time, each in the very shape `devices/import` takes, so that a
/// page's `devices` (or `tern export devices`' file) is an import of the same devices into another
/// resource or server.
///
/// ```json
/// {"devices": [
///   {"provider": "ios-apns", "subscription_id": "<token>", "status": "subscribed", "time": 1733580000000,
///    "matching": {"email": "ann@example.com"}, "profile_fields": {"_email": "ann@example.com", "_fname": "Ann"},
///    "custom_fields": {"_os": "IOS"}, "cats": [{"name": "news", "active": true}], "apns_environment": "sandbox",
///    "tags": {"plan": "gold"}, "is_test": true}
/// ], "next": "d1.7.1042"}
/// ```
///
/// A key that may import (`full`, or the server key) may export: the pages hold every token and
/// every profile field of the resource's people, more than a `read` key sees one profile at a time,
/// and each page is written to the audit log as a change is.
///
/// `matching` keeps a person's devices together wherever the file is imported, since row ids and
/// profile ids are the server's own: the profile's `_email`, else its `_phone`, else its
/// `_external_id` (the id an identity binding gave it), else its `_tern_profile` (the id a former
/// export gave it), else, for a profile with more than one push device, `_tern_profile` set to its
/// public id here. A profile with one push device and none of these has no `matching`: imported, the
/// device has a profile of its own, as a device that subscribed with the rToken alone does.
struct DeviceExport: Sendable {
    let store: any Store

    /// The most devices a page (and the default): the import's most a request.
    static let maxLimit = DeviceImport.maxDevices
    /// The profile field that holds the id of the profile a device was exported from, when nothing
    /// else names its person.
    static let originField = "_tern_profile"

    /// One page: the devices, and the cursor of the next page (nil after the last).
    struct Page: Encodable, Sendable {
        var devices: [DeviceImport.Device]
        var next: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(devices, forKey: .devices)
            try container.encode(next, forKey: .next)  // null at the end, not absent
        }

        enum CodingKeys: String, CodingKey {
            case devices, next
        }
    }

    /// The route, for a key that may import into the resource (`full`).
    func routes(admin: AdminService) -> [Route] {
        let service = self
        return RouteGroup([admin.check(.configure, .resource)]) {
            Route.json("GET", "\(AdminRoutes.prefix)/resources/{resource_id}/devices/export") { request in
                let resourceId = try request.integer("resource_id")
                let query = request.http.query
                return try await service.page(
                    resourceId: resourceId, after: try Cursor.parse(query["after"], resourceId: resourceId),
                    limit: try Self.limit(query["limit"]))
            }
        }
        .all
    }

    static func limit(_ text: String?) throws(APIError) -> Int {
        guard let text else { return maxLimit }
        guard let limit = Int(text), (1...maxLimit).contains(limit) else {
            throw .badRequest("limit \"\(text.prefix(32))\" is not valid: send a whole number from 1 to \(maxLimit)")
        }
        return limit
    }

    /// The resource's devices after `cursor` (a subscription's row id; 0 for the first page).
    ///
    /// - Throws: 404 for a resource that does not exist, 400 for one without a push channel.
    func page(resourceId: Int64, after cursor: Int64, limit: Int) async throws -> Page {
        try await store.read { tx in
            guard let resource = try tx.resource(id: resourceId) else {
                throw APIError.notFound("resource \(resourceId) does not exist")
            }
            guard resource.isPush else {
                throw APIError.badRequest("resource \(resourceId) has no push channel: it has no devices to export")
            }
            // One more than the page, to know whether another page follows.
            let rows = try tx.pushSubscriptions(resourceId: resourceId, after: cursor, limit: limit + 1)
            let page = rows.prefix(limit)
            let profileIds = page.map(\.profile.id)
            let fields = try tx.profileFields(profileIds: profileIds)
            let unnamed = profileIds.filter { Self.namedMatching(fields[$0] ?? [:]) == nil }
            let counts = try tx.pushSubscriptionCounts(profileIds: unnamed)
            let tags = try tx.tags(subscriptionIds: page.map(\.subscription.id))
            let devices = page.map { row in
                let own = fields[row.profile.id] ?? [:]
                return Self.device(
                    row.subscription, profileFields: own, tags: tags[row.subscription.id] ?? [:],
                    matching: Self.matching(own, publicId: row.profile.publicId, devices: counts[row.profile.id] ?? 1))
            }
            let next =
                rows.count > limit ? page.last.map { Cursor.text(resourceId: resourceId, id: $0.subscription.id) } : nil
            return Page(devices: devices, next: next)
        }
    }

    /// A subscription as the import takes it: its tags and its test mark only when it has them.
    static func device(
        _ subscription: Subscription, profileFields: [String: JSONValue], tags: [String: String] = [:],
        matching: [String: JSONValue]?
    ) -> DeviceImport.Device {
        DeviceImport.Device(
            provider: subscription.provider?.rawValue, subscriptionId: subscription.token,
            status: subscription.status.rawValue, matching: matching,
            profileFields: profileFields.isEmpty ? nil : profileFields.mapValues(Self.settable),
            customFields: subscription.fields.isEmpty ? nil : subscription.fields,
            cats: subscription.cats.isEmpty
                ? nil
                : subscription.cats.sorted { $0.key < $1.key }.map { CategoryData(name: $0.key, active: $0.value) },
            apnsEnvironment: subscription.apnsEnvironment, time: subscription.clientTime,
            tags: tags.isEmpty ? nil : tags, isTest: subscription.isTest ? true : nil)
    }

    /// A stored value as `profile_fields` sets it: an object that would read as an operation
    /// (`{"action": …, "value": …}`) is wrapped in a `set`, so the import stores it as it is.
    static func settable(_ value: JSONValue) -> JSONValue {
        guard case .object(let object) = value, object[ActionFieldOperation.actionKey]?.stringValue != nil,
            Set(object.keys).isSubset(of: [ActionFieldOperation.actionKey, ActionFieldOperation.valueKey])
        else { return value }
        return ActionFieldOperation.set.encoded(value)
    }

    /// The person a device's `matching` names (see the type's comment).
    static func matching(_ fields: [String: JSONValue], publicId: String, devices: Int) -> [String: JSONValue]? {
        if let named = namedMatching(fields) { return named }
        guard devices > 1 else { return nil }
        return ["field_name": .string(originField), "field_value": .string(publicId)]
    }

    /// `matching` from the fields that name a person, in the order of preference; nil without any.
    static func namedMatching(_ fields: [String: JSONValue]) -> [String: JSONValue]? {
        if case .string(let email)? = fields[ProfileIdentity.emailField], !email.isEmpty {
            return ["email": .string(email)]
        }
        if case .string(let phone)? = fields[ProfileIdentity.phoneField], !phone.isEmpty {
            return ["phone": .string(phone)]
        }
        for name in [IdentityService.externalIdField, originField] {
            if let value = fields[name], value != .null, value.isScalar {
                return ["field_name": .string(name), "field_value": value]
            }
        }
        return nil
    }

    /// The opaque cursor: `d1.<resource>.<subscription id>`, tied to its resource so that a cursor
    /// of another resource is refused rather than followed.
    enum Cursor {
        static func text(resourceId: Int64, id: Int64) -> String { "d1.\(resourceId).\(id)" }

        static func parse(_ text: String?, resourceId: Int64) throws(APIError) -> Int64 {
            guard let text else { return 0 }
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "d1", Int64(parts[1]) == resourceId, let id = Int64(parts[2]), id > 0
            else {
                throw .badRequest(
                    "after \"\(text.prefix(64))\" is not a cursor of resource \(resourceId)'s export: "
                        + "leave it out for the first page, then send the previous page's next")
            }
            return id
        }
    }
}
