import Foundation

/// Sends the copies of recurring messages (`repeat`): when a message's next time comes, a copy of
/// it (its request without `repeat` and `send_at`; with weekdays and a local time, with the day it
/// is for, `local_day`) is made as an ordinary message, its audience read
/// now, and the next time moves on, in one transaction, so each time makes one copy however many
/// nodes look. A copy that cannot be made (a segment that now matches nothing, a resource gone) is
/// logged and that time skipped; the next one is tried.
///
/// ```swift
/// let runner = RecurrenceRunner(messages: messages, logger: logger)
/// try await runner.pass()   // makes every copy due now
/// ```
public struct RecurrenceRunner: Sendable {
    let messages: MessageService
    let logger: Logger
    let metrics: Metrics?
    /// How long the loop rests between passes.
    var interval: Duration = .seconds(5)

    /// A runner that makes copies through `messages`.
    ///
    /// - Parameters:
    ///   - messages: The service that makes each copy; its clock says when a message is due.
    ///   - logger: Each copy made, and each time skipped, is logged here.
    ///   - metrics: Counts them (`tern_recurring_copies_total`).
    public init(messages: MessageService, logger: Logger, metrics: Metrics? = nil) {
        self.messages = messages
        self.logger = logger
        self.metrics = metrics
    }

    /// Makes copies until cancelled.
    public func run() async {
        await Periodic.run(every: interval, logger: logger, failure: "sending recurring messages failed") {
            try await pass()
        }
    }

    /// Makes the copy of every recurring message due now; answers the copies this pass made.
    @discardableResult
    public func pass() async throws -> [MessageView] {
        let store = messages.store
        let now = messages.clock()
        let due = try await store.read { try $0.messagesDueToRecur(now: now, limit: 20) }
        var made: [MessageView] = []
        for message in due {
            guard let at = message.repeatNextAt else { continue }
            var copied = try FanOut.request(message)
            guard let recurrence = copied.recurrence else { continue }
            // Weekdays with a local time are each device's own: the copy carries its day, so its
            // fan-out (on this node or another, now or after a restart) sends on that day.
            let local = copied.repeatsOnLocalDays
            let next = recurrence.next(after: at, now: now, local: local)
            copied.recurrence = nil
            copied.sendAt = nil
            copied.localDay = local ? MessageRecurrence.localDay(ofCopyAt: at) : nil
            let request = copied
            do {
                let planned = try messages.plan(request)
                let copy = try await store.write { tx -> MessageView? in
                    guard try tx.advanceRecurrence(messageId: message.id, from: at, to: next, content: message.content)
                    else { return nil }
                    return try messages.insert(tx, request, plan: planned, recurringOf: message.publicId).0
                }
                guard let copy else { continue }  // another node made this time's copy, or an edit came first
                messages.queued()
                made.append(copy)
                metrics?.recordRecurringCopy(made: true)
                logger.info(
                    "sent a recurring message's copy",
                    [
                        "message": message.publicId, "copy": copy.id,
                        "next": next.map(MessageService.timestamp) ?? "none",
                    ])
            } catch let error as APIError {
                logger.error(
                    "a recurring message's copy could not be made; this time is skipped",
                    ["message": message.publicId, "error": error.reason])
                _ = try await store.write {
                    try $0.advanceRecurrence(messageId: message.id, from: at, to: next, content: message.content)
                }
                metrics?.recordRecurringCopy(made: false)
            }
        }
        return made
    }
}
