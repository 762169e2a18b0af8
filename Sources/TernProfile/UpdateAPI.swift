import Foundation
import TernProtocol

/// `Tern.shared.profile.update`.
public struct UpdateAPI: Sendable {
    let core: CoreServices

    /// Updates the fields of the profile the JWT names (`profile/update`; JWT authorization only).
    /// Values are any JSON (scalars, objects, lists) or action-field operations from
    /// ``actionField(_:)``; the fields must exist on the platform. Events:
    /// `profileUpdateRequestSuccessful` (with `http_code`, `error`, `error_text`, `profile`) or
    /// `profileUpdateRequestFailed`; retried on network failures, 408, 429 and 5xx.
    ///
    /// Refused at once, with nothing queued: a value JSON cannot carry (`profileUpdateRequestDataIsNil`
    /// with `reason` and `field` in `event.value`); no JWT provider (`jwtIsNil`).
    ///
    /// ```swift
    /// Tern.shared.profile.update.updateProfileFields(
    ///     profileFields: ["_fname": "Andrey"].merging(
    ///         Tern.shared.profile.update.actionField("visits").incr(1)) { _, new in new })
    /// ```
    @discardableResult
    public func updateProfileFields(profileFields: [String: Any?]? = nil, skipTriggers: Bool? = nil)
        -> QueuedRequest
    {
        let function = "updateProfileFields"
        let fields: [String: JSONValue]?
        switch FieldValues.json(profileFields) {
        case .failure(let problem):
            let reason = problem.reason(in: "profileFields")
            core.emit(
                .error(
                    function, ProfileModuleEvents.profileUpdateRequestDataIsNil,
                    value: ["reason": reason, "field": problem.field]))
            return .rejected(reason)
        case .success(let converted):
            fields = converted
        }
        let requestId = RequestKey.make()
        core.perform(function, requestId: requestId) { ready in
            guard await ready.auth.hasProvider else {
                let reason =
                    "updateProfileFields needs JWT authorization: set a JWT provider "
                    + "(Tern.shared.setJWTProvider) that returns the user's token"
                ready.emit(.error(function, CoreEvents.jwtIsNil, value: ["reason": reason]))
                await ready.refuse(requestId: requestId, reason: reason)
                return
            }
            let request = ProfileUpdateRequest(profileFields: fields, skipTriggers: skipTriggers)
            guard let body = try? JSONEncoder().encode(request) else {
                ready.emit(
                    .error(
                        function, ProfileModuleEvents.profileUpdateRequestDataIsNil,
                        value: ["reason": "the profile fields could not be encoded as JSON"]))
                return
            }
            let entry = OutboxEntry(
                endpoint: .profileUpdate, lane: .ordered, body: body,
                meta: OutboxMeta(
                    function: function, success: ProfileModuleEvents.profileUpdateRequestSuccessful,
                    failure: ProfileModuleEvents.profileUpdateRequestFailed),
                idempotencyKey: requestId)
            await ready.enqueue(entry)
        }
        return QueuedRequest(id: requestId, state: .queued)
    }

    /// An action-field operation on the profile field `key` (set, unset, incr, add, delete, upsert).
    ///
    /// ```swift
    /// Tern.shared.profile.update.updateProfileFields(
    ///     profileFields: Tern.shared.profile.update.actionField("orders_count").incr(1))
    /// ```
    public func actionField(_ key: String) -> ActionFieldBuilder { ActionFieldBuilder(key: key) }

    /// ``actionField(_:)`` with the reference's label.
    public func actionField(key: String) -> ActionFieldBuilder { ActionFieldBuilder(key: key) }
}
