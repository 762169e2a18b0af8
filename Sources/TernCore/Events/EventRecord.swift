import Foundation

/// The Sendable description of an event, built inside the SDK's actors; the ``Event`` object is
/// made from it on the main queue. Public for Tern's modules.
public struct EventRecord: Sendable {
    /// Which class the event becomes.
    public enum Kind: Sendable, Equatable {
        /// Information or a successful request: becomes an ``Event``.
        case info
        /// An error the SDK does not retry: becomes an ``ErrorEvent``.
        case error
        /// A failed request the SDK retries: becomes a ``RetryEvent``.
        case retry
    }

    /// Which class the event becomes.
    public var kind: Kind
    /// The name of the public SDK function that raised the event, e.g. `subscribe`.
    public var function: String
    /// The event's kind, e.g. `PushModuleEvents.pushSubscribeRequestSuccessful` (TernPush).
    public var event: any SDKEvent
    /// Replaces the kind's message when set (e.g. `push provider set: ios-apns`).
    public var message: String?
    /// Extra data, e.g. `http_code`, `error`, `error_text`, `profile`; Sendable until the ``Event`` is made.
    public var value: [String: any Sendable]?
    /// When the event happened.
    public var date: Date

    /// Describes an event.
    ///
    /// - Parameters:
    ///   - kind: Which class the event becomes.
    ///   - function: The public SDK function that raised it.
    ///   - event: Its kind.
    ///   - message: A message replacing the kind's own; default nil.
    ///   - value: Extra data; default nil.
    ///   - date: When it happened; default now.
    public init(
        _ kind: Kind, function: String, event: any SDKEvent, message: String? = nil,
        value: [String: any Sendable]? = nil, date: Date = Date()
    ) {
        self.kind = kind
        self.function = function
        self.event = event
        self.message = message
        self.value = value
        self.date = date
    }

    /// An information event.
    public static func info(
        _ function: String, _ event: any SDKEvent, message: String? = nil, value: [String: any Sendable]? = nil
    ) -> EventRecord {
        EventRecord(.info, function: function, event: event, message: message, value: value)
    }

    /// An error event without automatic retry.
    public static func error(
        _ function: String, _ event: any SDKEvent, message: String? = nil, value: [String: any Sendable]? = nil
    ) -> EventRecord {
        EventRecord(.error, function: function, event: event, message: message, value: value)
    }

    /// An error event for a request the SDK retries.
    public static func retry(
        _ function: String, _ event: any SDKEvent, message: String? = nil, value: [String: any Sendable]? = nil
    ) -> EventRecord {
        EventRecord(.retry, function: function, event: event, message: message, value: value)
    }

    /// Makes the event object; called on the main queue.
    func makeEvent() -> Event {
        let value = self.value?.mapValues { $0 as Any }
        switch kind {
        case .info:
            return Event(function: function, event: event, message: message, value: value, date: date)
        case .error:
            return ErrorEvent(function: function, event: event, message: message, value: value, date: date)
        case .retry:
            return RetryEvent(function: function, event: event, message: message, value: value, date: date)
        }
    }
}
