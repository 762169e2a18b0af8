import Foundation
import TernProtocol

/// `POST /api/v1/admin/databases/{db_id}/profiles/update`: the operator's own backend writes
/// people's profile fields (a plan, a loyalty tier, an order's status) without an app install,
/// and so starts the `$field_set` messages those values trigger, as the SDK's `profile/update` does.
///
/// ```json
/// {"profiles": [
///   {"matching": {"email": "ann@example.com"}, "profile_fields": {"order_status": "shipped"}},
///   {"matching": {"field_name": "customer_id", "field_value": 42},
///    "profile_fields": {"orders": {"action": "incr", "value": 1}}, "create": true}
/// ]}
/// ```
///
/// Each entry names one person by `matching` (as a JWT's `matching` does: ``ProfileIdentity/init(matching:)``)
/// and is answered alone, in order: `updated`, `created` (with `create`, when no profile matched: a
/// new profile whose identity field is the matching's, so the person's later log-in with a JWT
/// naming it lands on it), `unchanged`, `not_found`, or `refused` with the reason (a bad field
/// name or action, a matching with no or several keys, a value of the wrong type, or a key that
/// matches several profiles: those are named, and the entry changes none of them). A body that
/// is not `{"profiles": [1 to 1,000 entries]}` is a 400. The entries are one transaction: an
/// `Idempotency-Key` sent again answers the first answer and applies nothing twice.
struct BackendProfileUpdate: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    /// At most this many entries a request (`tern import profiles` sends a file in parts of this size).
    static let maxEntries = 1_000

    /// The body's limits: up to a thousand entries in up to 1 MiB.
    static let limits = BodyLimits.bulk(items: maxEntries)

    /// The body: its entries are read one by one, so that a bad one is refused alone.
    struct Request: Decodable, Sendable {
        var profiles: [JSONValue]
        /// False for a backfill: the values are written and start no `$field_set` message, as a
        /// device import starts none (each profile's own `skip_triggers` flag stays as it is).
        var startTriggers: Bool?

        enum CodingKeys: String, CodingKey {
            case profiles
            case startTriggers = "start_triggers"
        }
    }

    /// One entry, checked.
    struct Entry: Sendable, Equatable {
        var identity: ProfileIdentity
        var fields: [String: JSONValue]
        var create: Bool
        var skipTriggers: Bool?

        static let members: Set<String> = ["matching", "profile_fields", "create", "skip_triggers"]
    }

    /// What became of an entry.
    enum Outcome: String, Encodable, Sendable {
        case updated, created, unchanged, refused
        case notFound = "not_found"
    }

    /// An entry's answer: its index in `profiles`, the profile it wrote or names (null when none),
    /// and why it was refused or not found.
    struct EntryResult: Encodable, Sendable, Equatable {
        var index: Int
        var profileId: String?
        var result: Outcome
        var reason: String?

        enum CodingKeys: String, CodingKey {
            case index, result, reason
            case profileId = "profile_id"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(profileId, forKey: .profileId)
            try container.encode(result, forKey: .result)
            try container.encodeIfPresent(reason, forKey: .reason)
        }
    }

    struct Response: Encodable, Sendable {
        var results: [EntryResult]
    }

    /// The route, for a key that may send messages (`send` or `full`) of the database's project.
    func routes(admin: AdminService) -> [Route] {
        let service = self
        return RouteGroup([admin.check(.send, .database), IdempotencyKeys(metrics: nil)]) {
            Route("POST", "\(AdminRoutes.prefix)/databases/{db_id}/profiles/update", name: "admin/profiles/update") {
                request in
                let dbId = try request.integer("db_id")
                let body = try JSONBody.decode(Request.self, from: request.http, limits: Self.limits)
                return try await service.run(dbId: dbId, body, idempotency: try request.idempotencyToken()).response
            }
        }
        .all
    }

    /// Applies the request's entries to database `dbId`'s profiles, in one transaction.
    ///
    /// - Throws: 400 for an empty list (a longer one than ``maxEntries`` never decodes), 404 for a
    ///   database that does not exist.
    func run(dbId: Int64, _ request: Request, idempotency: IdempotencyToken) async throws -> Answer {
        guard !request.profiles.isEmpty else {
            throw APIError.badRequest("profiles is empty: send 1 to \(Self.maxEntries) entries")
        }
        let entries = request.profiles.map { value in Result { () throws(APIError) in try Self.entry(value) } }
        let now = clock()
        let triggers = request.startTriggers == false ? nil : store.triggerDirectory
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            guard let database = try tx.database(id: dbId) else {
                throw APIError.notFound("profile database \(dbId) does not exist")
            }
            var results: [EntryResult] = []
            for (index, entry) in entries.enumerated() {
                switch entry {
                case .failure(let error):
                    results.append(EntryResult(index: index, result: .refused, reason: error.reason))
                case .success(let entry):
                    var result = try Self.apply(entry, tx, database: database, triggers: triggers, now: now)
                    result.index = index
                    results.append(result)
                }
            }
            return Answer(status: 200, body: try JSONCoders.encoder.encode(Response(results: results)))
        }
    }

    /// One entry, read and checked as far as can be without the store.
    static func entry(_ value: JSONValue) throws(APIError) -> Entry {
        guard case .object(let object) = value else {
            throw .badRequest("an entry must be a JSON object: {\"matching\": {…}, \"profile_fields\": {…}}")
        }
        if let unknown = object.keys.sorted().first(where: { !Entry.members.contains($0) }) {
            throw .badRequest(
                "\(unknown.prefix(64)) is not a member of an entry: use matching, profile_fields, create, skip_triggers"
            )
        }
        guard case .object(let matching)? = object["matching"] else {
            throw .badRequest(
                "matching is required: an object naming the person, e.g. {\"email\": \"ann@example.com\"}")
        }
        let identity = try ProfileIdentity(matching: matching)
        let fields: [String: JSONValue]
        switch object["profile_fields"] {
        case nil, .null?: fields = [:]
        case .object(let given)?: fields = given
        default: throw .badRequest("profile_fields must be an object of field names to values or actions")
        }
        let create = try flag(object["create"], "create") ?? false
        let skipTriggers = try flag(object["skip_triggers"], "skip_triggers")
        guard !fields.isEmpty || skipTriggers != nil || create else {
            throw .badRequest("the entry changes nothing: send profile_fields, skip_triggers, or create")
        }
        // Names and the shape of actions; an action on a stored value (incr of a text) is checked
        // against the profile's fields.
        _ = try changes(fields, current: [:])
        return Entry(identity: identity, fields: fields, create: create, skipTriggers: skipTriggers)
    }

    private static func flag(_ value: JSONValue?, _ name: String) throws(APIError) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw .badRequest("\(name) must be true or false")
        }
    }

    /// The entry's changes to `current`: ``ProfileFieldsEditor/changes(_:current:)`` field by field,
    /// so that a refusal names the field and says what its action needs.
    static func changes(_ fields: [String: JSONValue], current: [String: JSONValue]) throws(APIError)
        -> [String: JSONValue?]
    {
        guard fields.count <= ProfileFieldsEditor.maxFields else {
            throw .badRequest(
                "profile_fields has \(fields.count) fields: send at most \(ProfileFieldsEditor.maxFields) an entry")
        }
        var changes: [String: JSONValue?] = [:]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard FieldName.isValid(name) else {
                throw .badRequest(
                    "profile_fields: \"\(name.prefix(64))\" is not a valid field name: 1 to 64 letters, digits, "
                        + "_ and -, starting with a letter or _")
            }
            do {
                changes.merge(try ProfileFieldsEditor.changes([name: value], current: current)) { _, new in new }
            } catch {
                throw .badRequest("profile_fields.\(name): \(actionHelp(value, current: current[name]))")
            }
        }
        return changes
    }

    /// Why an action cannot apply, and what it needs.
    private static func actionHelp(_ value: JSONValue, current: JSONValue?) -> String {
        let holds = current.map { "it holds " + text($0) } ?? "it holds nothing"
        guard let (operation, _) = ActionFieldOperation.parse(value) else {
            let names = ActionFieldOperation.allCases.map(\.rawValue).joined(separator: ", ")
            return "the action is not one of \(names): send {\"action\": NAME, \"value\": …}, or a plain value"
        }
        switch operation {
        case .set: return "set needs a value"
        case .unset: return "unset takes no value"
        case .incr: return "incr adds a number to a field holding a number or nothing (\(holds))"
        case .add, .delete:
            return "\(operation.rawValue) needs a value, and a field holding a list or nothing (\(holds))"
        case .upsert: return "upsert needs an object value, and a field holding an object or nothing (\(holds))"
        }
    }

    private static func text(_ value: JSONValue) -> String {
        let encoded = (try? JSONCoders.encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        return encoded.count > 64 ? String(encoded.prefix(61)) + "…" : encoded
    }

    /// One checked entry against the store: found (or made), then changed through
    /// ``ProfileResolver/applyProfileChanges(_:to:fields:skipTriggers:knownFields:triggers:projectId:now:)``,
    /// the SDK's own path, which starts the `$field_set` waits. An entry refused here writes nothing.
    static func apply(
        _ entry: Entry, _ tx: any StoreTransaction, database: ProfileDatabase, triggers: TriggerDirectory?, now: Int64
    ) throws -> EntryResult {
        var found: Profile?
        switch entry.identity {
        case .profileId(let publicId):
            found = try tx.profile(publicId: publicId).flatMap { $0.dbId == database.id ? $0 : nil }
            guard found != nil else {
                let reason =
                    entry.create
                    ? "profile_id \(publicId.prefix(64)) names no profile of database \(database.id); create makes "
                        + "profiles by email, phone or a field, never with a given id" : nil
                return EntryResult(index: 0, result: .notFound, reason: reason)
            }
        case .email, .phone, .field:
            guard let (name, value) = entry.identity.storedField else { break }
            var matches = try tx.profiles(dbId: database.id, field: name, value: value)
            if matches.isEmpty, entry.create,
                let now = try ProfileResolver.claimNewKey(tx, dbId: database.id, field: name, value: value)
            {
                matches = now
            }
            guard matches.count <= 1 else {
                let ids = matches.prefix(10).map(\.publicId).joined(separator: ", ")
                return EntryResult(
                    index: 0, result: .refused,
                    reason: "matching names \(matches.count) profiles of database \(database.id) (\(ids)"
                        + "\(matches.count > 10 ? ", …" : "")): name one by profile_id, or erase the duplicates")
            }
            found = matches.first
        case .subscription:
            return EntryResult(index: 0, result: .refused, reason: "matching by subscription is not supported here")
        }
        guard found != nil || entry.create else { return EntryResult(index: 0, result: .notFound) }
        let current = try found.map { try tx.profileFields(profileId: $0.id) } ?? identityFields(entry.identity)
        let changes: [String: JSONValue?]
        do {
            changes = try Self.changes(entry.fields, current: current)
        } catch {
            return EntryResult(index: 0, profileId: found?.publicId, result: .refused, reason: error.reason)
        }
        if let found, changes.allSatisfy({ current[$0.key] == $0.value }),
            entry.skipTriggers.map({ $0 == found.skipTriggers }) ?? true
        {
            return EntryResult(index: 0, profileId: found.publicId, result: .unchanged)
        }
        let profile =
            try found ?? ProfileResolver.createProfile(tx, dbId: database.id, identity: entry.identity, now: now)
        try ProfileResolver.applyProfileChanges(
            tx, to: profile, fields: entry.fields, skipTriggers: entry.skipTriggers, knownFields: current,
            triggers: triggers, projectId: database.projectId, now: now)
        return EntryResult(index: 0, profileId: profile.publicId, result: found == nil ? .created : .updated)
    }

    /// The fields a profile made for `identity` starts with.
    private static func identityFields(_ identity: ProfileIdentity) -> [String: JSONValue] {
        guard let (name, value) = identity.storedField else { return [:] }
        return [name: value]
    }
}
