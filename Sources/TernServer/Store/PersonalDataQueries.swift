import Foundation

/// What an erasure removed (``ErasureQueries/eraseProfile(_:goalsAfter:now:)``), for the operator's record.
public struct ProfileErasure: Encodable, Sendable, Equatable {
    /// The public id the profile had.
    public var profileId: String
    /// Subscriptions (each with its tags), and so the profile's place in every audience.
    public var subscriptions: Int
    /// Profile fields (email, phone, the app's own).
    public var fields: Int
    /// Goals, found by the walk and after it.
    public var goals: Int
    /// Identity bindings that name it, as the user's or as the install's anonymous profile, with
    /// the answers of their operations: the app's external id and the token.
    public var identityInstallations: Int
    /// Inbox messages.
    public var inboxMessages: Int
    /// Notification preferences and topics followed.
    public var preferences: Int
    /// Invalid-token marks of its tokens that no other subscription holds.
    public var invalidTokens: Int

    /// Nothing removed yet.
    static func none(_ profileId: String) -> ProfileErasure {
        ProfileErasure(
            profileId: profileId, subscriptions: 0, fields: 0, goals: 0, identityInstallations: 0, inboxMessages: 0,
            preferences: 0, invalidTokens: 0)
    }

    /// Adds the counts of `other`, a later pass over the same profile.
    mutating func add(_ other: ProfileErasure) {
        subscriptions += other.subscriptions
        fields += other.fields
        goals += other.goals
        identityInstallations += other.identityInstallations
        inboxMessages += other.inboxMessages
        preferences += other.preferences
        invalidTokens += other.invalidTokens
    }

    enum CodingKeys: String, CodingKey {
        case subscriptions, fields, goals, preferences
        case profileId = "profile_id"
        case identityInstallations = "identity_installations"
        case inboxMessages = "inbox_messages"
        case invalidTokens = "invalid_tokens"
    }
}

/// Erasing a profile (a person's right to erasure): everything that says who they are or reaches
/// them goes, and the counts a campaign's statistics keep stay. The profile's row stays as an
/// empty marker whose public id (`erased:` and its row id) no call can name: the devices' reports
/// and the message statistics point at it, and on SQLite a deleted row's id could be given to the
/// next new profile, which would then inherit them.
///
/// Goals have no index that leads with the profile: one on `goals.profile_id` would cost every
/// `event/post` a B-tree insert for a call an operator makes rarely. So the goals are walked
/// first, a range of ids to a transaction; the erasure's own transaction then removes the goals
/// the profile wrote after the walk began and everything the profile's indexes reach.
public protocol ErasureQueries {
    /// The goals' first and last id now; nil when there are none.
    func goalIdRange() throws -> ClosedRange<Int64>?
    /// The last id of a goal that is not the profile's (0 when there is none). A goal written
    /// later gets a larger id: on SQLite a new row's id is one past the largest, which may be the
    /// profile's own last goals' ids again once the walk removed them, but never this one's.
    func lastGoalId(notOf profileId: Int64) throws -> Int64
    /// Removes the profile's goals whose ids are in `ids`; how many went.
    func eraseGoals(of profileId: Int64, ids: ClosedRange<Int64>) throws -> Int
    /// Removes the rest of the profile, with its goals after `goalsAfter`, and empties its row.
    func eraseProfile(_ profile: Profile, goalsAfter: Int64, now: Int64) throws -> ProfileErasure
}

/// An identity binding as a person's export shows it (`GET …/profiles/{profile_id}/export`).
public struct ExportedBinding: Encodable, Sendable, Equatable {
    var resourceId: Int64
    var provider: String
    var token: String
    /// The app's id for the person; nil for an install nobody signed in on.
    var externalId: String?
    var mode: String?
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey {
        case provider, token, mode
        case resourceId = "resource_id"
        case externalId = "external_id"
        case updatedAt = "updated_at"
    }
}

/// What a person's export reads beyond the profile's own view, its inbox and its preferences
/// (`GET …/profiles/{profile_id}/export`).
public protocol ProfileExportQueries {
    /// The profile's goals, oldest first. Goals have no index by profile (``ErasureQueries`` says
    /// why): this reads the table, once, in a read transaction that holds no writer up.
    func goals(profileId: Int64) throws -> [GoalRecord]
    /// The identity bindings that name the profile, as the user's or the install's anonymous one.
    func identityBindings(profileId: Int64) throws -> [ExportedBinding]
    /// The names of the topics the profile follows in its database's project.
    func followedTopics(profileId: Int64, dbId: Int64) throws -> [String]
}
