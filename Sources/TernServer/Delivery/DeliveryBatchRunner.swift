import Foundation
import TernProtocol

/// One round of the outbox: claim due deliveries under a lease, send them through their providers'
/// senders, record every outcome. A delivery that may no longer be sent (its subscription left, its
/// token was marked invalid, its time to live ran out) is closed at claim time and never sent.
struct DeliveryBatchRunner: Sendable {
    /// A claimed delivery ready for its sender. A class: a batch's work is grouped by provider,
    /// paired with outcomes and decisions, and each copy of a struct this size retained and released
    /// its dozen strings and buffers (3% of the server's time in the send profile).
    final class Work: Sendable {
        let delivery: ClaimedDelivery
        let push: OutgoingPush
        let expiration: Int64?
        /// An A/B test's version of the delivery.
        let variant: Int?

        init(delivery: ClaimedDelivery, push: OutgoingPush, expiration: Int64?, variant: Int? = nil) {
            self.delivery = delivery
            self.push = push
            self.expiration = expiration
            self.variant = variant
        }

        /// The outcome as a webhook may hear of it.
        func outcome(_ update: DeliveryUpdate) -> WebhookOutcomes.Outcome {
            WebhookOutcomes.Outcome(
                delivery: delivery, projectId: push.projectId, messageId: push.messageId, variant: variant,
                update: update)
        }
    }

    let store: any Store
    let senders: SenderRegistry
    let metrics: Metrics
    let logger: Logger
    let resolver: OutcomeResolver
    let leaseMilliseconds: Int64
    let clock: @Sendable () -> Int64
    let jitter: @Sendable () -> Double

    /// Claims up to `limit` due deliveries; returns those to send (those closed at once are not in it)
    /// and how many were claimed in all.
    func claim(limit: Int) async throws -> (work: [Work], claimed: Int) {
        let now = clock()
        let lease = leaseMilliseconds
        // Only the claim holds the writer, which every SDK write and outcome shares; what decides each
        // delivery is read after it commits, from a reader. Each claimed row is leased to this round,
        // so it stays as claimed, and what is read of its subscription and message is at least as new
        // as at the claim.
        let claimed = try await store.write { tx in
            try tx.claimDeliveries(limit: limit, now: now, leaseUntil: now + lease)
        }
        guard !claimed.isEmpty else { return ([], 0) }
        let (subscriptions, messages) = try await store.read { tx in
            var messages: [Int64: StoredMessage] = [:]
            for messageId in Set(claimed.map(\.messageId)) { messages[messageId] = try tx.message(id: messageId) }
            return (try tx.pushStates(subscriptionIds: claimed.map(\.subscriptionId)), messages)
        }
        return (try await settle(claimed, messages: messages, subscriptions: subscriptions, now: now), claimed.count)
    }

    /// Decides each claimed delivery against its message and its subscription as read (absent: gone):
    /// returns those to send, and writes those closed at once.
    func settle(
        _ claimed: [ClaimedDelivery], messages: [Int64: StoredMessage], subscriptions: [Int64: PushState], now: Int64
    ) async throws -> [Work] {
        var work: [Work] = []
        var closed: [(DeliveryUpdate, ClaimedDelivery)] = []
        let personal = try await personalize(claimed, messages: messages)
        // A chunk's deliveries come in runs of one message: the message is taken from the dictionary
        // once for its run and lent to each delivery's preparation. Taken or bound for each delivery,
        // its copy retained and released the message's nine strings and buffers twice a delivery
        // (13 % of a send's reference counting).
        var start = claimed.startIndex
        while start < claimed.endIndex {
            let messageId = claimed[start].messageId
            let end = claimed[start...].firstIndex { $0.messageId != messageId } ?? claimed.endIndex
            defer { start = end }
            guard let message = messages[messageId] else {
                for delivery in claimed[start..<end] {
                    closed.append((Self.closing(delivery, .failed, "its message no longer exists"), delivery))
                }
                continue
            }
            let personalizer = personal.personalizers[messageId]
            for delivery in claimed[start..<end] {
                var preparation = Self.prepare(
                    delivery, message: message, subscription: subscriptions[delivery.subscriptionId], now: now)
                if let personalizer, case .send(let item) = preparation {
                    preparation = Self.personalized(
                        item, message: message, personalizer,
                        fields: personal.fields[delivery.subscriptionId] ?? [:],
                        language: personal.languages[delivery.subscriptionId])
                }
                switch preparation {
                case .send(let item): work.append(item)
                case .close(let update): closed.append((update, delivery))
                }
            }
        }
        if !closed.isEmpty {
            // A failure here leaves them leased: claimed again when the lease runs out, as after a crash.
            let updates = closed.map(\.0)
            let directory = store.webhookDirectory
            let closings = closed
            let held = try await store.write { tx in
                let held = try tx.updateDeliveries(updates, now: now)
                // A delivery whose message is gone has no project to tell.
                try WebhookOutcomes.enqueue(tx, held: held, directory: directory, now: now) {
                    closings.compactMap { update, delivery in
                        messages[delivery.messageId].map { message in
                            WebhookOutcomes.Outcome(
                                delivery: delivery, projectId: message.projectId, messageId: message.publicId,
                                variant: message.variant(subscriptionId: delivery.subscriptionId), update: update)
                        }
                    }
                }
                return held
            }
            for (update, delivery) in closed where held.contains(update.id) {
                metrics.recordDelivery(
                    provider: delivery.provider, outcome: update.status.rawValue, reason: update.reason)
            }
        }
        return work
    }

    enum Preparation {
        case send(Work)
        case close(DeliveryUpdate)
    }

    /// The reason a cancelled message's deliveries close with (``MessageService/cancel(publicId:)``).
    static let cancelledReason = "the message was cancelled before sending"

    /// The update that closes `delivery` unsent.
    static func closing(_ delivery: ClaimedDelivery, _ status: DeliveryStatus, _ reason: String) -> DeliveryUpdate {
        DeliveryUpdate(
            id: delivery.id, messageId: delivery.messageId, attempt: delivery.attempt, status: status, reason: reason)
    }

    /// What becomes of a claimed delivery, given its message and its subscription as it is now (nil:
    /// gone). The message is borrowed: a copy of it would retain its strings and buffers.
    static func prepare(
        _ delivery: ClaimedDelivery, message: borrowing StoredMessage, subscription: PushState?, now: Int64
    ) -> Preparation {
        func close(_ status: DeliveryStatus, _ reason: String) -> Preparation {
            .close(closing(delivery, status, reason))
        }
        if message.cancelledAt != nil {
            return close(.failed, DeliveryBatchRunner.cancelledReason)
        }
        guard let subscription else {
            return close(.failed, "the subscription was deleted before sending")
        }
        guard subscription.status == .subscribed else {
            return close(.failed, "the subscription was \(subscription.status.rawValue) before sending")
        }
        if subscription.tokenIsInvalid {
            return close(
                .invalidToken, "the token was marked invalid before sending: \(subscription.invalidReason ?? "")")
        }
        if let expiration = message.expiration {
            if expiration == 0, delivery.attempt > 1 {
                return close(.failed, "expired: a time to live of 0 allows one attempt")
            }
            if expiration > 0, now > expiration {
                return close(.failed, "expired: its time to live ran out before sending")
            }
        }
        let provider = subscription.provider
        let variant = message.variant(subscriptionId: delivery.subscriptionId)
        let push = OutgoingPush(
            deliveryId: delivery.id, messageId: message.publicId, projectId: message.projectId,
            provider: provider, token: subscription.token,
            payload: message.payload(deliveryId: delivery.id, variant: variant),
            pushType: PushType(rawValue: message.pushType) ?? .alert, priority: message.priority,
            expiration: message.expiration.map { Date(timeIntervalSince1970: Double($0) / 1000) },
            collapseId: message.collapseId, topic: message.topic,
            environment: subscription.environment(messageEnvironment: message.environment))
        return .send(Work(delivery: delivery, push: push, expiration: message.expiration, variant: variant))
    }

    /// The personalizers of the batch's personalized (or localized) messages, the profile fields
    /// they name of their deliveries' people and those devices' languages, by subscription: one read
    /// for the batch, none without them.
    func personalize(_ claimed: [ClaimedDelivery], messages: [Int64: StoredMessage]) async throws
        -> (
            personalizers: [Int64: MessagePersonalizer], fields: [Int64: [String: JSONValue]],
            languages: [Int64: String]
        )
    {
        var personalizers: [Int64: MessagePersonalizer] = [:]
        for (id, message) in messages {
            if let personalizer = try MessagePersonalizer(message) { personalizers[id] = personalizer }
        }
        guard !personalizers.isEmpty else { return ([:], [:], [:]) }
        let subscriptionIds = Array(Set(claimed.filter { personalizers[$0.messageId] != nil }.map(\.subscriptionId)))
            .sorted()
        let names = personalizers.values.reduce(into: Set<String>()) { $0.formUnion($1.names) }.sorted()
        let localized = personalizers.values.contains { $0.localized }
        let (fields, languages) = try await store.read { tx in
            (
                names.isEmpty ? [:] : try tx.personalFields(subscriptionIds: subscriptionIds, names: names),
                localized ? try tx.subscriptionLanguages(subscriptionIds: subscriptionIds) : [:]
            )
        }
        return (personalizers, fields, languages)
    }

    /// `item` with its payload made for its person; closed as failed when that payload is too large.
    static func personalized(
        _ item: Work, message: borrowing StoredMessage, _ personalizer: MessagePersonalizer,
        fields: [String: JSONValue], language: String? = nil
    ) -> Preparation {
        do {
            var push = item.push
            push.payload = try personalizer.payload(
                message, deliveryId: item.delivery.id, variant: item.variant, fields: fields, language: language)
            return .send(Work(delivery: item.delivery, push: push, expiration: item.expiration, variant: item.variant))
        } catch {
            return .close(closing(item.delivery, .failed, error.reason))
        }
    }

    /// Sends the work, one call per provider (concurrently), and records the outcomes in one transaction.
    func process(_ work: [Work]) async {
        guard !work.isEmpty else { return }
        let byProvider = Dictionary(grouping: work, by: \.push.provider)
        let results = await withTaskGroup(of: [(Work, DeliveryOutcome)].self) { group in
            for (provider, items) in byProvider {
                group.addTask { await send(items, provider: provider) }
            }
            var all: [(Work, DeliveryOutcome)] = []
            for await part in group { all += part }
            return all
        }
        await record(results)
    }

    /// Why a delivery whose provider has no sender fails.
    static func noSender(_ provider: PushProvider) -> String {
        "no sender for provider \(provider.rawValue): configure its credentials for the project"
    }

    func send(_ items: [Work], provider: PushProvider) async -> [(Work, DeliveryOutcome)] {
        guard let sender = await senders.sender(for: provider) else {
            let reason = Self.noSender(provider)
            return items.map { ($0, .failed(reason: reason)) }
        }
        let outcomes = await sender.send(items.map(\.push))
        return items.map { item in
            (
                item,
                outcomes[item.delivery.id]
                    ?? .retry(after: nil, reason: "the \(provider.rawValue) sender gave no outcome")
            )
        }
    }

    func record(_ results: [(Work, DeliveryOutcome)]) async {
        let now = clock()
        let decisions = results.map { work, outcome in
            // Only a retry's delay is spread: a random draw for every sent delivery cost 0.8 % of the
            // send path's CPU.
            let spread: Double = if case .retry = outcome { jitter() } else { 0.5 }
            var kept = outcome
            if case .sent(let id) = outcome {
                kept = .sent(providerMessageId: ProviderMessageIDs.kept(id, for: work.push))
            }
            return (
                work,
                resolver.resolve(kept, for: work.delivery, expiration: work.expiration, now: now, jitter: spread)
            )
        }
        let recorded: [Bool]
        do {
            let directory = store.webhookDirectory
            recorded = try await store.write { tx in
                let held = try tx.updateDeliveries(decisions.map(\.1.update), now: now)
                try WebhookOutcomes.enqueue(tx, held: held, directory: directory, now: now) {
                    decisions.map { work, decision in work.outcome(decision.update) }
                }
                return try decisions.map { work, decision in
                    guard held.contains(decision.update.id) else { return false }
                    if let mark = decision.invalidMark {
                        _ = try tx.markTokenInvalid(
                            provider: work.push.provider, token: work.push.token, reason: mark.reason,
                            since: mark.since, now: now)
                    }
                    return true
                }
            }
        } catch {
            // The leases run out and these deliveries are claimed again: sent at least once, never lost.
            logger.error("recording delivery outcomes failed", ["error": "\(error)", "count": results.count])
            return
        }
        // Counted as recorded (a retry that gave up is a failure), and only for the attempts that
        // still held their rows: a stale answer changed nothing.
        for index in results.indices where recorded[index] {
            let (work, outcome) = results[index]
            let (kind, reason) = Self.label(outcome, recorded: decisions[index].1.update)
            metrics.recordDelivery(provider: work.push.provider, outcome: kind, reason: reason)
        }
    }

    /// The metric's outcome and reason: the status written, `retry` for a delivery queued again
    /// (with the provider's reason, not the row's "retrying: …").
    static func label(_ outcome: DeliveryOutcome, recorded update: DeliveryUpdate) -> (String, String?) {
        if update.status == .queued, case .retry(_, let reason) = outcome { return ("retry", reason) }
        return (update.status.rawValue, update.reason)
    }
}
