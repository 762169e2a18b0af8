import Foundation
import TernProtocol

extension ProfileIdentity {
    /// What `matching` means where the management API names a person (`devices/import`,
    /// `profiles/update`): exactly one of `email`, `phone`, `profile_id`, or `field_name` with
    /// `field_value`, as a JWT's `matching` names them (their `db_id` and `resource_id` come from
    /// the route there, so they are refused rather than ignored).
    init(matching: [String: JSONValue]) throws(APIError) {
        let help = "matching names exactly one of email, phone, profile_id, or field_name with field_value"
        var found: [ProfileIdentity] = []
        for (key, value) in matching.sorted(by: { $0.key < $1.key }) {
            switch (key, value) {
            case ("email", .string(let email)) where !email.isEmpty: found.append(.email(email))
            case ("phone", .string(let phone)) where !phone.isEmpty: found.append(.phone(phone))
            case ("profile_id", .string(let id)) where !id.isEmpty: found.append(.profileId(id))
            case ("field_name", .string(let name)):
                guard FieldName.isValid(name) else {
                    throw .badRequest("matching.field_name \"\(name.prefix(64))\" is not a valid field name")
                }
                guard let fieldValue = matching["field_value"], fieldValue != .null, fieldValue.isScalar else {
                    throw .badRequest("matching.field_name needs a scalar matching.field_value")
                }
                found.append(.field(name: name, value: fieldValue))
            case ("field_value", _): continue
            default:
                throw .badRequest("matching.\(key.prefix(64)) is not valid: \(help), each a non-empty string")
            }
        }
        guard found.count == 1, let identity = found.first else {
            throw .badRequest("\(help) (found \(found.count))")
        }
        self = identity
    }
}
