import Foundation
import TernProtocol

/// The `matching` claim of a Tern JWT: the profile database, optionally the resource, and exactly one
/// identity.
///
/// ```json
/// {"matching": {"db_id": 2, "email": "ada@example.com"}}
/// ```
struct JWTMatching: Sendable, Equatable {
    var dbId: Int64
    var resourceId: Int64?
    var identity: ProfileIdentity

    init(dbId: Int64, resourceId: Int64?, identity: ProfileIdentity) {
        self.dbId = dbId
        self.resourceId = resourceId
        self.identity = identity
    }

    static let identityHelp =
        "matching must name exactly one identity: email, phone, profile_id, field_name with field_value, "
        + "or provider with subscription_id"

    /// Reads the claim out of the token's claims JSON.
    static func parse(claims: Data) throws(APIError) -> JWTMatching {
        guard case .object(let root)? = try? JSONCoders.decoder.decode(JSONValue.self, from: claims) else {
            throw .unauthorized("JWT rejected: its claims are not a JSON object")
        }
        guard case .object(let matching)? = root["matching"] else {
            throw .unauthorized("JWT rejected: the matching claim is missing; \(identityHelp), and db_id")
        }
        guard let dbId = integer(matching["db_id"]) else {
            throw .unauthorized("JWT rejected: matching.db_id is missing or not an integer")
        }
        let resourceId = integer(matching["resource_id"])
        if matching["resource_id"] != nil, matching["resource_id"] != .null, resourceId == nil {
            throw .unauthorized("JWT rejected: matching.resource_id is not an integer")
        }
        var identities: [ProfileIdentity] = []
        if let email = text(matching["email"]) { identities.append(.email(email)) }
        if let phone = text(matching["phone"]) { identities.append(.phone(phone)) }
        if let profileId = text(matching["profile_id"]) { identities.append(.profileId(profileId)) }
        if let name = text(matching["field_name"]) {
            guard let value = matching["field_value"], value != .null, value.isScalar else {
                throw .unauthorized("JWT rejected: matching.field_name needs a scalar matching.field_value")
            }
            guard FieldName.isValid(name) else {
                throw .unauthorized(
                    "JWT rejected: matching.field_name \"\(name.prefix(64))\" is not a valid field name")
            }
            identities.append(.field(name: name, value: value))
        }
        if let provider = text(matching["provider"]) {
            guard let token = text(matching["subscription_id"]) else {
                throw .unauthorized("JWT rejected: matching.provider needs matching.subscription_id")
            }
            identities.append(.subscription(provider: provider, subscriptionId: token))
        }
        guard identities.count == 1, let identity = identities.first else {
            throw .unauthorized("JWT rejected: \(identityHelp) (found \(identities.count))")
        }
        return JWTMatching(dbId: dbId, resourceId: resourceId, identity: identity)
    }

    private static func integer(_ value: JSONValue?) -> Int64? {
        switch value {
        case .int(let number)?: number
        case .string(let text)?: Int64(text)
        default: nil
        }
    }

    private static func text(_ value: JSONValue?) -> String? {
        guard case .string(let text)? = value, !text.isEmpty else { return nil }
        return text
    }
}
