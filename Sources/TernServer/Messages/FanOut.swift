import Foundation
import TernProtocol

/// Turns a message's audience into queued deliveries, chunk by chunk, each chunk in the caller's
/// transaction together with the message's cursor: a crash between chunks loses nothing and writes
/// nothing twice (a device gets a message once, whatever its profiles).
public struct FanOut: Sendable, Equatable {
    /// Subscriptions looked at per transaction for a resource audience.
    public var chunkSize: Int

    /// - Parameter chunkSize: Subscriptions looked at per transaction; 1,000 by default (a chunk holds
    ///   the store's one writer, and the claims and outcomes of the sends in flight wait behind it).
    public init(chunkSize: Int = 1000) {
        self.chunkSize = chunkSize
    }

    /// A chunk written already claimed (`sending`, first attempt, leased `until`): the engine's
    /// senders have room for it now, so it skips the claim. The whole chunk: a rest written queued
    /// would wait behind every later chunk.
    struct Lease: Sendable, Equatable {
        var until: Int64
    }

    /// What a chunk wrote: how many deliveries, and those written under its ``Lease`` with the
    /// subscription each goes to, as this transaction read it.
    struct Written {
        var added = 0
        var leased: [(delivery: ClaimedDelivery, subscription: PushState)] = []
    }

    /// Writes the next chunk's deliveries and advances the message. Returns how many were written.
    /// `request` is the message's request when the caller has it (creation); later chunks read it
    /// back from the stored message.
    @discardableResult
    public func step(
        _ tx: any StoreTransaction, message: StoredMessage, request: MessageRequest? = nil, now: Int64
    ) throws -> Int {
        try step(tx, message: message, request: request, now: now, lease: nil).added
    }

    /// ``step(_:message:request:now:)``, writing the chunk's deliveries leased when `lease` is given.
    func step(
        _ tx: any StoreTransaction, message: StoredMessage, request: MessageRequest? = nil, now: Int64,
        lease: Lease?
    ) throws -> Written {
        guard !message.fanOutDone else { return Written() }
        let request = try request ?? Self.request(message)
        if request.test == true {
            return Written(added: try TestSend.step(tx, message: message, request: request, now: now, self))
        }
        // A triggered message's audience is each person whose goal comes (``TriggerRunner``), a
        // recurring one's each copy's (``RecurrenceRunner``): nothing to write now.
        if request.trigger != nil || request.recurrence != nil {
            try tx.advanceFanOut(messageId: message.id, cursor: message.fanOutCursor, done: true, added: 0)
            return Written()
        }
        if let live = request.liveActivity {
            let chunk = try LiveActivityAudience.chunk(
                tx, live, audience: request.audience, projectId: message.projectId,
                environment: APNsEnvironment(rawValue: message.environment) ?? .production,
                after: message.fanOutCursor, limit: chunkSize)
            return try queue(
                tx, message: message, request: request, admitted: chunk.admitted, cursor: chunk.cursor,
                done: chunk.done,
                now: now, lease: lease)
        }
        // A throttled message's deliveries, or one sent at a local time, wait for their time in the
        // queue: none is sent on writing.
        let timed =
            request.throttlePerMinute != nil || request.localTimeOfDay != nil || request.quietHours != nil
            || request.atUsualOpenTime == true
        let lease = timed ? nil : lease
        let filter = AudienceFilter(request.audience, category: request.category)
        // A local time, or quiet hours, read each device's zone from its fields.
        let reads = filter.reads.union(request.localTimeOfDay == nil && request.quietHours == nil ? [] : .fields)
        let audience = request.audience
        var candidates: [AudienceCandidate]
        var cursor = message.fanOutCursor
        var done = true
        switch audience.type {
        case .resource, .segment:
            if let (scope, expression) = try SegmentAudience.filtered(audience, projectId: message.projectId) {
                // Engagement conditions read their lists once, in the first chunk's transaction.
                let engagement = EngagementLists(expression, sending: message.id, now: message.sentFrom)
                if !engagement.lists.isEmpty, message.fanOutCursor == 0 {
                    try tx.keepAudienceLists(messageId: message.id, filter: expression, now: message.sentFrom)
                }
                candidates = try tx.pushCandidates(
                    scope, filter: engagement.expression, now: message.sentFrom, after: cursor, limit: chunkSize,
                    reading: reads)
                cursor = candidates.last?.subscription.id ?? cursor
                done = candidates.count < chunkSize
                if done, !engagement.lists.isEmpty { try tx.forgetAudienceLists(messageId: message.id) }
                break
            }
            candidates = try tx.pushCandidates(
                resourceId: audience.resourceId ?? 0, after: message.fanOutCursor, limit: chunkSize,
                reading: reads)
            cursor = candidates.last?.subscription.id ?? cursor
            done = candidates.count < chunkSize
        case .token:
            candidates =
                try audience.pushProvider.map {
                    try tx.pushCandidates(
                        projectId: message.projectId, provider: $0, token: audience.token ?? "", reading: reads)
                } ?? []
        case .profile, .profiles:
            candidates = []
            for publicId in Self.profileIds(audience) {
                guard let profile = try tx.profile(publicId: publicId) else { continue }
                candidates += try tx.pushCandidates(profileId: profile.id, reading: reads)
            }
        case .topic:
            candidates = []
            let topic = try tx.topicId(
                projectId: message.projectId, name: audience.topic ?? "", create: false, now: now)
            let followers =
                try topic.map { try tx.followers(topicId: $0, afterProfileId: cursor, limit: chunkSize) } ?? []
            for profileId in followers {
                candidates += try tx.pushCandidates(profileId: profileId, reading: reads)
            }
            cursor = followers.last ?? cursor
            done = followers.count < chunkSize
        case .liveActivity:
            candidates = []  // a Live Activity message's tokens are read above
        }
        var admitted: [AudienceCandidate] = []
        for candidate in candidates {
            let tags = filter.needsTags ? try tx.tags(subscriptionId: candidate.subscription.id) : nil
            guard filter.admits(candidate, tags: tags) else { continue }
            admitted.append(candidate)
        }
        return try queue(
            tx, message: message, request: request, admitted: admitted, cursor: cursor, done: done, now: now,
            lease: lease)
    }

    /// Queues a delivery for each admitted subscription whose profile did not turn the message's
    /// category off and did not reach the project's frequency cap (leased instead, under `lease`;
    /// due at its time, for a throttled message, one sent at a local time or with quiet hours),
    /// copies the message to their inboxes, and advances the message. Returns how many deliveries
    /// were written.
    func queue(
        _ tx: any StoreTransaction, message: StoredMessage, request: MessageRequest, admitted: [AudienceCandidate],
        cursor: Int64, done: Bool, now: Int64, lease: Lease? = nil
    ) throws -> Written {
        var admitted = admitted
        // An A/B test of part of the audience goes to its tested share; its winner to the rest.
        if request.test != true {
            if let sample = message.variantSample {
                admitted.removeAll {
                    !MessageVariants.isTested(subscriptionId: $0.subscription.id, messageId: message.id, sample: sample)
                }
            } else if let winner = request.winnerOf {
                admitted.removeAll {
                    MessageVariants.isTested(
                        subscriptionId: $0.subscription.id, messageId: winner.key, sample: winner.testAudiencePercent)
                }
            }
        }
        var skipped = 0
        if let category = request.category, category != PreferenceRules.transactional, !admitted.isEmpty {
            let off = try tx.profilesWithPreferenceOff(
                channel: "push", category: category, profileIds: admitted.map(\.subscription.profileId))
            if !off.isEmpty {
                let before = admitted.count
                admitted.removeAll { off.contains($0.subscription.profileId) }
                skipped = before - admitted.count
            }
        }
        // A control group's people get nothing, chosen by person: the same people whichever chunk
        // meets their devices, and again when a fan-out is retried or resumed.
        let control = request.test == true ? nil : ControlGroup(request)
        var heldOut: [AudienceCandidate] = []
        if let control, !admitted.isEmpty {
            var sent: [AudienceCandidate] = []
            for candidate in admitted {
                if control.holdsOut(profileId: candidate.subscription.profileId, messageId: message.id) {
                    heldOut.append(candidate)
                } else {
                    sent.append(candidate)
                }
            }
            admitted = sent
        }
        // Test sends reach the project's own test devices: no person is counted or held back.
        // A Live Activity's pushes update what the person is following: not counted, never held back.
        if request.test != true, request.liveActivity == nil, !admitted.isEmpty || !heldOut.isEmpty,
            let cap = try tx.project(id: message.projectId)?.frequencyCap
        {
            if !admitted.isEmpty {
                admitted = try Self.capped(tx, message: message, request: request, admitted: admitted, cap: cap)
            }
            // The control group leaves out whom the cap would have, so both groups are alike.
            if !heldOut.isEmpty {
                heldOut = try Self.belowCap(tx, message: message, request: request, heldOut: heldOut, cap: cap)
            }
        }
        if done {
            // Records older than any cap's window are read no more.
            _ = try tx.pruneMessageRecords(before: now - FrequencyCap.longestWindow, limit: 10_000)
        }
        var states: [Int64: PushState] = [:]
        let targets = admitted.compactMap { candidate -> DeliveryTarget? in
            // Admitted candidates are push subscriptions, which always have a provider.
            let s = candidate.subscription
            guard let provider = s.provider else { return nil }
            if lease != nil {
                states[s.id] = PushState(
                    status: s.status, provider: provider, token: s.token, updatedAt: s.updatedAt,
                    invalidMarkedAt: candidate.invalidMarkedAt, invalidReason: nil, apnsEnvironment: s.apnsEnvironment)
            }
            return DeliveryTarget(subscriptionId: s.id, provider: provider, token: s.token)
        }
        try tx.addSkippedByPreference(messageId: message.id, count: skipped)
        try InboxService.copy(
            tx, message: message, request: request,
            recipients: admitted.lazy.map {
                (profileId: $0.subscription.profileId, subscriptionId: $0.subscription.id)
            },
            now: now)
        var written = Written()
        if let lease {
            written.leased = try tx.insertLeasedDeliveries(
                messageId: message.id, targets: targets, now: now, leaseUntil: lease.until
            ).compactMap { delivery in states[delivery.subscriptionId].map { (delivery, $0) } }
            written.added = written.leased.count
        } else {
            written.added = try tx.insertDeliveries(
                messageId: message.id, targets: targets, now: now,
                timing: try Self.timing(tx, message, request: request, admitted: admitted))
        }
        if control != nil {
            try tx.addControlGroupPeople(
                messageId: message.id, heldOut: Set(heldOut.map(\.subscription.profileId)).sorted(),
                sent: Set(admitted.map(\.subscription.profileId)).sorted())
        }
        try tx.advanceFanOut(messageId: message.id, cursor: cursor, done: done, added: Int64(written.added))
        return written
    }

    /// A control group's candidates whose person has not reached the project's frequency cap (every
    /// one, for a message that ignores it). Nothing is recorded for them: the message did not go.
    static func belowCap(
        _ tx: any StoreTransaction, message: StoredMessage, request: MessageRequest, heldOut: [AudienceCandidate],
        cap: FrequencyCap
    ) throws -> [AudienceCandidate] {
        guard request.ignoreFrequencyCap != true else { return heldOut }
        let counts = try tx.recentMessageCounts(
            profileIds: Set(heldOut.map(\.subscription.profileId)).sorted(), since: message.sentFrom - cap.window,
            excluding: message.id)
        return heldOut.filter { (counts[$0.subscription.profileId] ?? 0) < cap.pushes }
    }

    /// The admitted candidates whose person has not reached the project's frequency cap (every one,
    /// for a message that ignores it); the message is recorded for each person it goes to. A
    /// person's devices in another chunk of the same message are not held back by it: the count
    /// leaves the message itself out.
    static func capped(
        _ tx: any StoreTransaction, message: StoredMessage, request: MessageRequest, admitted: [AudienceCandidate],
        cap: FrequencyCap
    ) throws -> [AudienceCandidate] {
        var kept = admitted
        if request.ignoreFrequencyCap != true {
            let counts = try tx.recentMessageCounts(
                profileIds: Set(admitted.map(\.subscription.profileId)).sorted(), since: message.sentFrom - cap.window,
                excluding: message.id)
            let reached = Set(counts.filter { $0.value >= cap.pushes }.keys)
            if !reached.isEmpty {
                kept.removeAll { reached.contains($0.subscription.profileId) }
                try tx.addSkippedByFrequencyCap(messageId: message.id, count: admitted.count - kept.count)
            }
        }
        try tx.recordMessage(
            message.id, profileIds: Set(kept.map(\.subscription.profileId)).sorted(), at: message.sentFrom)
        return kept
    }

    /// When the chunk's deliveries come due: a throttled message's in turn, one sent at a local
    /// time at each device's, one with quiet hours after them on each device's clock, one at each
    /// person's usual open time at theirs (read for the chunk's people at once); a test send at
    /// once (its few devices try the campaign out, not its timing).
    static func timing(
        _ tx: any StoreTransaction, _ message: StoredMessage, request: MessageRequest, admitted: [AudienceCandidate]
    ) throws -> DeliveryTiming {
        guard request.test != true else { return .now }
        if let rate = request.throttlePerMinute {
            return .paced(DeliveryPace(start: message.sentFrom, perMinute: rate, written: message.total))
        }
        if request.atUsualOpenTime == true {
            let hours = try tx.usualOpenHours(profileIds: Set(admitted.map(\.subscription.profileId)).sorted())
            var times: [Int64: Int64] = [:]
            for candidate in admitted {
                let subscription = candidate.subscription
                times[subscription.id] = UsualOpenTime.due(
                    from: message.sentFrom, hour: hours[subscription.profileId], subscriptionId: subscription.id)
            }
            return .bySubscription(times)
        }
        let due: (Int64, String?) -> Int64
        if let text = request.localTimeOfDay {
            let local = try LocalTimeOfDay(text)
            if let day = request.localDay {
                due = { local.due(on: day, from: $0, zone: $1) }  // a weekly copy's own day
            } else {
                due = { local.due(from: $0, zone: $1) }
            }
        } else if let quiet = request.quietHours {
            let hours = try QuietHours(quiet)
            due = { hours.due(from: $0, zone: $1) }
        } else {
            return .now
        }
        var times: [Int64: Int64] = [:]
        times.reserveCapacity(admitted.count)
        for candidate in admitted {
            let zone = candidate.subscription.fields[LocalTimeOfDay.zoneField]?.stringValue
            times[candidate.subscription.id] = due(message.sentFrom, zone)
        }
        return .bySubscription(times)
    }

    static func profileIds(_ audience: MessageAudience) -> [String] {
        audience.type == .profile ? [audience.profileId ?? ""] : audience.profileIds ?? []
    }

    /// The request the message was made from, as stored.
    static func request(_ message: StoredMessage) throws -> MessageRequest {
        do {
            return try JSONCoders.decoder.decode(MessageRequest.self, from: Data(message.content.utf8))
        } catch {
            throw StoreError.backend("message \(message.publicId) has unreadable content: \(error)")
        }
    }
}
