import Foundation
import TernProtocol

/// Projects, profile databases, resources and their categories, pixels, JWT keys, admin keys.
public protocol TenancyQueries {
    /// Creates a project; a nil `audience` becomes `tern:<id>`.
    func createProject(name: String, audience: String?, now: Int64) throws -> Project
    /// Every project, oldest first.
    func projects() throws -> [Project]
    /// The project with this id, or nil when there is none.
    ///
    /// - Parameter id: The project's id.
    func project(id: Int64) throws -> Project?
    /// Sets the project's frequency cap; nil removes it.
    func setFrequencyCap(projectId: Int64, _ cap: FrequencyCap?) throws

    /// Creates a profile database in a project: profiles, and the resources that share them, live in one.
    ///
    /// - Parameters:
    ///   - projectId: The project it belongs to.
    ///   - name: Its name.
    ///   - now: The creation time, in milliseconds since 1970.
    /// - Returns: The database with its id.
    func createDatabase(projectId: Int64, name: String, now: Int64) throws -> ProfileDatabase
    /// A project's profile databases.
    ///
    /// - Parameter projectId: The project's id.
    func databases(projectId: Int64) throws -> [ProfileDatabase]
    /// The profile database with this id, or nil when there is none.
    ///
    /// - Parameter id: The database's id.
    func database(id: Int64) throws -> ProfileDatabase?

    /// Creates a resource: what apps subscribe to, with its own rToken.
    ///
    /// - Parameters:
    ///   - projectId: The project it belongs to.
    ///   - dbId: The profile database its subscribers' profiles live in.
    ///   - name: Its name.
    ///   - channels: The channels it takes subscriptions on.
    ///   - rToken: The token apps send to name it (unique on the server).
    ///   - now: The creation time, in milliseconds since 1970.
    /// - Returns: The resource with its id.
    func createResource(
        projectId: Int64, dbId: Int64, name: String, channels: [SubscriptionChannel], rToken: String, now: Int64
    ) throws -> Resource
    /// All resources, or a project's.
    func resources(projectId: Int64?) throws -> [Resource]
    /// The resource with this id, or nil when there is none.
    ///
    /// - Parameter id: The resource's id.
    func resource(id: Int64) throws -> Resource?
    /// The resource this rToken names, or nil when no resource has it.
    ///
    /// - Parameter rToken: The token an SDK request carries.
    func resource(rToken: String) throws -> Resource?

    /// Adds the category, or changes its title and steadiness.
    func upsertCategory(_ category: ResourceCategory) throws
    /// A resource's categories.
    ///
    /// - Parameter resourceId: The resource's id.
    func categories(resourceId: Int64) throws -> [ResourceCategory]
    /// Deletes a resource's category.
    ///
    /// - Parameters:
    ///   - resourceId: The resource's id.
    ///   - name: The category's name.
    /// - Returns: False when there was no such category.
    func deleteCategory(resourceId: Int64, name: String) throws -> Bool

    /// Creates a pixel that goals name by `sid`.
    ///
    /// - Parameters:
    ///   - projectId: The project it belongs to.
    ///   - sid: The id goals send.
    ///   - name: Its name.
    ///   - now: The creation time, in milliseconds since 1970.
    /// - Returns: The pixel with its id.
    func createPixel(projectId: Int64, sid: String, name: String, now: Int64) throws -> Pixel
    /// A project's pixels.
    ///
    /// - Parameter projectId: The project's id.
    func pixels(projectId: Int64) throws -> [Pixel]
    /// A project's pixel by `sid`, or nil when it has none.
    ///
    /// - Parameters:
    ///   - projectId: The project's id.
    ///   - sid: The pixel's `sid`.
    func pixel(projectId: Int64, sid: String) throws -> Pixel?
    /// Deletes a project's pixel.
    ///
    /// - Parameters:
    ///   - projectId: The project's id.
    ///   - sid: The pixel's `sid`.
    /// - Returns: False when there was no such pixel.
    func deletePixel(projectId: Int64, sid: String) throws -> Bool

    /// Adds a key the project's JWTs are verified with.
    ///
    /// - Parameters:
    ///   - projectId: The project whose JWTs it verifies.
    ///   - kid: The `kid` a token's header names it by.
    ///   - algorithm: The JWT algorithm, e.g. `ES256` or `HS256`.
    ///   - key: A public key in PEM, or the HS256 secret.
    ///   - now: The creation time, in milliseconds since 1970.
    /// - Returns: The stored key.
    func addJWTKey(projectId: Int64, kid: String, algorithm: String, key: String, now: Int64) throws -> JWTKeyRecord
    /// A project's JWT keys.
    ///
    /// - Parameter projectId: The project's id.
    func jwtKeys(projectId: Int64) throws -> [JWTKeyRecord]
    /// Keys with this `kid` in any project.
    func jwtKeys(kid: String) throws -> [JWTKeyRecord]
    /// Deletes a project's JWT key.
    ///
    /// - Parameters:
    ///   - projectId: The project's id.
    ///   - kid: The key's `kid`.
    /// - Returns: False when there was no such key.
    func deleteJWTKey(projectId: Int64, kid: String) throws -> Bool

    /// Adds a server-wide admin key; only its digest is stored, never the key.
    ///
    /// - Parameters:
    ///   - digest: The key's digest.
    ///   - name: What the key is for, shown in listings.
    ///   - now: The creation time, in milliseconds since 1970.
    func addAdminKey(digest: String, name: String, now: Int64) throws
    /// Whether an admin key with this digest exists.
    ///
    /// - Parameter digest: The key's digest.
    func hasAdminKey(digest: String) throws -> Bool
    /// How many admin keys the server has.
    func adminKeyCount() throws -> Int
}

/// Profiles and their fields.
public protocol ProfileQueries {
    /// Creates a profile in a database.
    ///
    /// - Parameters:
    ///   - dbId: The profile database.
    ///   - publicId: The id the API and the SDK know it by.
    ///   - now: The creation time, in milliseconds since 1970.
    /// - Returns: The profile with its row id.
    func createProfile(dbId: Int64, publicId: String, now: Int64) throws -> Profile
    /// Taken before a profile is made for a key no profile holds yet (an email, a phone, an
    /// external id, a field a JWT names): where several connections or nodes may make that
    /// person's profile at once (PostgreSQL), a lock on the key held to the transaction's end, so
    /// that one makes it and the others, once it committed, find it. A store with one writer
    /// (SQLite) takes none.
    ///
    /// - Parameters:
    ///   - dbId: The profile database.
    ///   - name: The field that will hold the key.
    ///   - value: The key.
    /// - Returns: Whether a lock was taken: then the caller looks for the profile again.
    func lockProfileKey(dbId: Int64, name: String, value: JSONValue) throws -> Bool
    /// The profile with this row id, or nil when there is none.
    ///
    /// - Parameter id: The profile's row id.
    func profile(id: Int64) throws -> Profile?
    /// The profile with this public id, or nil when there is none.
    ///
    /// - Parameter publicId: The id the API and the SDK know it by.
    func profile(publicId: String) throws -> Profile?
    /// Profiles of a database whose field `name` equals `value`, oldest first.
    func profiles(dbId: Int64, field name: String, value: JSONValue) throws -> [Profile]
    /// A profile's custom fields by name.
    ///
    /// - Parameter profileId: The profile's row id.
    func profileFields(profileId: Int64) throws -> [String: JSONValue]
    /// The fields named `names` of the profiles of these subscriptions, by subscription: a
    /// personalized message's batch of pushes.
    func personalFields(subscriptionIds: [Int64], names: [String]) throws -> [Int64: [String: JSONValue]]
    /// The language (`_os_language`) of each of these subscriptions that has one, by subscription: a
    /// batch of pushes of a message in several languages.
    func subscriptionLanguages(subscriptionIds: [Int64]) throws -> [Int64: String]
    /// The fields named `names` of these profiles, by profile: a personalized message's inbox copies.
    func personalFields(profileIds: [Int64], names: [String]) throws -> [Int64: [String: JSONValue]]
    /// Sets one custom field of a profile.
    ///
    /// - Parameters:
    ///   - profileId: The profile's row id.
    ///   - name: The field's name.
    ///   - value: Its new value; nil removes the field.
    func setProfileField(profileId: Int64, name: String, value: JSONValue?) throws
    /// Saves `isTest`, `skipTriggers` and `updatedAt`.
    func updateProfile(_ profile: Profile) throws
}

/// Subscriptions of every channel.
public protocol SubscriptionQueries {
    /// The subscription with this id, or nil when there is none.
    ///
    /// - Parameter id: The subscription's id.
    func subscription(id: Int64) throws -> Subscription?
    /// A profile's subscriptions, newest first.
    func subscriptions(profileId: Int64) throws -> [Subscription]
    /// Every profile's subscriptions with this address on this resource and channel.
    func subscriptions(resourceId: Int64, channel: SubscriptionChannel, provider: PushProvider?, token: String) throws
        -> [Subscription]
    /// ``subscriptions(resourceId:channel:provider:token:)``, each with its profile and the
    /// strongest status of the profile's other subscriptions (subscribed, then suspended, then
    /// unsubscribed; nil when it has none), in one lookup: the profile's status after a write of
    /// that subscription alone follows from it and the write's, without reading them again.
    func subscriptionsWithProfiles(
        resourceId: Int64, channel: SubscriptionChannel, provider: PushProvider?, token: String
    ) throws -> [(subscription: Subscription, profile: Profile, othersStatus: SubscriptionStatus?)]
    /// Push subscriptions of a database's profiles with this provider and token.
    func subscriptions(dbId: Int64, provider: PushProvider, token: String) throws -> [Subscription]
    /// The statuses of a profile's subscriptions (all that its own status depends on).
    func subscriptionStatuses(profileId: Int64) throws -> [SubscriptionStatus]
    /// Stores a new subscription.
    ///
    /// - Parameters:
    ///   - values: What it holds.
    ///   - now: The creation time, in milliseconds since 1970.
    /// - Returns: The subscription with its id and timestamps.
    func insertSubscription(_ values: SubscriptionValues, now: Int64) throws -> Subscription
    /// Stores a new subscription whose id the write does not read: as the transaction's next
    /// statement, so on PostgreSQL it goes with the statement after it, in its round trip (a new
    /// device's subscribe). A failure is thrown by that statement, as the write's own.
    ///
    /// - Parameters:
    ///   - values: What it holds.
    ///   - now: The creation time, in milliseconds since 1970.
    func addSubscription(_ values: SubscriptionValues, now: Int64) throws
    /// Saves everything but the id, profile, resource, hash and creation time.
    ///
    /// - Parameters:
    ///   - subscription: What the row holds from now on.
    ///   - read: The row as the caller read it, which `subscription` changes: where naming a column
    ///     costs (PostgreSQL's indexes), the write names the address and the test flag only when
    ///     they differ from it. Nil: they are named, with the same result.
    func updateSubscription(_ subscription: Subscription, from read: Subscription?) throws
}

extension SubscriptionQueries {
    /// ``updateSubscription(_:from:)`` naming every column: for a subscription made up, not read.
    public func updateSubscription(_ subscription: Subscription) throws {
        try updateSubscription(subscription, from: nil)
    }
}

/// Goals and push events.
public protocol EventQueries {
    /// Stores a goal. Nothing is read back, so on PostgreSQL the insert goes with the write's next
    /// statement, in its round trip (`runBeforeNext`); its `id` is ignored (the store numbers it).
    ///
    /// - Parameter goal: The goal, resolved to its pixel.
    func insertGoal(_ goal: GoalRecord) throws
    /// A pixel's goals, newest first.
    func goals(pixelId: Int64, limit: Int) throws -> [GoalRecord]
    /// False when the same resource already has this message's event of this type.
    func insertPushEvent(_ event: PushEventRecord) throws -> Bool
    /// Stores the event of the delivery a push id names, with that delivery's resource and profile,
    /// when it went to `resourceId` or to `profileId`: one statement for a device's report. False
    /// when nothing was stored (no such delivery, another's, or a repeat: ``pushRecipient(pushId:)``
    /// tells which).
    ///
    /// - Parameters:
    ///   - pushId: `<message public id>.<delivery id>`, as the device reports it.
    ///   - type: A delivery or an open.
    ///   - time: When the device saw it, in milliseconds since 1970.
    ///   - receivedAt: Now, in milliseconds since 1970.
    ///   - resourceId: The caller's resource.
    ///   - profileId: The profile the caller's JWT names, if any.
    func insertPushEvent(
        pushId: String, type: PushEventRequest.Kind, time: Int64, receivedAt: Int64, sentTo resourceId: Int64,
        orTo profileId: Int64?
    ) throws -> Bool
    /// Every push event (deliveries and opens) of a message.
    ///
    /// - Parameter messageId: The message's public id.
    func pushEvents(messageId: String) throws -> [PushEventRecord]
    /// Where the delivery a push id names (`<message public id>.<delivery id>`) went; nil when no
    /// such delivery of that message exists.
    func pushRecipient(pushId: String) throws -> PushRecipient?
}

/// What a write that first looks something up did (``IdempotencyQueries/unlessAnswered(scope:key:_:)``):
/// found it, and ran nothing but reads, or ran.
public enum FoundOrRan<Found, Value> {
    /// What the lookup found (the key's stored answer): the write changed nothing.
    case found(Found)
    /// The lookup found nothing: the write ran and gave this.
    case ran(Value)
}

/// The first answers of idempotent requests.
public protocol IdempotencyQueries {
    /// The first answer stored for an idempotency key, or nil when there is none.
    ///
    /// - Parameters:
    ///   - scope: Who sent the key (its caller), so two callers' keys never meet.
    ///   - key: The request's `Idempotency-Key`.
    func storedAnswer(scope: String, key: String) throws -> StoredAnswer?
    /// Runs `write` unless the key has a stored answer, which it returns instead; then nothing
    /// `write` did is kept but reads. The same as ``storedAnswer(scope:key:)`` first, then `write`:
    /// on PostgreSQL the lookup goes with the write's first read, one round trip less.
    ///
    /// - Parameters:
    ///   - scope: Who sent the key.
    ///   - key: The request's `Idempotency-Key`.
    ///   - write: The write's statements.
    func unlessAnswered<Value>(scope: String, key: String, _ write: () throws -> Value) throws
        -> FoundOrRan<StoredAnswer, Value>
    /// Stores the first answer to an idempotent request.
    ///
    /// - Parameters:
    ///   - scope: Who sent the key.
    ///   - key: The request's `Idempotency-Key`.
    ///   - answer: The answer to give a repeat of the request.
    ///   - now: The time it was stored, in milliseconds since 1970.
    func storeAnswer(scope: String, key: String, answer: StoredAnswer, now: Int64) throws
    /// Forgets answers stored before `cutoff`; returns how many.
    func deleteAnswers(before cutoff: Int64) throws -> Int
}
