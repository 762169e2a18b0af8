import Foundation
import TernProtocol

/// Sends triggered messages when their people's waits end: every node looks every two seconds,
/// takes the runs due (each once: the run is taken in the transaction that writes its
/// deliveries, so two nodes, or a restart, never send one twice), and writes each person's
/// deliveries to the standing message as its fan-out would (the audience's resource and filters,
/// categories turned off, the frequency cap, the inbox, personalization). A person's second time
/// through a message with re-entry goes through its round 2, made in that same transaction
/// (`m_3fa2c1d9e8b7a6f5-2`, a message of its own), and so on.
///
/// ```swift
/// let runner = TriggerRunner(messages: messages, logger: logger)
/// Task { await runner.run() }
/// ```
public struct TriggerRunner: Sendable {
    let messages: MessageService
    let logger: Logger
    let metrics: Metrics?
    let interval: Duration

    /// - Parameters:
    ///   - messages: The messages' service: its store, clock and the engine's wake-up.
    ///   - logger: Where a pass that failed is said.
    ///   - metrics: `tern_triggered_total`; none by default.
    ///   - interval: How often it looks; two seconds by default.
    public init(
        messages: MessageService, logger: Logger, metrics: Metrics? = nil, interval: Duration = .seconds(2)
    ) {
        self.messages = messages
        self.logger = logger
        self.metrics = metrics
        self.interval = interval
    }

    /// Sends until cancelled.
    public func run() async {
        await Periodic.run(every: interval, logger: logger, failure: "sending triggered messages failed") {
            while try await pass() > 0 {}
        }
    }

    /// Takes up to `limit` runs due now and writes their deliveries; answers how many runs it took.
    @discardableResult
    public func pass(limit: Int = 200) async throws -> Int {
        let now = messages.clock()
        let due = try await messages.store.read { try $0.dueTriggerRuns(now: now, limit: limit) }
        guard !due.isEmpty else { return 0 }
        let (taken, written) = try await messages.store.write { tx in
            var taken = 0
            var written = 0
            var standing: [Int64: Standing?] = [:]
            for run in due {
                if standing[run.messageId] == nil {
                    standing[run.messageId] = .some(
                        try tx.message(id: run.messageId).flatMap { message in
                            message.cancelledAt == nil
                                ? Standing(message: message, request: try FanOut.request(message)) : nil
                        })
                }
                let trigger = standing[run.messageId] ?? nil
                let reentry = trigger?.message.triggerReentry != nil
                guard
                    let round = try tx.takeTriggerRun(
                        messageId: run.messageId, profileId: run.profileId, now: now, keep: reentry)
                else {
                    continue  // another node took it, or its goal's cancel came
                }
                taken += 1
                guard var trigger, round <= TriggerRounds.last, let profile = try tx.profile(id: run.profileId),
                    !profile.skipTriggers
                else { continue }
                let sent = try trigger.round(round, tx, now: now)
                standing[run.messageId] = trigger
                let added = try Self.fire(tx, message: sent, request: trigger.request, profileId: profile.id, now: now)
                written += added
                if reentry, added > 0 {
                    try tx.noteTriggerWent(messageId: run.messageId, profileId: profile.id, now: now)
                }
            }
            return (taken, written)
        }
        if written > 0 { messages.queued() }
        metrics?.recordTriggered(taken)
        return taken
    }

    /// A triggered message not cancelled, as this pass read it, with the rounds it sent.
    struct Standing {
        let message: StoredMessage
        let request: MessageRequest
        var rounds: [Int: StoredMessage] = [:]

        /// The message of round `round` (1: the message itself), made if none is yet.
        mutating func round(_ round: Int, _ tx: any StoreTransaction, now: Int64) throws -> StoredMessage {
            guard round > 1 else { return message }
            if let made = rounds[round] { return made }
            let made = try tx.triggerRound(of: message, round: round, now: now)
            rounds[round] = made
            return made
        }
    }

    /// Writes the person's deliveries of the standing message (or its round), as sent now.
    static func fire(
        _ tx: any StoreTransaction, message: StoredMessage, request: MessageRequest, profileId: Int64, now: Int64
    ) throws -> Int {
        let filter = AudienceFilter(request.audience, category: request.category)
        var admitted: [AudienceCandidate] = []
        for candidate in try tx.pushCandidates(profileId: profileId, reading: filter.reads) {
            let tags = filter.needsTags ? try tx.tags(subscriptionId: candidate.subscription.id) : nil
            if filter.admits(candidate, tags: tags) { admitted.append(candidate) }
        }
        // Made and sent now, for this person: the frequency cap counts and records it at this moment,
        // and an inbox copy keeps its days from now, not from when the trigger was set up.
        var fired = message
        fired.createdAt = now
        fired.sendAt = now
        return try FanOut().queue(
            tx, message: fired, request: request, admitted: admitted, cursor: message.fanOutCursor, done: true,
            now: now
        ).added
    }
}
