import Foundation

/// An SDK event: information and successful requests. Delivered to the one subscriber of
/// ``SDKEvents``, always on the main queue.
///
/// ```swift
/// Tern.shared.eventSDKFunctions.subscribe { event in
///     print(event.function, event.message ?? "", event.value ?? [:])
/// }
/// ```
open class Event: NSObject {
    public let id = UUID()
    /// The name of the SDK function that raised the event.
    public let function: String
    /// The event's kind, nil for an event that has none.
    public let event: (any SDKEvent)?
    /// The event's message: the kind's text from the reference's table (e.g. "successful request:
    /// push/subscribe"), or a more precise one (e.g. "push provider set: ios-apns").
    public let message: String?
    /// Extra data some events carry, e.g. `http_code`, `error`, `error_text`, `profile`.
    public let value: [String: Any]?
    /// When the event happened.
    public let date: Date

    /// Creates an event; the SDK makes them, an app needs this only to build events in its own tests.
    ///
    /// - Parameters:
    ///   - function: The name of the SDK function that raised it.
    ///   - event: Its kind; default nil.
    ///   - message: Its message; default nil, meaning the kind's own message.
    ///   - value: Extra data; default nil.
    ///   - date: When it happened; default now.
    public init(
        function: String, event: (any SDKEvent)? = nil, message: String? = nil, value: [String: Any]? = nil,
        date: Date = Date()
    ) {
        self.function = function
        self.event = event
        self.message = message ?? event?.message
        self.value = value
        self.date = date
    }

    open override var description: String {
        "\(type(of: self))(\(function): \(event.map { String(describing: $0) } ?? "-") \(message ?? ""))"
    }
}

/// An error for which the SDK does not retry.
open class ErrorEvent: Event {}

/// A failed request that the SDK retries automatically.
public final class RetryEvent: ErrorEvent {}
