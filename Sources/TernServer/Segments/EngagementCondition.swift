import Foundation
import TernProtocol

/// A condition of an ``AudienceExpression`` on what a person did with earlier messages, read from
/// the messages' deliveries and the devices' reports rather than from the subscription's fields.
///
/// ```json
/// {"message": "m_0123456789abcdef", "op": "not_opened"}
/// {"engagement": "opened_any", "op": "within_days", "value": 30}
/// ```
///
/// It holds per person: a subscription matches when its profile's reports say so, whichever of the
/// profile's devices the message went to or was opened on. A device that never logged in has a
/// profile of its own (its anonymous profile), so for it the person is the device alone.
public struct EngagementCondition: Sendable, Equatable {
    /// What a person did with one message.
    enum Kind: String, Sendable, CaseIterable {
        /// A device of the person reported opening it.
        case opened
        /// It was sent (a provider accepted it) to a device of the person, and none reported opening it.
        case notOpened = "not_opened"
        /// A device of the person reported it delivered, or opened it (an open proves delivery).
        case delivered
        /// A provider accepted it for a device of the person.
        case sent
    }

    /// What the condition reads.
    enum Subject: Sendable, Equatable {
        /// One message, by its public id.
        case message(String, Kind)
        /// Any push of the project opened within the last days.
        case openedAny(days: Double)
        /// The condition as a send keeps it while it fans out (``EngagementLists``): the profiles
        /// of list `list` of message `sending`'s `audience_lists`, less those of list `except`.
        case kept(sending: Int64, list: Int, except: Int?)
    }

    var subject: Subject

    init(_ subject: Subject) {
        self.subject = subject
    }

    /// The message the condition names, if any.
    var messageId: String? {
        if case .message(let id, _) = subject { id } else { nil }
    }

    /// Reads `{"message": …, "op": …}` or `{"engagement": "opened_any", "op": "within_days", "value": N}`.
    init(_ object: [String: JSONValue], path: String) throws(APIError) {
        let kinds = Kind.allCases.map(\.rawValue).joined(separator: ", ")
        if let message = object["message"] {
            if let key = Set(object.keys).subtracting(["message", "op"]).sorted().first {
                throw AudienceExpression.refuse(
                    "\(path).\(key)", "is not a key of a message condition (message, op)")
            }
            guard let id = message.stringValue, !id.isEmpty, TextLength.fits(id, max: 64), !id.contains(".") else {
                throw AudienceExpression.refuse(
                    "\(path).message", "must be a message's id (m_…), as its send answered")
            }
            guard let name = object["op"]?.stringValue else {
                throw AudienceExpression.refuse("\(path).op", "is missing: one of \(kinds)")
            }
            guard let kind = Kind(rawValue: name) else {
                throw AudienceExpression.refuse(
                    "\(path).op", "unknown engagement \"\(name.prefix(32))\" with a message: use one of \(kinds)")
            }
            subject = .message(id, kind)
            return
        }
        if let key = Set(object.keys).subtracting(["engagement", "op", "value"]).sorted().first {
            throw AudienceExpression.refuse(
                "\(path).\(key)", "is not a key of an engagement condition (engagement, op, value)")
        }
        guard object["engagement"]?.stringValue == "opened_any" else {
            throw AudienceExpression.refuse(
                "\(path).engagement", "must be opened_any (for one message, use {\"message\": id, \"op\": …})")
        }
        guard object["op"]?.stringValue == FilterOperator.withinDays.rawValue else {
            throw AudienceExpression.refuse("\(path).op", "opened_any takes within_days")
        }
        guard let days = object["value"]?.doubleValue, object["value"]?.stringValue == nil, days > 0,
            days <= 36_500
        else {
            throw AudienceExpression.refuse("\(path).value", "within_days takes a number of days above 0, up to 36500")
        }
        subject = .openedAny(days: days)
    }
}
