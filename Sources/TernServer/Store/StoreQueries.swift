import Foundation
import TernProtocol

/// Projects, profile databases, resources and their categories, pixels, JWT keys, admin keys.
public protocol TenancyQueries {
    /// Creates a project; a nil `audience` becomes `tern:<id>`.
    func createProject(name: String, audience: String?, now: Int64) throws -> Project
    func projects() throws -> [Project]
    func project(id: Int64) throws -> Project?

    func createDatabase(projectId: Int64, name: String, now: Int64) throws -> ProfileDatabase
    func databases(projectId: Int64) throws -> [ProfileDatabase]
    func database(id: Int64) throws -> ProfileDatabase?

    func createResource(
        projectId: Int64, dbId: Int64, name: String, channels: [SubscriptionChannel], rToken: String, now: Int64
    ) throws -> Resource
    /// All resources, or a project's.
    func resources(projectId: Int64?) throws -> [Resource]
    func resource(id: Int64) throws -> Resource?
    func resource(rToken: String) throws -> Resource?

    /// Adds the category, or changes its title and steadiness.
    func upsertCategory(_ category: ResourceCategory) throws
    func categories(resourceId: Int64) throws -> [ResourceCategory]
    /// False when there was no such category.
    func deleteCategory(resourceId: Int64, name: String) throws -> Bool

    func createPixel(projectId: Int64, sid: String, name: String, now: Int64) throws -> Pixel
    func pixels(projectId: Int64) throws -> [Pixel]
    func pixel(projectId: Int64, sid: String) throws -> Pixel?
    func deletePixel(projectId: Int64, sid: String) throws -> Bool

    func addJWTKey(projectId: Int64, kid: String, algorithm: String, key: String, now: Int64) throws -> JWTKeyRecord
    func jwtKeys(projectId: Int64) throws -> [JWTKeyRecord]
    /// Keys with this `kid` in any project.
    func jwtKeys(kid: String) throws -> [JWTKeyRecord]
    func deleteJWTKey(projectId: Int64, kid: String) throws -> Bool

    /// Keeps only a digest of the admin key.
    func addAdminKey(digest: String, name: String, now: Int64) throws
    func hasAdminKey(digest: String) throws -> Bool
    func adminKeyCount() throws -> Int
}

/// Profiles and their fields.
public protocol ProfileQueries {
    func createProfile(dbId: Int64, publicId: String, now: Int64) throws -> Profile
    func profile(id: Int64) throws -> Profile?
    func profile(publicId: String) throws -> Profile?
    /// Profiles of a database whose field `name` equals `value`, oldest first.
    func profiles(dbId: Int64, field name: String, value: JSONValue) throws -> [Profile]
    func profileFields(profileId: Int64) throws -> [String: JSONValue]
    /// Sets a field; nil removes it.
    func setProfileField(profileId: Int64, name: String, value: JSONValue?) throws
    /// Saves `isTest`, `skipTriggers` and `updatedAt`.
    func updateProfile(_ profile: Profile) throws
}

/// Subscriptions of every channel.
public protocol SubscriptionQueries {
    func subscription(id: Int64) throws -> Subscription?
    /// A profile's subscriptions, newest first.
    func subscriptions(profileId: Int64) throws -> [Subscription]
    /// Every profile's subscriptions with this address on this resource and channel.
    func subscriptions(resourceId: Int64, channel: SubscriptionChannel, provider: String, token: String) throws
        -> [Subscription]
    /// Push subscriptions of a database's profiles with this provider and token.
    func subscriptions(dbId: Int64, provider: String, token: String) throws -> [Subscription]
    func insertSubscription(_ values: SubscriptionValues, now: Int64) throws -> Subscription
    /// Saves everything but the id, profile, resource, hash and creation time.
    func updateSubscription(_ subscription: Subscription) throws
}

/// Goals and push events.
public protocol EventQueries {
    func insertGoal(_ goal: GoalRecord) throws -> Int64
    /// A pixel's goals, newest first.
    func goals(pixelId: Int64, limit: Int) throws -> [GoalRecord]
    /// False when the same resource already has this message's event of this type.
    func insertPushEvent(_ event: PushEventRecord) throws -> Bool
    func pushEvents(messageId: String) throws -> [PushEventRecord]
    /// Where the delivery a push id names (`<message public id>.<delivery id>`) went; nil when no
    /// such delivery of that message exists.
    func pushRecipient(pushId: String) throws -> PushRecipient?
}

/// The first answers of idempotent requests.
public protocol IdempotencyQueries {
    func storedAnswer(scope: String, key: String) throws -> StoredAnswer?
    func storeAnswer(scope: String, key: String, answer: StoredAnswer, now: Int64) throws
    /// Forgets answers stored before `cutoff`; returns how many.
    func deleteAnswers(before cutoff: Int64) throws -> Int
}
