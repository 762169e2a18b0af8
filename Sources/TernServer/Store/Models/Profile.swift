import Foundation
import TernProtocol

/// A profile in a profile database. Its fields are kept apart (see ``ProfileQueries``).
public struct Profile: Sendable, Equatable {
    /// The store's row id.
    public var id: Int64
    /// The id the wire shows (`profile.id`): 24 hex characters.
    var publicId: String
    var dbId: Int64
    var isTest: Bool = false
    var skipTriggers: Bool = false
    var createdAt: Int64
    var updatedAt: Int64
}

/// How a JWT's `matching` claim names a profile inside its database.
enum ProfileIdentity: Sendable, Equatable {
    case email(String)
    case phone(String)
    case profileId(String)
    case field(name: String, value: JSONValue)
    case subscription(provider: String, subscriptionId: String)

    /// The profile field that stores this identity on a new profile, if it is one.
    var storedField: (name: String, value: JSONValue)? {
        switch self {
        case .email(let email): (ProfileIdentity.emailField, .string(email))
        case .phone(let phone): (ProfileIdentity.phoneField, .string(phone))
        case .field(let name, let value): (name, value)
        case .profileId, .subscription: nil
        }
    }

    /// The profile field that holds a profile's email.
    static let emailField = "_email"
    /// The profile field that holds a profile's phone number.
    static let phoneField = "_phone"
}
