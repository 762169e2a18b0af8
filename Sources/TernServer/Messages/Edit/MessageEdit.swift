import Foundation
import TernProtocol

/// Editing a message before it goes: `PUT …/messages/{message_id}` replaces the request of a
/// scheduled message whose fan-out has not begun, of a recurring message (its copies to come), or
/// of a standing triggered message (what each person gets from now on, its rounds' too), checked as
/// a new message is; anything of which something has gone answers 409 with what to do.
///
/// ```swift
/// var request = try await messages.message(publicId: "m_3fa2c1d9e8b7a6f5").request
/// request.title = "Sale starts at nine"
/// let answer = try await messages.edit(publicId: "m_3fa2c1d9e8b7a6f5", request, idempotency: .none)
/// ```
extension MessageService {
    /// Replaces the message's request with `request`, checked by the rules of a new message, in one
    /// transaction with the check that nothing of it has gone (``MessageEditQueries``). The message
    /// keeps its id, project and kind: a recurring message stays recurring (its copies already made
    /// keep theirs; a changed rhythm or first time moves its next copy), a scheduled one may take
    /// another time (or none: it goes at once), a triggered one stays triggered (``triggerKept(_:_:_:)``).
    /// A repeat of the same idempotency key answers the first edit.
    /// With `template_id`, the template's content as it is now fills the fields the edit leaves
    /// out, as for a new message (`keyProject`: the project of the project key that edits).
    func edit(
        publicId: String, _ request: MessageRequest, idempotency: IdempotencyToken, keyProject: Int64? = nil
    ) async throws -> Answer {
        try Self.checkEditable(request)
        if request.templateId != nil, let replay = try await store.storedReplay(idempotency) { return replay }
        let (request, templateProject) = try await withTemplate(request, keyProject: keyProject)
        let planned = try plan(request, publicId: publicId, templateProject: templateProject)
        let answer = try await store.idempotentWrite(idempotency, now: clock()) { tx in
            let message = try Self.find(tx, publicId)
            if let refusal = try Self.refusal(tx, message) { throw refusal }
            let previous = try FanOut.request(message)
            try Self.triggerKept(publicId, previous, request)
            guard (request.recurrence == nil) == (previous.recurrence == nil) else {
                throw APIError.badRequest(
                    message.repeatNextAt == nil
                        ? "repeat does not go with an edit of \(publicId), a scheduled message: send a new "
                            + "recurring message, and cancel this one"
                        : "\(publicId) is a recurring message: its edit keeps repeat (to stop its copies, cancel it)")
            }
            // The message's own project, when the body names none, so that a resource or segment of
            // another project is refused as a second project (400), as it would be in one body.
            var scoped = request
            scoped.projectId = scoped.projectId ?? message.projectId
            var (row, _) = try self.stored(tx, scoped, plan: planned, keyProject: nil, recurringOf: nil)
            guard row.projectId == message.projectId else {
                throw APIError.badRequest(
                    "\(publicId) is a message of project \(message.projectId): an edit cannot move it to project "
                        + "\(row.projectId) (send a new message there)")
            }
            row.id = message.id
            row.repeatNextAt = Self.nextCopy(of: message, previous: previous, edited: request, now: planned.now)
            let replaced =
                request.trigger == nil
                ? try tx.replaceMessage(row, editedAt: planned.now)
                : try tx.replaceTriggeredMessage(row, editedAt: planned.now)
            guard replaced else {
                // The fan-out, a cancel or the last copy came first: the message stands as it was.
                throw try Self.refusal(tx, Self.find(tx, publicId))
                    ?? APIError.conflict("\(publicId) changed while it was being edited: read it and try again")
            }
            return Answer(status: 200, body: try JSONCoders.encoder.encode(try Self.view(tx, Self.find(tx, publicId))))
        }
        if !answer.replayed {
            if request.trigger != nil { store.triggerDirectory.forget() }
            queued()
        }
        return answer
    }

    /// What an edit cannot bring: a test send goes at once, and a winner is made by the server, so
    /// each is a new message. (`trigger` goes with an edit of a triggered message only:
    /// ``triggerKept(_:_:_:)``. An A/B test's versions and split go with any edit: a scheduled
    /// message has sent no version yet.)
    static func checkEditable(_ request: MessageRequest) throws(APIError) {
        let made: [(String, Bool)] = [
            ("test", request.test != nil), ("winner_of", request.winnerOf != nil),
            ("local_day", request.localDay != nil),
        ]
        if let field = made.first(where: \.1) {
            throw .badRequest("\(field.0) does not go with an edit: send a new message with it")
        }
    }

    /// A triggered message's edit keeps `trigger`, and with it whether a person gets the message
    /// again: its goals, delay and re-entry time may change (for the waits that start from now on:
    /// a wait already running keeps its time), but a person it went to once has no round to go on
    /// from without re-entry, and the rounds made with it would stand for nothing without it.
    /// Another message's edit cannot bring a trigger: that is a new message.
    static func triggerKept(_ publicId: String, _ previous: MessageRequest, _ edited: MessageRequest)
        throws(APIError)
    {
        switch (previous.trigger, edited.trigger) {
        case (nil, nil): return
        case (nil, .some):
            throw .badRequest("trigger does not go with an edit of \(publicId): send a new triggered message")
        case (.some, nil):
            throw .badRequest(
                "\(publicId) is a triggered message: its edit keeps trigger (to stop it, cancel it)")
        case (.some(let kept), .some(let trigger)):
            guard (kept.reentryAfterMinutes == nil) == (trigger.reentryAfterMinutes == nil) else {
                throw .badRequest(
                    kept.reentryAfterMinutes == nil
                        ? "trigger.reentry_after_minutes does not go with an edit of \(publicId), sent once a person: "
                            + "send a new triggered message with it, and cancel this one"
                        : "\(publicId) sends again to a person (trigger.reentry_after_minutes): its edit keeps "
                            + "reentry_after_minutes (its time may change)")
            }
        }
    }

    /// Why the message cannot be edited now, with what the operator can do instead; nil while
    /// nothing of it has gone. ``MessageEditQueries/replaceMessage(_:editedAt:)`` holds the same
    /// state in its condition, for the moment of the write.
    static func refusal(_ tx: any StoreTransaction, _ message: StoredMessage) throws -> APIError? {
        let id = message.publicId
        if message.cancelledAt != nil { return .conflict("\(id) was cancelled: send a new message") }
        if let parent = message.recurringOf {
            return .conflict(
                "\(id) is a copy of the recurring message \(parent): edit \(parent) for the copies to come, and "
                    + "cancel this one if it must not go")
        }
        if let parent = message.triggerRoundOf {
            return .conflict(
                "\(id) is round \(message.triggerRound ?? 2) of the triggered message \(parent): edit \(parent) "
                    + "(its rounds take the edit)")
        }
        // Standing: each person's send reads it as it is then.
        if message.triggerEvent != nil { return nil }
        if try FanOut.request(message).test == true {
            return .conflict("\(id) is a test send: send another test")
        }
        if message.repeatEvery != nil || message.repeatWeekdays != nil {
            return message.repeatNextAt == nil
                ? .conflict("\(id) is a recurring message with no copy to come: send a new message") : nil
        }
        if message.sendAt == nil || message.fanOutDone || message.fanOutCursor != 0 || message.total != 0 {
            let counts = DeliveryCounts(total: message.total, byStatus: try tx.deliveryCounts(messageId: message.id))
            return isDone(message, counts)
                ? .conflict("\(id) has finished sending: send a new message")
                : .conflict("\(id) has started sending: cancel it and send a new message")
        }
        return nil
    }

    /// A recurring message's next copy after an edit: the one it had, while its rhythm and first time
    /// stay (within a new `until`); else the new rhythm's first time from the new first time, or,
    /// when that has passed, its first time after now.
    static func nextCopy(of message: StoredMessage, previous: MessageRequest, edited: MessageRequest, now: Int64)
        -> Int64?
    {
        guard let recurrence = edited.recurrence else { return nil }
        let kept = previous.recurrence
        // With weekdays, a local time added or taken away moves the copies' times (``MessageRecurrence``).
        let local = edited.repeatsOnLocalDays
        if kept?.everyDays == recurrence.everyDays, kept?.weekdays == recurrence.weekdays,
            previous.sendAt == edited.sendAt, local == previous.repeatsOnLocalDays
        {
            return message.repeatNextAt.flatMap { next in recurrence.until.map { next <= $0 } ?? true ? next : nil }
        }
        guard let first = edited.sendAt, first < now else {
            return recurrence.start(edited.sendAt ?? now, local: local)
        }
        return recurrence.next(after: first, now: now, local: local)
    }
}
