import Foundation
import TernProtocol

/// Messages, the delivery outbox, audiences and token hygiene.
///
/// The outbox is claimed with a lease: a claim moves due deliveries to `sending` until
/// `leaseUntil`; a delivery whose lease ran out (its worker died) is due again. An outcome is
/// written only for the attempt that claimed it, so a late answer from a stale worker changes
/// nothing. A delivery's row is written once; its state is kept beside it (queue entries, the
/// fan-out's leases, appended outcomes: `SQLiteMigrations.deliveryQueue` says why).
public protocol DeliveryQueries {
    /// Inserts the message (its `id` is ignored) and returns it with the id assigned.
    func insertMessage(_ message: StoredMessage) throws -> StoredMessage
    /// The message with this row id, or nil when there is none.
    ///
    /// - Parameter id: The message's row id.
    func message(id: Int64) throws -> StoredMessage?
    /// The message with this public id (the `message_id` the API answers), or nil when there is none.
    ///
    /// - Parameter publicId: The message's public id.
    func message(publicId: String) throws -> StoredMessage?
    /// Messages whose fan-out has not finished and whose time to be sent has come, oldest first.
    func messagesFanningOut(limit: Int, now: Int64) throws -> [StoredMessage]
    /// Saves the fan-out's progress: the cursor, whether it is done, and `added` more deliveries.
    func advanceFanOut(messageId: Int64, cursor: Int64, done: Bool, added: Int64) throws
    /// Marks the message cancelled at `now` and its fan-out done, unless it already was cancelled.
    func cancelMessage(id: Int64, now: Int64) throws

    /// Writes queued deliveries due when `timing` says (at `now`, in a throttled message's turns,
    /// or at each subscription's own time); a device (provider and token) gets a message once, so
    /// duplicates are skipped (and take no place in a pace). Returns how many were written.
    func insertDeliveries(messageId: Int64, targets: [DeliveryTarget], now: Int64, timing: DeliveryTiming) throws
        -> Int
    /// Writes deliveries already claimed by whoever writes them: `sending`, first attempt, leased
    /// until `leaseUntil`, as ``claimDeliveries(limit:now:leaseUntil:)`` leaves a delivery (the
    /// engine's fan-out handing a chunk straight to its senders). One lease holds the whole chunk;
    /// once it lapses, a claim takes the deliveries still without an outcome again. Duplicates are
    /// skipped as by ``insertDeliveries(messageId:targets:now:timing:)``; returns the deliveries written.
    func insertLeasedDeliveries(messageId: Int64, targets: [DeliveryTarget], now: Int64, leaseUntil: Int64) throws
        -> [ClaimedDelivery]
    /// Claims up to `limit` due deliveries (queued and due, or sending with an expired lease). The
    /// messages with deliveries due take turns, each an equal share, the least recently served
    /// first; within a message, the queued oldest due first, then the lapsed leases.
    func claimDeliveries(limit: Int, now: Int64, leaseUntil: Int64) throws -> [ClaimedDelivery]
    /// Writes outcomes, one for each delivery (an id appears once); returns the ids whose rows were
    /// still held by the attempt the outcome names (the others changed nothing).
    func updateDeliveries(_ updates: [DeliveryUpdate], now: Int64) throws -> Set<Int64>
    /// When the next queued or leased delivery falls due, if any.
    func nextDeliveryDue() throws -> Int64?
    /// True when a message other than `messageId` has deliveries due at `now` (its turn is waiting).
    func anotherMessageDue(than messageId: Int64, now: Int64) throws -> Bool
    /// Deliveries per status (those with none left out), read from the message's counts, not its rows.
    func deliveryCounts(messageId: Int64) throws -> [DeliveryStatus: Int64]
    /// Failed deliveries per reason.
    func failureReasons(messageId: Int64) throws -> [String: Int64]
    /// A message's deliveries in id order, after `afterId`.
    func deliveries(messageId: Int64, afterId: Int64, limit: Int) throws -> [DeliveryRow]
    /// Devices' `event/push` reports whose message id starts with `prefix`, per type.
    func pushEventCounts(messageIdPrefix prefix: String) throws -> [PushEventRequest.Kind: Int64]
    /// How many of the push ids starting with `prefix` (a message's, or one version's) have a goal
    /// (named `eventName`, when given) whose device also reported opening that push: the opens a
    /// goal followed. A goal naming a push nobody opened, or an id no device was sent, is no conversion.
    func conversions(messageIdPrefix prefix: String, eventName: String?) throws -> Int64
    /// An A/B-tested message's deliveries for each version, counted by the buckets of their
    /// subscriptions (a scan of the message's deliveries).
    func variantTargets(_ message: StoredMessage) throws -> [Int64]
    /// Notes the message that sent an A/B test's winner (its public id); false when one was noted.
    func setWinner(messageId: Int64, winner: String) throws -> Bool
    /// A/B tests whose winner the server picks now (due, none sent, not cancelled, fanned out),
    /// the earliest due first.
    func messagesAwaitingWinner(now: Int64, limit: Int) throws -> [StoredMessage]
    /// Stops the server picking the test's winner (it could not be sent); an operator still can.
    func clearWinnerDue(messageId: Int64) throws

    /// Push subscriptions of a resource with ids after `cursor`, in id order, with their tokens'
    /// marks; their fields and categories as `reading` asks.
    func pushCandidates(resourceId: Int64, after cursor: Int64, limit: Int, reading: CandidateDetail) throws
        -> [AudienceCandidate]
    /// A profile's push subscriptions with their tokens' marks; their fields and categories as
    /// `reading` asks.
    func pushCandidates(profileId: Int64, reading: CandidateDetail) throws -> [AudienceCandidate]
    /// Push subscriptions with this provider and token in a project's resources; their fields and
    /// categories as `reading` asks.
    func pushCandidates(projectId: Int64, provider: PushProvider, token: String, reading: CandidateDetail) throws
        -> [AudienceCandidate]
    /// A project's test devices (in `resourceId` only, when given): push subscriptions marked
    /// `is_test` and the push subscriptions of test profiles, in id order, at most `limit`.
    func testPushCandidates(projectId: Int64, resourceId: Int64?, limit: Int) throws -> [AudienceCandidate]

    /// What sending needs to know about each subscription now, with its token's invalid mark, by
    /// subscription id; one that is gone is not in it.
    func pushStates(subscriptionIds: [Int64]) throws -> [Int64: PushState]

    /// Marks a token invalid, unless a subscription with it was written after `since` (ms): the device
    /// registered it again. The mark holds for the token's writes up to `since` (up to `now` without
    /// one), and a later mark already there stays. Returns true when marked.
    func markTokenInvalid(provider: PushProvider, token: String, reason: String, since: Int64?, now: Int64) throws
        -> Bool
    /// When the token was marked invalid and why, if it is.
    func invalidTokenMark(provider: PushProvider, token: String) throws -> (markedAt: Int64, reason: String)?
}

extension DeliveryQueries {
    /// Writes queued deliveries due at `now` (``insertDeliveries(messageId:targets:now:timing:)``).
    func insertDeliveries(messageId: Int64, targets: [DeliveryTarget], now: Int64) throws -> Int {
        try insertDeliveries(messageId: messageId, targets: targets, now: now, timing: .now)
    }

    /// What sending needs to know about a subscription now, with its token's invalid mark; nil when it is gone.
    func pushState(subscriptionId: Int64) throws -> PushState? {
        try pushStates(subscriptionIds: [subscriptionId])[subscriptionId]
    }

    /// Writes one outcome; false when the row is no longer held by that attempt.
    func updateDelivery(_ update: DeliveryUpdate, now: Int64) throws -> Bool {
        try updateDeliveries([update], now: now).contains(update.id)
    }
}
