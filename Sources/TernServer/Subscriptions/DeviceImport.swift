import Foundation
import TernProtocol

/// `POST /api/v1/admin/resources/{resource_id}/devices/import`: push tokens a team already has (the
/// ones another vendor's SDK registered, exported from it) brought into a resource, so the first
/// campaign reaches the installs that have not yet updated to an app with Tern.
///
/// ```json
/// {"devices": [
///   {"provider": "ios-apns", "subscription_id": "<token>", "matching": {"email": "ann@example.com"},
///    "profile_fields": {"_fname": "Ann"}, "cats": [{"name": "news", "active": true}],
///    "tags": {"plan": "gold"}, "is_test": true},
///   {"subscription_id": "<another token>"}
/// ]}
/// ```
///
/// Each device goes through `push/subscribe`'s own change (``SubscriptionService/change(_:to:caller:idempotency:welcomes:imported:)``),
/// as if it had called from the resource: with `matching`, into the person's profile in the
/// resource's database (made when absent, as a JWT naming them would); without, into a profile of
/// its own. Every device is checked first (a bad provider, token, status or field refuses the
/// request whole); then each is its own write, so one the store refuses (a category the resource
/// lacks) fails alone and the others are kept; the store's group commit still puts the writes of a request into
/// a few transactions. A device is imported with `time` 0 unless the row gives one: whatever a
/// device has since said through the SDK is newer and wins, and importing the same file again
/// changes nothing. An imported device starts no welcome (`$subscribed`): it subscribed long ago,
/// through the other vendor's SDK; its first `push/subscribe` through Tern's finds it subscribed.
///
/// A device's `tags` (as `profile/tags/set` takes them) and `is_test` (the test-device mark) are
/// written in its own write, only when that write applies the device (``ImportedBinding``): each tag
/// is set as of the row's `time`, so a tag the device set through the SDK since keeps its value.
struct DeviceImport: Sendable {
    let subscriptions: SubscriptionService

    /// At most this many devices a request (`tern import devices` sends a file in parts of this size).
    static let maxDevices = 1_000
    /// The devices written at once, each in its own write: enough to fill group commit's batches.
    static let concurrentWrites = 32

    /// The request's body: 1 to 1,000 devices.
    struct Request: Decodable, Sendable {
        var devices: [Device]
    }

    /// One device to import; `devices/export` writes this shape too, so an export is an import.
    struct Device: Codable, Sendable, Equatable {
        /// `ios-apns` (default), `ios-firebase` or `ios-huawei`.
        var provider: String?
        /// The push token.
        var subscriptionId: String
        /// `subscribed` (default), `suspended` or `unsubscribed`.
        var status: String?
        /// The person the device belongs to: exactly one of `email`, `phone`, `profile_id`, or
        /// `field_name` with `field_value` (the identities a JWT's `matching` names); nil: a device
        /// of its own, as an rToken subscribe makes.
        var matching: [String: JSONValue]?
        var profileFields: [String: JSONValue]?
        var customFields: [String: JSONValue]?
        var cats: [CategoryData]?
        var apnsEnvironment: APNsEnvironment?
        /// When the device last said this, in ms since 1970; default 0 (older than anything the SDK sends).
        var time: Int64?
        /// The subscription's tags, key to value, as `profile/tags/set` takes them (up to
        /// ``TagLimits/maxPerBinding``); nil or empty: none to set.
        var tags: [String: String]?
        /// True marks the device as a test device, false unmarks it (as `PUT …/test-devices`); nil
        /// leaves its mark.
        var isTest: Bool?

        enum CodingKeys: String, CodingKey {
            case provider, status, matching, cats, time, tags
            case isTest = "is_test"
            case subscriptionId = "subscription_id"
            case profileFields = "profile_fields"
            case customFields = "custom_fields"
            case apnsEnvironment = "apns_environment"
        }
    }

    /// The answer: how many were imported, and each one that was not, with why.
    struct Answer: Encodable, Sendable, Equatable {
        var imported: Int
        var failed: [Failure]
        /// The profile each device is in now, in the request's order (nil for one that failed).
        var profileIds: [String?]

        enum CodingKeys: String, CodingKey {
            case imported, failed
            case profileIds = "profile_ids"
        }
    }

    /// A device that was not imported: its index in `devices` and what to change.
    struct Failure: Encodable, Sendable, Equatable {
        var index: Int
        var error: String
    }

    /// The body's limits: up to a thousand devices in up to 1 MiB.
    static let limits = BodyLimits.bulk(items: maxDevices)

    /// The route, for a key that may change the resource's project (`full`).
    func routes(admin: AdminService) -> [Route] {
        let service = self
        return RouteGroup([admin.check(.configure, .resource)]) {
            Route.json("POST", "\(AdminRoutes.prefix)/resources/{resource_id}/devices/import") { request in
                try await service.run(
                    resourceId: try request.integer("resource_id"),
                    try JSONBody.decode(Request.self, from: request.http, limits: Self.limits))
            }
        }
        .all
    }

    /// Imports `request`'s devices into the resource.
    ///
    /// - Throws: 400 for an empty list (a longer one than ``maxDevices`` never decodes), 404 for a
    ///   resource that does not exist or has no push channel.
    func run(resourceId: Int64, _ request: Request) async throws -> Answer {
        guard !request.devices.isEmpty else {
            throw APIError.badRequest("devices is empty: send 1 to \(Self.maxDevices) devices")
        }
        let (project, resource, database) = try await subscriptions.store.read { tx in
            guard let resource = try tx.resource(id: resourceId) else {
                throw APIError.notFound("resource \(resourceId) does not exist")
            }
            guard let project = try tx.project(id: resource.projectId),
                let database = try tx.database(id: resource.dbId)
            else { throw StoreError.backend("resource \(resource.id) points at a missing project or database") }
            return (project, resource, database)
        }
        guard resource.isPush else {
            throw APIError.badRequest("resource \(resourceId) has no push channel: import into a push resource")
        }
        // Every device is checked before any is written: a file with a typo is fixed and sent again,
        // not half imported. Only what the store decides (a category the resource lacks, a
        // profile_id that names no one) fails a device alone.
        var checked: [Prepared] = []
        for (index, device) in request.devices.enumerated() {
            do {
                checked.append(try Self.prepare(device))
            } catch {
                throw APIError(status: error.status, reason: "devices[\(index)]: \(error.reason)")
            }
        }
        let prepared = checked
        // A token's rows go one after another, in the file's order; different tokens at once.
        let byToken = Dictionary(grouping: request.devices.indices) {
            "\(request.devices[$0].provider ?? "")\u{0}\(request.devices[$0].subscriptionId)"
        }
        var results = [Result<String?, APIError>?](repeating: nil, count: request.devices.count)
        try await withThrowingTaskGroup(of: [(Int, Result<String?, APIError>)].self) { group in
            var pending = byToken.values.makeIterator()
            func startNext() -> Bool {
                guard let indices = pending.next() else { return false }
                group.addTask {
                    var done: [(Int, Result<String?, APIError>)] = []
                    for index in indices {
                        done.append((index, await importOne(prepared[index], project, resource, database)))
                    }
                    return done
                }
                return true
            }
            for _ in 0..<Self.concurrentWrites where !startNext() { break }
            while let finished = try await group.next() {
                for (index, result) in finished { results[index] = result }
                _ = startNext()
            }
        }
        var answer = Answer(imported: 0, failed: [], profileIds: [])
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let profileId)?:
                answer.imported += 1
                answer.profileIds.append(profileId)
            case .failure(let error)?:
                answer.failed.append(Failure(index: index, error: error.reason))
                answer.profileIds.append(nil)
            case nil:
                answer.profileIds.append(nil)
            }
        }
        return answer
    }

    /// A device as `push/subscribe`'s change takes it, checked as far as can be without the store.
    struct Prepared: Sendable {
        var change: PushSubscriptionRequest
        var status: SubscriptionStatus
        var identity: ProfileIdentity?
        var imported: ImportedBinding?
    }

    static func prepare(_ device: Device) throws(APIError) -> Prepared {
        let change = PushSubscriptionRequest(
            time: device.time ?? 0, provider: device.provider ?? PushProvider.apns.rawValue,
            subscriptionId: device.subscriptionId, sync: true, profileFields: device.profileFields,
            customFields: device.customFields, cats: device.cats, apnsEnvironment: device.apnsEnvironment)
        try change.validate()
        // Names and operations; an operation on a stored value (incr of a text) is the store's to refuse.
        if let fields = device.profileFields { _ = try ProfileFieldsEditor.changes(fields, current: [:]) }
        var identity: ProfileIdentity?
        if let matching = device.matching { identity = try ProfileIdentity(matching: matching) }
        return Prepared(
            change: change, status: try status(device.status), identity: identity,
            imported: try ImportedBinding.checked(isTest: device.isTest, tags: device.tags))
    }

    /// One device through `push/subscribe`'s change: the profile it is in, or why it is not imported.
    private func importOne(
        _ device: Prepared, _ project: Project, _ resource: Resource, _ database: ProfileDatabase
    ) async -> Result<String?, APIError> {
        do {
            let caller = Caller(project: project, resource: resource, database: database, identity: device.identity)
            let answer = try await subscriptions.change(
                device.change, to: device.status, caller: caller,
                idempotency: try IdempotencyToken(
                    projectId: project.id, caller: "import", key: nil, endpoint: "devices/import", body: Data()),
                startsWaits: false, imported: device.imported)
            let envelope = try JSONCoders.decoder.decode(ResponseEnvelope.self, from: answer.body)
            return .success(envelope.profile?.id)
        } catch let error as APIError {
            return .failure(error)
        } catch let error as StoreError {
            return .failure(APIError.badRequest("the device could not be stored: \(error)"))
        } catch {
            return .failure(APIError.badRequest("the device could not be imported: \(error)"))
        }
    }

    static func status(_ text: String?) throws(APIError) -> SubscriptionStatus {
        guard let text else { return .subscribed }
        guard let status = SubscriptionStatus(rawValue: text) else {
            throw .badRequest("status \"\(text.prefix(32))\" is not valid: use subscribed, suspended or unsubscribed")
        }
        return status
    }
}
