import Foundation
import TernCrypto
import TernProtocol

/// `live-activity/token` and `live-activity/end`: ActivityKit's tokens of a device, kept as
/// subscriptions of its person on its resource (`live_activity` keyed by the
/// activity's id, `live_activity_start` by the activity type), one row a device
/// and key: a new token for the same activity replaces the one before. The device is the push
/// subscription the request names; a device without one gets a 404 that says to subscribe first.
struct LiveActivityService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    /// In the SDK group.
    var routes: [Route] {
        let service = self
        return [
            .sdk(.liveActivityToken, LiveActivityTokenRequest.self) { request, caller, key in
                try request.validate()
                return try await service.token(request, caller: caller, idempotency: key)
            },
            .sdk(.liveActivityEnd, LiveActivityEndRequest.self) { request, caller, key in
                try request.validate()
                return try await service.end(request, caller: caller, idempotency: key)
            },
            .sdk(.liveActivityChannel, LiveActivityChannelRequest.self) { request, caller, _ in
                Answer(
                    status: 200, body: try JSONCoders.encoder.encode(try await service.channel(request, caller: caller))
                )
            },
        ]
    }

    /// Writes the device's token for the activity (or type), subscribed; a request older (by `time`)
    /// than the token's last change changes nothing.
    func token(_ request: LiveActivityTokenRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        try await onDevice(
            request.provider, request.subscriptionId,
            Slot(activityType: request.activityType, activityId: request.activityId), caller: caller,
            idempotency: idempotency
        ) { tx, profile, device, slot, stored, now in
            let environment = request.apnsEnvironment ?? device.apnsEnvironment
            if let stored {
                guard request.time >= stored.clientTime else { return }
                var changed = stored
                changed.token = request.token
                changed.status = .subscribed
                changed.apnsEnvironment = environment
                changed.clientTime = request.time
                changed.updatedAt = now
                try tx.updateSubscription(changed, from: stored)
            } else {
                let values = SubscriptionValues(
                    profileId: profile.id, resourceId: caller.resource.id, channel: slot.channel, provider: .apns,
                    token: request.token, status: .subscribed, hashId: slot.hashId(profile: profile, device: device),
                    fields: ["activity_type": .string(request.activityType)], clientTime: request.time,
                    apnsEnvironment: environment)
                try tx.addLiveActivityToken(values, key: slot.key, now: now)
            }
        }
    }

    /// Unsubscribes the device's token for the activity (or type); one it never registered is a 404.
    func end(_ request: LiveActivityEndRequest, caller: Caller, idempotency: IdempotencyToken) async throws -> Answer {
        try await onDevice(
            request.provider, request.subscriptionId,
            Slot(activityType: request.activityType, activityId: request.activityId), caller: caller,
            idempotency: idempotency
        ) { tx, _, _, slot, stored, now in
            guard let stored else {
                throw APIError.notFound(
                    "this device registered no token for \(slot.described): send live-activity/token first")
            }
            guard request.time >= stored.clientTime, stored.status != .unsubscribed else { return }
            var ended = stored
            ended.status = .unsubscribed
            ended.clientTime = request.time
            ended.updatedAt = now
            try tx.updateSubscription(ended, from: stored)
        }
    }

    /// `live-activity/channel`: the channel of `request.name` in the environment of the device the request names.
    func channel(_ request: LiveActivityChannelRequest, caller: Caller) async throws -> LiveActivityChannelAnswer {
        try Validation.provider(request.provider)
        try Validation.token(request.subscriptionId)
        try LiveActivityChannelRules.name(request.name)
        let now = clock()
        let (environment, channel) = try await store.read { tx in
            let device: Subscription
            do {
                device = try LiveActivityService.device(
                    tx, caller: caller, provider: request.provider, token: request.subscriptionId, now: now
                ).1
            } catch let error as APIError where error.status == 404 {
                // A 404 here says the project has no such channel; a device not subscribed yet is a
                // state to wait out, which the SDK tells apart.
                throw APIError.conflict(error.reason)
            }
            let environment = device.apnsEnvironment ?? .production
            return (
                environment,
                try tx.liveActivityChannel(projectId: caller.project.id, environment: environment, name: request.name)
            )
        }
        guard let channel else {
            throw APIError.notFound(
                "project \(caller.project.id) has no Live Activity channel named \(request.name) in APNs' "
                    + "\(environment.rawValue) environment (the device's)")
        }
        return LiveActivityChannelAnswer(
            name: channel.name, channelId: channel.channelId, apnsEnvironment: channel.apnsEnvironment)
    }

    /// One idempotent write about the device (`provider`, `token`) and its row for `slot` (nil when
    /// it has none), answered with the envelope.
    private func onDevice(
        _ provider: String, _ token: String, _ slot: Slot, caller: Caller, idempotency: IdempotencyToken,
        _ body:
            @escaping @Sendable (any StoreTransaction, Profile, Subscription, Slot, Subscription?, Int64) throws ->
            Void
    ) async throws -> Answer {
        let now = clock()
        return try await store.idempotentWrite(idempotency, now: now, affinity: caller.writeAffinity(token: token)) {
            tx in
            let (profile, device) = try Self.device(tx, caller: caller, provider: provider, token: token, now: now)
            let stored = try tx.liveActivityToken(
                profileId: profile.id, channel: slot.channel, key: slot.key,
                hashId: slot.hashId(profile: profile, device: device))
            try body(tx, profile, device, slot, stored, now)
            return try .ok(nil)
        }
    }

    /// The caller's person and the device's push subscription on the caller's resource.
    static func device(_ tx: any StoreTransaction, caller: Caller, provider: String, token: String, now: Int64) throws
        -> (Profile, Subscription)
    {
        guard caller.resource.isPush else {
            throw APIError.badRequest(
                "resource \(caller.resource.id) has no push channel: use the rToken of a push resource")
        }
        let provider = try Validation.provider(provider)
        guard
            let (profile, device, _) = try ProfileResolver(caller: caller, now: now).findWithSubscription(
                tx, provider: provider, token: token),
            let device
        else {
            throw APIError.notFound(
                "no push subscription of this device (provider \(provider.rawValue), subscription_id) on resource "
                    + "\(caller.resource.id): call push/subscribe before registering Live Activity tokens")
        }
        return (profile, device)
    }

    /// Where a token goes: an activity's update token, or a type's push-to-start token.
    struct Slot {
        var channel: SubscriptionChannel
        var key: String
        var described: String

        init(activityType: String, activityId: String?) {
            if let activityId {
                (channel, key, described) = (.liveActivity, activityId, "activity \"\(activityId)\"")
            } else {
                (channel, key, described) = (.liveActivityStart, activityType, "push-to-start of \(activityType)")
            }
        }

        /// One row a device and key: the device by its push subscription's id, which a new push
        /// token (`push/update`) keeps.
        func hashId(profile: Profile, device: Subscription) -> String {
            Digest.shortHash("\(profile.publicId)|\(device.id)|\(channel.rawValue)|\(key)")
        }
    }
}

extension LiveActivityTokenRequest {
    func validate() throws(APIError) {
        try Validation.provider(provider)
        try Validation.token(subscriptionId)
        try Validation.time(time)
        try LiveActivityNames.type(activityType)
        if let activityId { try LiveActivityNames.id(activityId) }
        try LiveActivityNames.token(token)
    }
}

extension LiveActivityEndRequest {
    func validate() throws(APIError) {
        try Validation.provider(provider)
        try Validation.token(subscriptionId)
        try Validation.time(time)
        try LiveActivityNames.type(activityType)
        if let activityId { try LiveActivityNames.id(activityId) }
    }
}

/// What the server takes as an activity type, an activity id and an ActivityKit token, for the
/// SDK's registrations and for messages alike.
enum LiveActivityNames {
    static let maxLength = LiveActivityTokenRequest.maxNameLength

    /// A Swift type's name, as `String(describing:)` gives it (APNs' `attributes-type`).
    static func type(_ name: String, field: String = "activity_type") throws(APIError) {
        guard !name.isEmpty else { throw .badRequest("\(field) is empty: send the ActivityAttributes type's name") }
        guard TextLength.fits(name, max: maxLength) else {
            throw .badRequest("\(field) is longer than \(maxLength) characters")
        }
        guard name.unicodeScalars.allSatisfy({ $0 == "_" || $0 == "." || CharacterSet.alphanumerics.contains($0) })
        else {
            throw .badRequest(
                "\(field) \"\(name.prefix(64))\" is not a type's name: letters, digits, _ and . only, e.g. DeliveryAttributes"
            )
        }
    }

    /// The app's own id of an activity: any text without control characters.
    static func id(_ id: String, field: String = "activity_id") throws(APIError) {
        guard !id.isEmpty else { throw .badRequest("\(field) is empty: send the app's id of the activity") }
        guard TextLength.fits(id, max: maxLength) else {
            throw .badRequest("\(field) is longer than \(maxLength) characters")
        }
        guard !id.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw .badRequest("\(field) has a control character")
        }
    }

    static func token(_ token: String) throws(APIError) {
        guard !token.isEmpty else { throw .badRequest("token is empty: send the ActivityKit push token in hex") }
        guard APNsRequest.isDeviceToken(token) else {
            throw .badRequest(
                "token must be the ActivityKit push token in hexadecimal (an even number of 0-9 a-f, at most \(APNsRequest.maxTokenDigits))"
            )
        }
    }
}
