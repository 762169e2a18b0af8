import Foundation

/// One kind of SDK event: an enum case of ``CoreEvents`` or of a module's own events (TernPush's
/// `PushModuleEvents`, TernTarget's `TargetModuleEvents`, …), with its fixed message.
///
/// ```swift
/// Tern.shared.eventSDKFunctions.subscribe { event in
///     if event.event == PushModuleEvents.pushSubscribeRequestSuccessful { … }
/// }
/// ```
public protocol SDKEvent: Sendable, CustomStringConvertible {
    /// The case's name, e.g. `configSet`.
    var name: String { get }
    /// The event's message, word for word as the reference gives it.
    var message: String { get }
    /// The module the event belongs to: `core`, `push`, `target`, `profile`, `inApp`.
    var module: String { get }
}

extension SDKEvent where Self: RawRepresentable, RawValue == String {
    public var name: String { rawValue }
}

extension SDKEvent {
    public var description: String { "\(module).\(name)" }
}

/// Compares an event's kind with one enum case: `event.event == CoreEvents.configSet`.
public func == <E: SDKEvent & Equatable>(lhs: (any SDKEvent)?, rhs: E) -> Bool {
    guard let lhs = lhs as? E else { return false }
    return lhs == rhs
}

/// Compares one enum case with an event's kind: `CoreEvents.configSet == event.event`.
public func == <E: SDKEvent & Equatable>(lhs: E, rhs: (any SDKEvent)?) -> Bool {
    rhs == lhs
}

/// True when an event's kind is not the given case.
public func != <E: SDKEvent & Equatable>(lhs: (any SDKEvent)?, rhs: E) -> Bool {
    !(lhs == rhs)
}
