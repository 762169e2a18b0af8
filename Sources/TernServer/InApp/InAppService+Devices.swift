import Foundation
import TernCrypto
import TernProtocol

/// The SDK's in-app endpoints: the in-app subscription (channel `inapp`), placements and events.
extension InAppService {
    /// `inapp/subscribe`, `inapp/unsubscribe`: sets the status of the profile's in-app subscription on
    /// the caller's resource, creating it; a change older (by `time`) than the last one applied changes nothing.
    func change(
        _ request: InAppSubscriptionRequest, to status: SubscriptionStatus, caller: Caller,
        idempotency: IdempotencyToken
    ) async throws -> Answer {
        let provider = try Self.checkIdentity(request)
        try Validation.time(request.time)
        try CustomFields.validate(request.customFields)
        for cat in request.cats ?? [] where (cat.name ?? "").isEmpty { throw APIError.categoryNotFound }
        let now = clock()
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            let resolver = ProfileResolver(caller: caller, now: now)
            let categories = try tx.categories(resourceId: caller.resource.id)
            try Validation.categories((request.cats ?? []).compactMap(\.name), in: categories)
            var profile: Profile
            if caller.hasJWT {
                profile = try resolver.findOrCreate(tx, provider: provider, token: request.subscriptionId)
            } else if let found = try resolver.find(tx, provider: provider, token: request.subscriptionId) {
                profile = found
            } else {
                throw Self.noProfile(request)
            }
            let existing = try Self.subscription(tx, profile: profile.id, resourceId: caller.resource.id)
            if let existing, request.time < existing.clientTime {
                return try SubscriptionService.answer(
                    tx, request.sync, profile, existing.values, categories: categories)
            }
            profile = try resolver.applyProfileChanges(
                tx, to: profile, fields: request.profileFields, skipTriggers: request.skipTriggers,
                triggers: store.triggerDirectory)
            let change = SubscriptionChange(
                to: status, existing: existing, cats: request.cats, customFields: request.customFields,
                time: request.time)
            let subscription: Subscription
            if let existing {
                subscription = try change.update(existing, tx, now: now)
            } else {
                subscription = try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: profile.id, resourceId: caller.resource.id, channel: InAppWire.channel,
                        provider: nil, token: "", status: status,
                        hashId: SubscriptionService.hashId(
                            profile, caller.resource.id, InAppWire.channel.storedProvider(nil), ""),
                        fields: change.fields, cats: change.cats, clientTime: request.time),
                    now: now)
            }
            if request.replace == true, let provider, let token = request.subscriptionId {
                try Self.unsubscribeOthers(
                    tx, keeping: profile, resourceId: caller.resource.id, provider: provider, token: token, now: now)
            }
            return try SubscriptionService.answer(
                tx, request.sync, profile, subscription.values, categories: categories)
        }
    }

    /// `inapp/status`: the profile with its in-app subscription, or a null profile.
    func status(_ request: InAppStatusRequest, caller: Caller) async throws -> Answer {
        let provider = try Self.checkIdentity(request)
        let now = clock()
        return try await store.read { tx in
            let resolver = ProfileResolver(caller: caller, now: now)
            guard let profile = try resolver.find(tx, provider: provider, token: request.subscriptionId) else {
                return try .ok(nil)
            }
            let subscription = try Self.subscription(tx, profile: profile.id, resourceId: caller.resource.id)
            return try .ok(ProfilePresenter.profileData(tx, profile: profile, subscription: subscription?.values))
        }
    }

    /// `inapp/placements`: the campaigns this device may show now, highest priority first.
    func placements(_ request: InAppPlacementsRequest, caller: Caller) async throws -> Answer {
        let provider = try Self.checkIdentity(request)
        if let screen = request.screen { try InAppValidation.length(screen, InAppValidation.screenLength, "screen") }
        let limit = request.maxPlacements ?? InAppPlacementsRequest.defaultMaxPlacements
        guard InAppPlacementsRequest.maxPlacementsRange.contains(limit) else {
            throw InAppValidation.refuse("max_placements", "must be 1 to 100, not \(limit)")
        }
        let now = clock()
        let entry = try await catalog.entry(
            projectId: caller.project.id, resourceId: caller.resource.id, store: store, now: now)
        // Who the device is: its profile, in-app subscription, and the tags of its push binding.
        let subject = try await store.read { tx -> DeviceSubject in
            let resolver = ProfileResolver(caller: caller, now: now)
            guard let profile = try resolver.find(tx, provider: provider, token: request.subscriptionId) else {
                return DeviceSubject(profile: nil, inApp: nil, tags: nil)
            }
            let inApp = try Self.subscription(tx, profile: profile.id, resourceId: caller.resource.id)
            var tags: [String: String]?
            var pushBinding: Subscription?
            if entry.needsTags, let provider, let token = request.subscriptionId,
                let binding = try tx.subscription(
                    of: profile.id, resourceId: caller.resource.id, provider: provider, token: token)
            {
                tags = try tx.tags(subscriptionId: binding.id)
                pushBinding = binding
            }
            return DeviceSubject(profile: profile, inApp: inApp, tags: tags, binding: pushBinding)
        }
        let subscribed = subject.inApp?.status == .subscribed
        var chosen: [LiveCampaign] = []
        for campaign in entry.campaigns where campaign.holds(now: now, screen: request.screen) {
            guard campaign.anonymous || subscribed else { continue }
            if let audience = campaign.audience {
                guard let inApp = subject.inApp, audience.matches(inApp, tags: subject.tags) else { continue }
            }
            if let expression = campaign.expression {
                guard let binding = subject.binding,
                    expression.matches(fields: binding.fields, tags: subject.tags ?? [:], now: now)
                else { continue }
            }
            chosen.append(campaign)
            if chosen.count == limit { break }
        }
        let who =
            subject.profile.map { "profile:\($0.publicId)" }
            ?? request.subscriptionId.map { "device:\(request.provider ?? ""):\($0)" } ?? "anonymous"
        var json = #"{"error":0,"error_text":"","profile":null,"data":{"placements":["#
        for (index, campaign) in chosen.enumerated() {
            if index > 0 { json += "," }
            json += campaign.json(smid: InAppSmid.make(campaignId: campaign.id, subject: who))
        }
        let status = subject.inApp.map { "\"\($0.status.rawValue)\"" } ?? "null"
        json +=
            #"],"project_caps":\#(entry.projectCapsJSON),"fetched_at":"\#(InAppWire.format(Date(milliseconds: now)))""#
        json += #","inapp_status":\#(status)}}"#
        if !chosen.isEmpty, await placed.add(chosen.map(\.id), now: now) {
            let placed = placed
            let store = store
            Task { await placed.flush(store: store, now: now) }
        }
        return Answer(status: 200, body: Data(json.utf8))
    }

    /// `inapp/event`: counts the event into its campaign's statistics, once per idempotency key, and
    /// with it (a `shown` or `clicked`) starts the person's waits for the messages it triggers
    /// (``MessageTrigger/inAppShown``, ``MessageTrigger/inAppClicked``) and queues its event for
    /// the project's webhooks that want it (`inapp.shown`, …): a replay of the key does neither again.
    func event(_ request: InAppEventRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        let provider = try Self.checkIdentity(request)
        guard let campaignId = Int64(request.campaignId), campaignId > 0 else {
            throw APIError.notFound("campaign \"\(request.campaignId.prefix(32))\" not found")
        }
        try InAppValidation.length(request.smid, 1...256, "smid")
        let item: String
        switch request.type {
        case .clicked:
            guard let button = request.buttonId else {
                throw InAppValidation.refuse("button_id", "a click names its button")
            }
            try InAppValidation.length(button, InAppValidation.buttonIdLength, "button_id")
            item = button
        case .error:
            guard let reason = request.reason else { throw InAppValidation.refuse("reason", "an error says why") }
            try InAppValidation.length(reason, InAppValidation.reasonLength, "reason")
            item = reason
        case .shown, .closed:
            item = ""
        }
        let kind: InAppStatKind =
            switch request.type {
            case .shown: .shown
            case .clicked: .clicked
            case .closed: .closed
            case .error: .error
            }
        let now = clock()
        let directory = store.triggerDirectory
        let webhooks = store.webhookDirectory
        let webhookType = WebhookEventType(inApp: request.type)
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            guard let record = try tx.inAppCampaign(id: campaignId), record.projectId == caller.project.id,
                record.resourceId == caller.resource.id
            else {
                throw APIError.notFound("campaign \(campaignId) not found for resource \(caller.resource.id)")
            }
            guard InAppSmid.campaignId(of: request.smid) == campaignId else {
                throw InAppValidation.refuse(
                    "smid",
                    "\"\(request.smid.prefix(64))\" is not a placement of campaign \(campaignId): send the smid "
                        + "inapp/placements gave with it")
            }
            if request.type == .clicked, case .template = try record.decodedDefinition().content.kind {
                let buttons = try record.decodedDefinition().content.template?.buttons ?? []
                guard buttons.contains(where: { $0.id == item }) else {
                    throw InAppValidation.refuse(
                        "button_id", "campaign \(campaignId) has no button \"\(item.prefix(64))\"")
                }
            }
            try tx.addInAppStat(campaignId: campaignId, kind: kind.rawValue, item: item, count: 1)
            // The person is the device's (its push identity, or the JWT's), looked up at most once
            // and only when a trigger or a webhook needs them.
            var found: Profile??
            let profile = { () throws -> Profile? in
                if let found { return found }
                let profile = try ProfileResolver(caller: caller, now: now).find(
                    tx, provider: provider, token: request.subscriptionId)
                found = .some(profile)
                return profile
            }
            if let event = MessageTrigger.inAppEvent(request.type) {
                // A device Tern knows no profile of starts nothing: there is no one to send a push to.
                try TriggerWaits.noteInApp(
                    tx, directory: directory, campaignId: campaignId, event: event,
                    button: request.type == .clicked ? item : nil, profile: profile, now: now)
            }
            if try webhooks.wanted(tx, projectId: caller.project.id, now: now).contains(webhookType) {
                let body = InAppWebhookEvents.json(
                    request, campaignId: campaignId, provider: provider, profile: try profile()?.publicId)
                try tx.enqueueWebhookEvents(projectId: caller.project.id, type: webhookType, bodies: [body], now: now)
            }
            return try .ok(nil)
        }
    }

    // MARK: helpers

    struct DeviceSubject: Sendable {
        var profile: Profile?
        var inApp: Subscription?
        var tags: [String: String]?
        /// The device's push binding, read when a campaign's audience needs its tags or fields.
        var binding: Subscription? = nil
    }

    static func subscription(_ tx: any StoreTransaction, profile: Int64, resourceId: Int64) throws -> Subscription? {
        try tx.subscription(
            of: profile, resourceId: resourceId, channel: InAppWire.channel, provider: nil, token: "")
    }

    /// The push identity, when sent, is both fields and valid: its provider, or nil when not sent.
    @discardableResult
    static func checkIdentity(_ request: some InAppIdentified) throws(APIError) -> PushProvider? {
        switch (request.provider, request.subscriptionId) {
        case (nil, nil):
            return nil
        case (let name?, let token?):
            let provider = try Validation.provider(name)
            try Validation.token(token)
            return provider
        default:
            throw .badRequest(
                "provider and subscription_id come together (the device's push identity), or neither")
        }
    }

    static func noProfile(_ request: some InAppIdentified) -> APIError {
        request.subscriptionId == nil
            ? .notFound(
                "no profile for this device: send the device's push identity (provider, subscription_id) "
                    + "or a JWT naming the profile")
            : .notFound(
                "no profile for this device: no profile holds this push token on this resource; subscribe it to "
                    + "push first or send a JWT naming the profile")
    }

    /// `replace`: the in-app subscriptions of the other profiles holding this device's push token
    /// in the same database become unsubscribed.
    static func unsubscribeOthers(
        _ tx: any StoreTransaction, keeping profile: Profile, resourceId: Int64, provider: PushProvider, token: String,
        now: Int64
    ) throws {
        let holders = Set(try tx.subscriptions(dbId: profile.dbId, provider: provider, token: token).map(\.profileId))
        for other in holders where other != profile.id {
            if let read = try subscription(tx, profile: other, resourceId: resourceId), read.status != .unsubscribed {
                var inApp = read
                inApp.status = .unsubscribed
                inApp.updatedAt = now
                try tx.updateSubscription(inApp, from: read)
            }
        }
    }
}
