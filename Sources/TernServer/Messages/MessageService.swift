import Foundation
import TernCrypto
import TernProtocol

/// Messages through the management API: create (checked, stored with its first deliveries in one
/// transaction), look up with live counts, and the statistics funnel.
///
/// ```swift
/// let messages = MessageService(store: store, queued: { engine.wake() })
/// let view = try await messages.create(request)
/// let stats = try await messages.stats(publicId: view.id)
/// ```
public struct MessageService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64
    let fanOut: FanOut
    let queued: @Sendable () -> Void
    /// Finished A/B tests' deliveries per version.
    let variantTargets = VariantTargetCache()

    /// Makes the service that accepts messages.
    ///
    /// - Parameters:
    ///   - store: Where messages and their deliveries are written.
    ///   - fanOut: How an audience is cut into transactions when it is written out.
    ///   - clock: The current time in milliseconds since 1970 (tests pass their own).
    ///   - queued: Called after a message is accepted (the server wakes its delivery engine).
    public init(
        store: any Store, fanOut: FanOut = FanOut(), clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds,
        queued: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.fanOut = fanOut
        self.clock = clock
        self.queued = queued
    }

    /// Checks the request, stores the message and its first deliveries in one transaction, and
    /// tells the engine. A refused request leaves nothing behind.
    public func create(_ request: MessageRequest) async throws -> MessageView {
        let (request, templateProject) = try await withTemplate(request, keyProject: nil)
        let planned = try plan(request, templateProject: templateProject)
        let (view, _) = try await store.write { tx in try self.insert(tx, request, plan: planned) }
        queued()
        return view
    }

    /// ``create(_:)`` once per idempotency key: a repeat of the same request answers the first
    /// message (201, the same body) and queues nothing; the same key with another request is a 422.
    /// `keyProject`: the project of the project key that sends it (nil for the server key).
    func create(_ request: MessageRequest, idempotency: IdempotencyToken, keyProject: Int64? = nil)
        async throws -> Answer
    {
        // A repeat answers as the first did, even once its template has gone.
        if request.templateId != nil, let replay = try await store.storedReplay(idempotency) { return replay }
        let (request, templateProject) = try await withTemplate(request, keyProject: keyProject)
        let planned = try plan(request, templateProject: templateProject)
        let answer = try await store.idempotentWrite(idempotency, now: clock()) { tx in
            let (view, _) = try self.insert(tx, request, plan: planned, keyProject: keyProject)
            return Answer(status: 201, body: try JSONCoders.encoder.encode(view))
        }
        if !answer.replayed { queued() }
        return answer
    }

    struct Planned: Sendable {
        let publicId: String
        let plan: MessagePlan
        let content: String
        let audience: String
        let now: Int64
        /// When it is to be sent; nil: now.
        let sendAt: Int64?
        /// The project of the template its content was filled from, which must be the message's.
        var templateProject: Int64? = nil
    }

    /// How far ahead a message can be scheduled.
    static let maxSchedule: Int64 = 30 * 24 * 3600 * 1000

    /// `publicId`: the message's id when it exists already (an edit); else a new one;
    /// `templateProject`: the project of the template filled into `request` (``withTemplate(_:keyProject:)``).
    func plan(_ request: MessageRequest, publicId: String? = nil, templateProject: Int64? = nil) throws -> Planned {
        let publicId = publicId ?? "m_" + Digest.randomHex(bytes: 8)
        let now = clock()
        if let sendAt = request.sendAt {
            guard sendAt >= 0 else {
                throw APIError.badRequest("send_at must be a time in ms since 1970, not \(sendAt)")
            }
            guard sendAt <= now + Self.maxSchedule else {
                throw APIError.badRequest(
                    "send_at must be at most 30 days ahead (ms since 1970): \(sendAt) is "
                        + "\((sendAt - now) / 86_400_000) days from now")
            }
        }
        try MessageRecurrence.check(request, first: max(request.sendAt ?? now, now))
        return Planned(
            publicId: publicId,
            plan: try MessagePlan(
                request, publicId: TriggerRounds.longestPublicId(publicId, request),
                sentAt: max(request.sendAt ?? now, now)),
            content: String(decoding: try JSONCoders.encoder.encode(request), as: UTF8.self),
            audience: String(decoding: try JSONCoders.encoder.encode(request.audience), as: UTF8.self), now: now,
            sendAt: request.sendAt.flatMap { $0 > now ? $0 : nil }, templateProject: templateProject)
    }

    /// `recurringOf`: the recurring message this one is a copy of (``RecurrenceRunner``).
    func insert(
        _ tx: any StoreTransaction, _ request: MessageRequest, plan planned: Planned, keyProject: Int64? = nil,
        recurringOf: String? = nil
    ) throws -> (MessageView, StoredMessage) {
        let (row, request) = try stored(tx, request, plan: planned, keyProject: keyProject, recurringOf: recurringOf)
        let message = try tx.insertMessage(row)
        if request.trigger != nil { store.triggerDirectory.forget() }
        // A scheduled message's fan-out waits for its time (``SQLTransaction/messagesFanningOut(limit:now:)``).
        if planned.sendAt == nil { try fanOut.step(tx, message: message, request: request, now: planned.now) }
        let stored = try tx.message(id: message.id) ?? message
        return (try Self.view(tx, stored, request: request), stored)
    }

    /// The row a checked request is kept as (its id 0, its fan-out not begun), with the request as
    /// resolved (a segment's filter read now): what ``insert(_:_:plan:keyProject:recurringOf:)``
    /// writes and ``edit(publicId:_:idempotency:)`` writes over a message with.
    func stored(
        _ tx: any StoreTransaction, _ request: MessageRequest, plan planned: Planned, keyProject: Int64?,
        recurringOf: String?
    ) throws -> (StoredMessage, MessageRequest) {
        let plan = planned.plan
        let now = planned.now
        let request = try SegmentAudience.resolve(tx, request, keyProject: keyProject)
        var content = planned.content
        var audience = planned.audience
        // A message keeps its segment's filter as it was made; a recurring one keeps the segment as
        // asked, for each copy to read it as it is then.
        if request.audience.type == .segment, request.recurrence == nil {
            content = String(decoding: try JSONCoders.encoder.encode(request), as: UTF8.self)
            audience = String(decoding: try JSONCoders.encoder.encode(request.audience), as: UTF8.self)
        }
        let scope = try MessageScope.resolve(tx, request, keyProject: keyProject)
        if let templateProject = planned.templateProject, templateProject != scope.projectId {
            throw Self.otherProject(request.templateId ?? 0, templateProject, scope.projectId)
        }
        try SegmentAudience.requireMatches(tx, request.audience, projectId: scope.projectId, now: now)
        try MessageTrigger.checkCampaign(tx, request.trigger, projectId: scope.projectId, keyProject: keyProject)
        let template = try Self.channelTemplate(tx, request, planned: planned, projectId: scope.projectId)
        let row = StoredMessage(
            id: 0, publicId: planned.publicId, projectId: scope.projectId, resourceId: scope.resource?.id,
            content: content, audience: audience, payloadPrefix: template.prefix,
            payloadSuffix: template.suffix, pushType: plan.pushType.rawValue, priority: plan.priority,
            expiration: plan.expiration(createdAt: planned.sendAt ?? now), collapseId: plan.collapseId,
            topic: plan.topic, environment: plan.environment.rawValue, fanOutCursor: 0, fanOutDone: false,
            total: 0, createdAt: now, sendAt: planned.sendAt, variants: plan.variants,
            variantSample: plan.variantSample,
            winnerDueAt: request.winnerAfterMinutes.map { (planned.sendAt ?? now) + Int64($0) * 60_000 },
            triggerEvent: request.trigger?.eventName, triggerCancelEvent: request.trigger?.cancelEventName,
            triggerDelay: request.trigger?.delay, repeatEvery: request.recurrence?.every,
            repeatWeekdays: request.recurrence?.weekdays.map { $0.map(\.rawValue).joined(separator: ",") },
            repeatUntil: request.recurrence?.until,
            repeatNextAt: request.recurrence?.start(planned.sendAt ?? now, local: request.repeatsOnLocalDays),
            recurringOf: recurringOf,
            triggerReentry: request.trigger?.reentry)
        return (row, request)
    }

    /// The message's payload: the plan's, or for a Live Activity start on a channel, one that names
    /// the channel APNs made for the message's environment (404 when the project has none of that
    /// name there).
    static func channelTemplate(
        _ tx: any StoreTransaction, _ request: MessageRequest, planned: Planned, projectId: Int64
    ) throws -> PushPayloadBuilder.Template {
        guard let live = request.liveActivity, live.event == "start", let name = live.channel else {
            return planned.plan.template
        }
        let environment = planned.plan.environment
        guard let channel = try tx.liveActivityChannel(projectId: projectId, environment: environment, name: name)
        else {
            throw APIError.notFound(
                "project \(projectId) has no Live Activity channel named \(name) in APNs' \(environment.rawValue) "
                    + "environment: make it first (POST …/projects/\(projectId)/live-activity-channels), or name the "
                    + "message's environment")
        }
        return try LiveActivityMessage.template(
            live, of: request, sentAt: max(planned.sendAt ?? planned.now, planned.now),
            pushIdLength: planned.publicId.utf8.count, channelId: channel.channelId)
    }

    /// Sends an A/B test's winning version (`variant`, its letter) to the devices the test held
    /// back (`test_audience_percent`): a message of its own, made from the test's request with that
    /// version's content, its audience read now, less the devices the test reached. Once per test:
    /// a second call answers 409 naming the first winner's message.
    public func sendWinner(publicId: String, variant letter: String) async throws -> MessageView {
        let (test, request) = try await store.read { tx in
            let message = try Self.find(tx, publicId)
            return (message, try FanOut.request(message))
        }
        guard let sample = test.variantSample, let variants = request.variants else {
            throw APIError.conflict(
                "message \(test.publicId) held no devices back: only an A/B test with test_audience_percent has a "
                    + "winner to send")
        }
        guard let index = MessageVariants.letters.prefix(variants.count).firstIndex(of: letter) else {
            throw APIError.badRequest(
                "variant must be one of \(MessageVariants.letters.prefix(variants.count).joined(separator: ", ")), "
                    + "not \(letter.prefix(16))")
        }
        if let winner = test.winnerMessageId { throw Self.winnerSent(test.publicId, winner) }
        var winner = request.version(index)
        winner.testAudiencePercent = nil
        winner.sendAt = nil
        winner.test = nil
        winner.winnerAfterMinutes = nil
        winner.winnerBy = nil
        winner.winnerGoal = nil
        winner.winnerOf = MessageRequest.WinnerOf(
            messageId: test.publicId, variant: letter, testAudiencePercent: sample, key: test.id)
        let planned = try plan(winner)
        let winnerRequest = winner
        let (view, _) = try await store.write { tx in
            let made = try self.insert(tx, winnerRequest, plan: planned)
            guard try tx.setWinner(messageId: test.id, winner: made.0.id) else {
                throw Self.winnerSent(test.publicId, try Self.find(tx, test.publicId).winnerMessageId ?? "")
            }
            return made
        }
        queued()
        return view
    }

    static func winnerSent(_ test: String, _ winner: String) -> APIError {
        APIError.conflict("message \(test)'s winner was sent already, as message \(winner)")
    }

    /// The message with its counts.
    public func message(publicId: String) async throws -> MessageView {
        try await store.read { tx in try Self.view(tx, try Self.find(tx, publicId)) }
    }

    /// Stops the message: its fan-out writes no more deliveries, and those not yet sent close unsent
    /// as the senders take them (failed, "the message was cancelled before sending"), without a
    /// request to the provider; retries waiting for later come due at once. Pushes the provider has,
    /// or a batch already on its way, still arrive. Cancelling again answers the same; a message
    /// that has finished sending answers 409.
    public func cancel(publicId: String) async throws -> MessageView {
        let now = clock()
        return try await store.write { tx in
            let message = try Self.find(tx, publicId)
            guard message.cancelledAt == nil else { return try Self.view(tx, message) }
            if let parent = message.triggerRoundOf {
                throw APIError.conflict(
                    "message \(message.publicId) is round \(message.triggerRound ?? 0) of the triggered message \(parent): "
                        + "cancel \(parent) to stop it and its rounds")
            }
            let counts = DeliveryCounts(total: message.total, byStatus: try tx.deliveryCounts(messageId: message.id))
            if Self.isDone(message, counts) {
                throw APIError.conflict(
                    "message \(message.publicId) has finished sending (\(counts.sent) sent, \(counts.failed) failed): "
                        + "nothing is left to cancel")
            }
            try tx.cancelMessage(id: message.id, now: now)
            if message.triggerEvent != nil {
                // No one's wait goes on, and no node checks goals against it any more.
                try tx.removeTriggerRuns(messageId: message.id)
                store.triggerDirectory.forget()
                for round in try tx.triggerRounds(of: message.publicId) where round.cancelledAt == nil {
                    try tx.cancelMessage(id: round.id, now: now)
                }
            }
            // No copy goes any more; the copies made keep going unless cancelled themselves.
            if message.repeatNextAt != nil { try tx.stopRecurrence(messageId: message.id) }
            return try Self.view(tx, try Self.find(tx, publicId))
        }
    }

    /// The funnel: targeted, sent, failed by reason, invalid tokens, delivered, opened. Once the
    /// message's rows per device are removed (`--delivery-retention-days`), the figures read from
    /// them are the ones kept when they went (``MessageHistory``).
    public func stats(publicId: String) async throws -> MessageStats {
        try await store.read { tx in
            let message = try Self.find(tx, publicId)
            var stats = try self.figures(tx, message)
            if message.triggerReentry != nil {
                stats.allRounds = try TriggerRounds.totals(tx, message) { try self.figures(tx, $0) }
            }
            return stats
        }
    }

    /// ``stats(publicId:)`` of the message alone.
    func figures(_ tx: any StoreTransaction, _ message: StoredMessage) throws -> MessageStats {
        let counts = DeliveryCounts(total: message.total, byStatus: try tx.deliveryCounts(messageId: message.id))
        let history = try tx.messageHistory(messageId: message.id)
        let events: [PushEventRequest.Kind: Int64] =
            if let history, let delivered = history.delivered, let opened = history.opened {
                [.delivery: delivered, .open: opened]
            } else {
                try tx.pushEventCounts(messageIdPrefix: message.publicId + ".")
            }
        var stats = MessageStats(
            messageId: message.publicId, counts: counts,
            failedByReason: try history?.failedByReason ?? tx.failureReasons(messageId: message.id),
            delivered: events[.delivery] ?? 0, opened: events[.open] ?? 0,
            done: Self.isDone(message, counts),
            skippedByPreference: try tx.skippedByPreference(messageId: message.id))
        stats.deliveriesRemovedAt = history?.removedAt
        stats.cancelledAt = message.cancelledAt
        stats.skippedByFrequencyCap = try tx.skippedByFrequencyCap(messageId: message.id)
        stats.converted =
            try history?.converted
            ?? tx.conversions(messageIdPrefix: message.publicId + ".", eventName: nil)
        stats.variants = try self.variantStats(tx, message, history: history)
        stats.controlGroup = try Self.controlGroupStats(tx, message)
        return stats
    }

    /// A message's control group in its stats: its people and those it went to, as its fan-out
    /// recorded them (kept through `--delivery-retention-days`), each group's conversions in the
    /// window from the message's start; nil without one.
    static func controlGroupStats(_ tx: any StoreTransaction, _ message: StoredMessage) throws -> ControlGroupStats? {
        // Most messages have none: their request is not decoded for it (a triggered message's rounds
        // each read their own figures).
        guard message.content.contains(MessageRequest.CodingKeys.controlPercent.rawValue),
            let control = ControlGroup(try FanOut.request(message))
        else { return nil }
        let start = message.sentFrom
        let groups = try tx.controlGroupFigures(
            messageId: message.id, projectId: message.projectId, goal: control.goal, from: start,
            until: start + control.window)
        return ControlGroupStats(
            percent: control.percent, goal: control.goal, windowHours: control.windowHours,
            windowEndsAt: start + control.window, control: groups.control, sent: groups.sent)
    }

    /// An A/B test's figures per version: counted from its rows, or the ones kept once they went
    /// (a version's deliveries when the removal began, its reports once they were counted).
    func variantStats(_ tx: any StoreTransaction, _ message: StoredMessage, history: MessageHistory?) throws
        -> [VariantStats]?
    {
        guard !message.variants.isEmpty else { return nil }
        let kept = history?.variants
        let targeted = try kept?.map(\.targeted) ?? variantTargets.targets(message) { try tx.variantTargets(message) }
        // The reports as counted when they went, else as they stand.
        let figures =
            try kept.flatMap { $0.allSatisfy { $0.delivered != nil } ? $0 : nil }
            ?? MessageVariants.figures(tx, message, targeted: targeted)
        return message.variants.indices.map { index in
            let version = figures.indices.contains(index) ? figures[index] : VariantFigures(targeted: 0)
            return VariantStats(
                variant: MessageVariants.letters[index], percent: message.variants[index].percent,
                targeted: version.targeted, delivered: version.delivered ?? 0, opened: version.opened ?? 0,
                converted: version.converted ?? 0)
        }
    }

    /// A message's deliveries, in id order after `afterId`; 410 once they were removed.
    func deliveries(publicId: String, afterId: Int64, limit: Int) async throws -> [DeliveryRow] {
        try await store.read { tx in
            let message = try Self.find(tx, publicId)
            if let history = try tx.messageHistory(messageId: message.id) {
                throw APIError.gone(
                    "the deliveries of message \(message.publicId) were removed from "
                        + "\(Self.timestamp(history.removedAt)) on, as --delivery-retention-days asks; "
                        + "its stats (GET …/\(message.publicId)/stats) keep its figures")
            }
            return try tx.deliveries(messageId: message.id, afterId: afterId, limit: limit).map { row in
                var row = row
                row.providerMessageId = ProviderMessageIDs.shown(row, messageId: message.publicId)
                return row
            }
        }
    }

    static func find(_ tx: any StoreTransaction, _ publicId: String) throws -> StoredMessage {
        guard let message = try tx.message(publicId: publicId) else {
            throw APIError.notFound("message \(publicId.prefix(64)) does not exist")
        }
        return message
    }

    /// `milliseconds` as an ISO 8601 time in UTC.
    static func timestamp(_ milliseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
    }

    /// Whether the figures are final: the fan-out over and nothing queued or sending; a triggered
    /// message never is until it is cancelled (its next person may come at any time), nor are its
    /// rounds.
    static func isDone(_ message: StoredMessage, _ counts: DeliveryCounts) -> Bool {
        message.fanOutDone && (!message.isTriggered || message.cancelledAt != nil)
            && (message.repeatNextAt == nil || message.cancelledAt != nil) && counts.queued == 0
            && counts.sending == 0
    }

    /// The message's view; `request` when the caller has it, else read back from the stored message.
    static func view(
        _ tx: any StoreTransaction, _ message: StoredMessage, request: MessageRequest? = nil
    ) throws -> MessageView {
        let counts = DeliveryCounts(total: message.total, byStatus: try tx.deliveryCounts(messageId: message.id))
        return MessageView(
            id: message.publicId, projectId: message.projectId, resourceId: message.resourceId,
            createdAt: message.createdAt, pushType: message.pushType, environment: message.environment,
            request: try request ?? FanOut.request(message), fanOutDone: message.fanOutDone,
            done: isDone(message, counts), counts: counts, cancelledAt: message.cancelledAt, sendAt: message.sendAt,
            winnerMessageId: message.winnerMessageId,
            winnerDueAt: message.winnerMessageId == nil && message.cancelledAt == nil ? message.winnerDueAt : nil,
            nextCopyAt: message.cancelledAt == nil ? message.repeatNextAt : nil, recurringOf: message.recurringOf,
            triggerRounds: message.triggerReentry == nil ? nil : try tx.triggerRoundCount(of: message.publicId),
            triggerRoundOf: message.triggerRoundOf, triggerRound: message.triggerRound, editedAt: message.editedAt)
    }
}
