import Foundation
import TernProtocol

/// Finds (and, for writes that name a known user, creates) the profile a request is about.
struct ProfileResolver {
    let caller: Caller
    let now: Int64

    /// With a JWT: the profile its identity names in the JWT's database. With an rToken only: the
    /// profile of the resource's database that holds the push subscription (provider, token), if any.
    func find(_ tx: any StoreTransaction, provider: PushProvider?, token: String?) throws -> Profile? {
        guard let identity = caller.identity else {
            guard let provider, let token, !token.isEmpty else { return nil }
            return try holding(tx, provider: provider, token: token)?.profile
        }
        let dbId = caller.database.id
        switch identity {
        case .email, .phone, .field:
            guard let (name, value) = identity.storedField else { return nil }
            return try tx.profiles(dbId: dbId, field: name, value: value).first
        case .profileId(let publicId):
            return try tx.profile(publicId: publicId).flatMap { $0.dbId == dbId ? $0 : nil }
        case .subscription(let name, let token):
            // A provider Tern does not know holds no subscription: the JWT names no one yet.
            guard let provider = PushProvider(rawValue: name),
                let subscription = try tx.subscriptions(dbId: dbId, provider: provider, token: token).first
            else { return nil }
            return try tx.profile(id: subscription.profileId)
        }
    }

    /// ``find(_:provider:token:)``, or a new profile in the caller's database that stores the JWT's
    /// identity as a field. A JWT naming a profile id that does not exist is an error.
    func findOrCreate(_ tx: any StoreTransaction, provider: PushProvider?, token: String?) throws -> Profile {
        if let found = try find(tx, provider: provider, token: token) { return found }
        return try foundOnceClaimed(tx) ?? create(tx)
    }

    /// Of a JWT's identity that no profile holds: the profile another transaction made for it
    /// meanwhile (``claimNewKey(_:dbId:field:value:)``), else nil.
    private func foundOnceClaimed(_ tx: any StoreTransaction) throws -> Profile? {
        guard let (name, value) = caller.identity?.storedField else { return nil }
        return try Self.claimNewKey(tx, dbId: caller.database.id, field: name, value: value)?.first
    }

    /// Called when no profile of database `dbId` holds field `name` = `value` and one is about to be
    /// made for it (a JWT's first request, a log-in to a new external id, the backend's `create`).
    /// Where other transactions may be making the same person's profile at once (PostgreSQL:
    /// several connections, several nodes), waits for them (``SQLTransaction/lockProfileKey(dbId:name:value:)``)
    /// and answers the profiles holding the key now, so that the first request makes the profile
    /// and the others find it instead of making one each. Nil on SQLite, whose one writer runs them
    /// one after another: the lookup already made stands.
    static func claimNewKey(_ tx: any StoreTransaction, dbId: Int64, field name: String, value: JSONValue) throws
        -> [Profile]?
    {
        guard try tx.lockProfileKey(dbId: dbId, name: name, value: value) else { return nil }
        return try tx.profiles(dbId: dbId, field: name, value: value)
    }

    /// The profile ``findOrCreate(_:provider:token:)`` makes when it finds none.
    private func create(_ tx: any StoreTransaction) throws -> Profile {
        if case .profileId(let publicId)? = caller.identity {
            throw APIError.notFound(
                "profile \"\(publicId)\" not found in profile database \(caller.database.id): "
                    + "matching.profile_id must name an existing profile")
        }
        return try Self.createProfile(tx, dbId: caller.database.id, identity: caller.identity, now: now)
    }

    /// A new profile in database `dbId` that stores `identity` as a field (`_email`, `_phone`, or
    /// the field it names), so that a JWT naming that identity later finds it: what a JWT's first
    /// request makes, and what `profiles/update` makes with `create`.
    static func createProfile(_ tx: any StoreTransaction, dbId: Int64, identity: ProfileIdentity?, now: Int64) throws
        -> Profile
    {
        let profile = try tx.createProfile(dbId: dbId, publicId: Profile.newPublicId(now: now), now: now)
        if let (name, value) = identity?.storedField {
            try tx.setProfileField(profileId: profile.id, name: name, value: value)
        }
        return profile
    }

    /// ``find(_:provider:token:)`` with that profile's subscription on the caller's resource for this
    /// provider and token (nil when it has none). An rToken-only caller's profile is the holder of
    /// that very subscription, so one lookup of the token on the resource gives both: it was two
    /// (the holders, then the profile's subscription), a fifth of push/update's time on the writer.
    /// That lookup also gives `others`, what the profile's status depends on besides the
    /// subscription (``ProfilePresenter/status(of:)``), so that a write's answer need not read it
    /// back (a round trip on PostgreSQL); nil when it was not read.
    func findWithSubscription(_ tx: any StoreTransaction, provider: PushProvider, token: String) throws
        -> (profile: Profile, subscription: Subscription?, others: [SubscriptionStatus]?)?
    {
        guard caller.identity == nil, !token.isEmpty else {
            guard let profile = try find(tx, provider: provider, token: token) else { return nil }
            let subscription = try tx.subscription(
                of: profile.id, resourceId: caller.resource.id, provider: provider, token: token)
            return (profile, subscription, nil)
        }
        return try holding(tx, provider: provider, token: token).map { ($0.profile, $0.subscription, $0.others) }
    }

    /// ``findWithSubscription(_:provider:token:)``, or a new profile as ``findOrCreate(_:provider:token:)``
    /// makes it (with no subscription yet, nor any other: `created` says so).
    func findOrCreateWithSubscription(_ tx: any StoreTransaction, provider: PushProvider, token: String) throws
        -> (profile: Profile, subscription: Subscription?, created: Bool, others: [SubscriptionStatus]?)
    {
        if let (profile, subscription, others) = try findWithSubscription(tx, provider: provider, token: token) {
            return (profile, subscription, false, others)
        }
        if let profile = try foundOnceClaimed(tx) {
            let subscription = try tx.subscription(
                of: profile.id, resourceId: caller.resource.id, provider: provider, token: token)
            return (profile, subscription, false, nil)
        }
        return (try create(tx), nil, true, [])
    }

    /// The fields of a profile this request made, known without reading them: none, when the caller
    /// has no JWT identity stored as a field (every new device's subscribe with an rToken). Nil when
    /// `create` wrote one: read back, as stored.
    func fieldsOfCreatedProfile() -> [String: JSONValue]? {
        caller.identity?.storedField == nil ? [:] : nil
    }

    /// The rToken-only profile and its subscription with this token on the caller's resource: of the
    /// profiles in the resource's database holding the token there, the one whose subscription is
    /// subscribed and newest, else the newest.
    private func holding(_ tx: any StoreTransaction, provider: PushProvider, token: String) throws
        -> (profile: Profile, subscription: Subscription, others: [SubscriptionStatus])?
    {
        let onResource = try tx.subscriptionsWithProfiles(
            resourceId: caller.resource.id, channel: .push, provider: provider, token: token)
        var checked: Set<Int64> = []
        for candidate in onResource.filter({ $0.subscription.status == .subscribed }) + onResource
        where checked.insert(candidate.profile.id).inserted && candidate.profile.dbId == caller.database.id {
            // The profile's newest subscription with the token, as `subscription(of:…)` reads it.
            let newest = onResource.first { $0.profile.id == candidate.profile.id } ?? candidate
            return (candidate.profile, newest.subscription, newest.othersStatus.map { [$0] } ?? [])
        }
        return nil
    }

    /// Applies `profile_fields` and `skip_triggers` to the profile; returns it as saved. `knownFields`
    /// are the profile's stored fields when the caller knows them (a profile this request made), so
    /// they are not read again. A field that took a new value starts the person's waits for the
    /// project's messages it triggers (``MessageTrigger/fieldSet``, with the `skip_triggers` this
    /// request leaves); `triggers` nil: it starts none (a device import's fields).
    @discardableResult
    func applyProfileChanges(
        _ tx: any StoreTransaction, to profile: Profile, fields: [String: JSONValue]?, skipTriggers: Bool?,
        knownFields: [String: JSONValue]? = nil, triggers: TriggerDirectory?
    ) throws -> Profile {
        try Self.applyProfileChanges(
            tx, to: profile, fields: fields, skipTriggers: skipTriggers, knownFields: knownFields, triggers: triggers,
            projectId: caller.project.id, now: now)
    }

    /// ``applyProfileChanges(_:to:fields:skipTriggers:knownFields:triggers:)`` for a writer that is
    /// not a device (the operator's backend, `profiles/update`): the project whose triggered messages
    /// the changes start, and the time, named.
    @discardableResult
    static func applyProfileChanges(
        _ tx: any StoreTransaction, to profile: Profile, fields: [String: JSONValue]?, skipTriggers: Bool?,
        knownFields: [String: JSONValue]? = nil, triggers: TriggerDirectory?, projectId: Int64, now: Int64
    ) throws -> Profile {
        var current: [String: JSONValue] = [:]
        var changes: [String: JSONValue?] = [:]
        if let fields, !fields.isEmpty {
            current = try knownFields ?? tx.profileFields(profileId: profile.id)
            changes = try ProfileFieldsEditor.changes(fields, current: current)
            for (name, value) in changes {
                try tx.setProfileField(profileId: profile.id, name: name, value: value)
            }
        }
        var updated = profile
        if let skipTriggers { updated.skipTriggers = skipTriggers }
        updated.updatedAt = now
        // Nothing to write when the row would not change, as for a profile this request made (a new
        // device's subscribe, with fields or without): its row was written with this very time, and
        // its fields live in rows of their own, written above.
        if updated != profile { try tx.updateProfile(updated) }
        if let triggers, !changes.isEmpty {
            try TriggerWaits.noteFieldsSet(
                tx, directory: triggers, projectId: projectId, profile: updated, before: current,
                changes: changes, now: now)
        }
        return updated
    }
}
