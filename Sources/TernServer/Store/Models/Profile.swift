import Foundation
import TernCrypto
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

    /// A new profile's public id: the creation time in milliseconds (12 hex characters), then 48
    /// random bits (12 more), so ids made at the same time sort together. A random id put each new
    /// profile in a leaf of the `public_id` index of its own, which every subscribe of a new device
    /// then wrote to the log at its commit; time-ordered ids fill the index's last leaf, as a row id
    /// does. The id shows when its profile was made (as a UUIDv7 does), nothing more.
    static func newPublicId(now: Int64) -> String {
        let time = String(UInt64(max(0, now)) & 0xFFFF_FFFF_FFFF, radix: 16)
        return String(repeating: "0", count: 12 - time.count) + time + Digest.randomHex(bytes: 6)
    }

    /// How an erased profile's public id begins (``ErasureQueries``): then its row id, so it stays
    /// unique. A public id Tern makes is hex, so no request names one; lookups by public id skip them.
    static let erasedPrefix = "erased:"
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
