import Foundation
import TernCore
import TernProtocol

/// Checks what an app passes to `sendTarget` and turns it into the wire's `GoalEvent`. Pure: the
/// JWT check needs the core and happens when the call runs.
enum GoalDraft {
    /// Longest `sid`, `eventName` and `clientID`, in UTF-8 bytes (the server's limit).
    static let maxTextBytes = 256

    /// Why a goal was refused before anything was queued.
    struct Problem: Error, Equatable {
        let reason: String
        /// The parameter (and field) at fault, e.g. `payload.when`.
        let field: String
    }

    static func make(
        sid: String, clientID: String, eventName: String, sendMessageId: String?, payload: [String: Any?]?,
        matching: [String: Any?]?, matchingType: String?, profileFields: [String: Any?]?,
        subscription: (any Subscription)?, utm: UTM?, time: Int64
    ) -> Result<GoalEvent, Problem> {
        if let problem = text(sid, "sid", example: "the pixel's sid")
            ?? text(eventName, "eventName", example: "purchase")
        {
            return .failure(problem)
        }
        if GoalEvent.isReserved(eventName) {
            return .failure(
                Problem(
                    reason: "eventName \"\(eventName.prefix(64))\" starts with $, which is reserved for events the "
                        + "server notes itself (such as $subscribed, when a device subscribes): name the goal without it",
                    field: "eventName"))
        }
        if clientID.utf8.count > maxTextBytes {
            return .failure(Problem(reason: "clientID is longer than \(maxTextBytes) bytes", field: "clientID"))
        }
        let payloadJSON: [String: JSONValue]?
        let matchingJSON: [String: JSONValue]?
        let fieldsJSON: [String: JSONValue]?
        switch (FieldValues.scalars(payload), FieldValues.json(matching), FieldValues.json(profileFields)) {
        case (.failure(let problem), _, _):
            return .failure(Problem(reason: problem.reason(in: "payload"), field: "payload.\(problem.field)"))
        case (_, .failure(let problem), _):
            return .failure(Problem(reason: problem.reason(in: "matching"), field: "matching.\(problem.field)"))
        case (_, _, .failure(let problem)):
            return .failure(
                Problem(reason: problem.reason(in: "profileFields"), field: "profileFields.\(problem.field)"))
        case (.success(let p), .success(let m), .success(let f)):
            (payloadJSON, matchingJSON, fieldsJSON) = (p, m, f)
        }
        var wireSubscription: GoalSubscription?
        if let subscription {
            switch SubscriptionWire.make(subscription) {
            case .failure(let problem): return .failure(problem)
            case .success(let wire): wireSubscription = wire
            }
        }
        return .success(
            GoalEvent(
                sid: sid, clientId: clientID, eventName: eventName, sendMessageId: sendMessageId,
                payload: payloadJSON, matching: matchingJSON, matchingType: matchingType, profileFields: fieldsJSON,
                subscription: wireSubscription, utm: utm, time: time))
    }

    private static func text(_ value: String, _ name: String, example: String) -> Problem? {
        if value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return Problem(reason: "\(name) is empty: pass \(example)", field: name)
        }
        if value.utf8.count > maxTextBytes {
            return Problem(reason: "\(name) is longer than \(maxTextBytes) bytes", field: name)
        }
        return nil
    }
}
