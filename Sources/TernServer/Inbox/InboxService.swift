import Foundation
import TernProtocol

/// The inbox: the SDK's reads and writes (JWT only: the person is the JWT's), and the management
/// API's puts. Every write is one transaction; marks and deletes are idempotent (a second one
/// changes nothing and answers the same), and an id that is not the caller's answers 404, never
/// another person's message.
///
/// ```swift
/// let inbox = InboxService(store: store)
/// let answer = try await inbox.list(InboxListRequest(cursor: nil), caller: caller)
/// ```
struct InboxService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    /// A service over `store`.
    init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    static let day: Int64 = 86_400_000

    // MARK: SDK

    /// What changed since the request's cursor (everything live for a first sync or an unknown cursor).
    func list(_ request: InboxListRequest, caller: Caller) async throws -> InboxListAnswer {
        let limit = request.limit ?? InboxLimits.maxMessages
        guard (1...InboxLimits.maxMessages).contains(limit) else {
            throw APIError.badRequest("limit: must be 1 to \(InboxLimits.maxMessages), not \(limit)")
        }
        if let cursor = request.cursor, cursor.utf8.count > 64 {
            throw APIError.badRequest("cursor: longer than 64 bytes; send the cursor of the last answer, or none")
        }
        let now = clock()
        return try await store.read { tx in
            guard let profile = try Self.profile(tx, caller) else {
                return InboxListAnswer(
                    messages: [], removed: [], cursor: "0.\(now)", unread: 0, more: false, reset: true)
            }
            let unread = try tx.inboxUnreadCount(profileId: profile.id, now: now)
            let current = try tx.inboxVersion(profileId: profile.id)
            guard let (version, time) = request.cursor.flatMap(Self.parse), version <= current else {
                let live = try tx.liveInboxMessages(profileId: profile.id, now: now, limit: InboxLimits.maxMessages)
                return InboxListAnswer(
                    messages: live.map(\.wire), removed: [], cursor: "\(current).\(now)", unread: unread, more: false,
                    reset: true)
            }
            var changes = try tx.inboxChanges(profileId: profile.id, afterVersion: version, limit: limit + 1)
            let more = changes.count > limit
            if more { changes.removeLast() }
            var messages: [InboxMessage] = []
            var removed: [InboxRemoved] = []
            for row in changes {
                if let reason = row.removed {
                    removed.append(InboxRemoved(id: row.publicId, reason: reason))
                } else if row.expiresAt <= now {
                    removed.append(InboxRemoved(id: row.publicId, reason: .expired))
                } else {
                    messages.append(row.wire)
                }
            }
            guard !more else {
                let next = "\(changes.last?.version ?? version).\(time)"
                return InboxListAnswer(
                    messages: messages, removed: removed, cursor: next, unread: unread, more: true, reset: false)
            }
            for id in try tx.inboxExpired(profileId: profile.id, upToVersion: version, after: time, now: now) {
                removed.append(InboxRemoved(id: StoredInboxMessage.publicId(id), reason: .expired))
            }
            return InboxListAnswer(
                messages: messages, removed: removed, cursor: "\(current).\(now)", unread: unread, more: false,
                reset: false)
        }
    }

    /// The unread count.
    func unread(caller: Caller) async throws -> InboxUnreadAnswer {
        let now = clock()
        return try await store.read { tx in
            guard let profile = try Self.profile(tx, caller) else { return InboxUnreadAnswer(unread: 0) }
            return InboxUnreadAnswer(unread: try tx.inboxUnreadCount(profileId: profile.id, now: now))
        }
    }

    /// Marks the message read on every device (an `inbox.read` webhook event); again changes nothing.
    func markRead(_ request: InboxMessageRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        try await change(request, caller: caller, idempotency: idempotency, told: .inboxRead) { tx, row, now in
            try tx.markInboxMessageRead(id: row.id, profileId: row.profileId, now: now)
        }
    }

    /// Deletes the message from every device (an `inbox.deleted` webhook event); again changes nothing.
    func delete(_ request: InboxMessageRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        try await change(request, caller: caller, idempotency: idempotency, told: .inboxDeleted) { tx, row, now in
            try tx.removeInboxMessage(id: row.id, profileId: row.profileId, reason: .deleted, now: now)
        }
    }

    /// Applies a change to the caller's message; `apply` answers whether it changed it, and a real
    /// change is queued as a `told` event for the project's webhooks that want it.
    private func change(
        _ request: InboxMessageRequest, caller: Caller, idempotency: IdempotencyToken, told: WebhookEventType,
        _ apply: @escaping @Sendable (any StoreTransaction, StoredInboxMessage, Int64) throws -> Bool
    ) async throws -> Answer {
        if let problem = InboxLimits.problem(id: request.id) { throw APIError.badRequest(problem) }
        let now = clock()
        let webhooks = store.webhookDirectory
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            let notFound = APIError.notFound(
                "id: no message \(request.id.prefix(64)) in the signed-in person's inbox (it may have been "
                    + "deleted or expired: sync the inbox)")
            guard let profile = try Self.profile(tx, caller), let rowId = StoredInboxMessage.rowId(request.id),
                let row = try tx.inboxMessage(id: rowId), row.profileId == profile.id
            else { throw notFound }
            // A message already deleted, dropped or expired: the change is done (idempotent).
            if row.removed == nil, row.expiresAt > now, try apply(tx, row, now),
                try webhooks.wanted(tx, projectId: caller.project.id, now: now).contains(told)
            {
                let body = InboxWebhookEvents.json(told, messageId: row.publicId, profile: profile.publicId, now: now)
                try tx.enqueueWebhookEvents(projectId: caller.project.id, type: told, bodies: [body], now: now)
            }
            return try .ok(nil)
        }
    }

    /// The JWT's profile; a 401 for a caller without a JWT (the inbox is a signed-in person's).
    static func profile(_ tx: any StoreTransaction, _ caller: Caller) throws -> Profile? {
        guard caller.hasJWT else {
            throw APIError.unauthorized(
                "Authorization: the inbox is a signed-in person's: send the user's JWT (Bearer), not only the rToken")
        }
        return try ProfileResolver(caller: caller, now: 0).find(tx, provider: nil, token: nil)
    }

    static func parse(_ cursor: String) -> (Int64, Int64)? {
        let parts = cursor.split(separator: ".")
        guard parts.count == 2, let version = Int64(parts[0]), let time = Int64(parts[1]), version >= 0, time >= 0
        else { return nil }
        return (version, time)
    }

    // MARK: Management API

    /// Puts a message in the inbox of every profile of the audience; answers how many. With a
    /// project key (`keyProject`), the audience must be in that project.
    func put(_ request: InboxPutRequest, keyProject: Int64? = nil) async throws -> InboxPutAnswer {
        try request.validate()
        let now = clock()
        return try await store.write { tx in
            let scope = try MessageScope.resolve(tx, request.messageRequest, keyProject: keyProject)
            let profiles = try InboxAudience.profileIds(tx, request.audience, projectId: scope.projectId)
            let projectDays = try tx.inboxExpiryDays(projectId: scope.projectId)
            let days = request.expiresInDays ?? projectDays ?? InboxLimits.defaultExpiryDays
            let expiresAt = request.expiresAt ?? now + Int64(days) * Self.day
            let data = String(decoding: try JSONCoders.encoder.encode(request.data ?? [:]), as: UTF8.self)
            var ids: [String] = []
            for profileId in profiles {
                let message = NewInboxMessage(
                    profileId: profileId, sourceMessageId: nil, title: request.title, body: request.body,
                    imageURL: request.imageURL, link: request.link, data: data,
                    expiresAt: expiresAt)
                if let stored = try tx.insertInboxMessage(message, keep: InboxLimits.maxMessages, now: now) {
                    ids.append(stored.publicId)
                }
            }
            try tx.purgeInbox(before: now - 7 * Self.day)
            return InboxPutAnswer(profiles: ids.count, ids: Array(ids.prefix(1000)), expiresAt: expiresAt)
        }
    }

    /// A profile's inbox as the person sees it (live messages, newest first) with its unread count.
    func messages(profilePublicId: String) async throws -> AdminInboxView {
        let now = clock()
        return try await store.read { tx in
            guard let profile = try tx.profile(publicId: profilePublicId) else {
                throw APIError.notFound("profile_id: no profile \(profilePublicId.prefix(64))")
            }
            return AdminInboxView(
                profileId: profile.publicId,
                unread: try tx.inboxUnreadCount(profileId: profile.id, now: now),
                messages: try tx.liveInboxMessages(profileId: profile.id, now: now, limit: InboxLimits.maxMessages)
                    .map(\.wire))
        }
    }

    /// The project's inbox expiry.
    func settings(projectId: Int64) async throws -> InboxSettings {
        try await store.read { tx in
            guard try tx.project(id: projectId) != nil else {
                throw APIError.notFound("project_id: project \(projectId) does not exist")
            }
            return InboxSettings(
                expiryDays: try tx.inboxExpiryDays(projectId: projectId) ?? InboxLimits.defaultExpiryDays)
        }
    }

    /// Sets the project's inbox expiry (messages put from now on).
    func setSettings(projectId: Int64, _ settings: InboxSettings) async throws -> InboxSettings {
        guard (1...InboxLimits.maxExpiryDays).contains(settings.expiryDays) else {
            throw APIError.badRequest(
                "expiry_days: must be 1 to \(InboxLimits.maxExpiryDays), not \(settings.expiryDays)")
        }
        let now = clock()
        return try await store.write { tx in
            guard try tx.project(id: projectId) != nil else {
                throw APIError.notFound("project_id: project \(projectId) does not exist")
            }
            try tx.setInboxExpiryDays(projectId: projectId, days: settings.expiryDays, now: now)
            return settings
        }
    }

    /// Copies a push to the inboxes of the `recipients`' profiles (once per profile, whatever the
    /// chunks): a message with `inbox: true`; called in the fan-out's transaction. `recipients` is
    /// read only for such a message: a chunk passes a lazy view of its candidates, and mapping them
    /// into an array for every message cost 1.5 % of a send's CPU. In an A/B test each person's copy
    /// is the version of their first device the message reaches.
    static func copy(
        _ tx: any StoreTransaction, message: StoredMessage, request: MessageRequest,
        recipients: some Collection<(profileId: Int64, subscriptionId: Int64)>, now: Int64
    ) throws {
        guard request.inbox == true, !recipients.isEmpty else { return }
        let days = try tx.inboxExpiryDays(projectId: message.projectId) ?? InboxLimits.defaultExpiryDays
        var seen: Set<Int64> = []
        var versions: [Int: (request: MessageRequest, data: String)] = [:]
        // A personalized message's copies are each person's, their fields read for the chunk at once.
        let names = try Personalization.fields(request)
        let fields =
            names.isEmpty
            ? [:] : try tx.personalFields(profileIds: Set(recipients.map(\.profileId)).sorted(), names: names.sorted())
        // A message in several languages: each copy in the language of the device it reached first.
        let localized = !(request.localizations ?? [:]).isEmpty
        let languages =
            localized
            ? try tx.subscriptionLanguages(subscriptionIds: Set(recipients.map(\.subscriptionId)).sorted()) : [:]
        for (profileId, subscriptionId) in recipients where seen.insert(profileId).inserted {
            let index = message.variant(subscriptionId: subscriptionId)
            let version = index ?? -1
            if versions[version] == nil {
                let request = request.version(index)
                versions[version] = (
                    request, String(decoding: try JSONCoders.encoder.encode(request.data ?? [:]), as: UTF8.self)
                )
            }
            guard let (shown, kept) = versions[version] else { continue }
            let inLanguage = localized ? shown.localized(languages[subscriptionId]) : shown
            let copy =
                names.isEmpty ? inLanguage : Personalization.personalized(inLanguage, fields: fields[profileId] ?? [:])
            // Custom data with a placeholder is the person's own too.
            let data =
                names.isEmpty || copy.data == shown.data
                ? kept : String(decoding: try JSONCoders.encoder.encode(copy.data ?? [:]), as: UTF8.self)
            _ = try tx.insertInboxMessage(
                NewInboxMessage(
                    profileId: profileId, sourceMessageId: message.id, title: copy.title, body: copy.body,
                    imageURL: copy.mediaURL, link: copy.clickURL, data: data,
                    expiresAt: message.createdAt + Int64(days) * day),
                keep: InboxLimits.maxMessages, now: now)
        }
    }
}
