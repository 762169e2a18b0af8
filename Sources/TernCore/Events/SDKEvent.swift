import Foundation

/// One kind of SDK event: an enum case of ``CoreEvents``, ``PushModuleEvents``, ``TargetModuleEvents``,
/// ``ProfileModuleEvents`` or ``InAppModuleEvents``, with its fixed message.
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

/// Looks an event kind up by module and name; used to keep event kinds in the outbox's rows.
public enum SDKEventCatalog {
    /// Every public event kind of every module, in the reference's order, then Tern's own (tags).
    public static var all: [any SDKEvent] {
        CoreEvents.allCases.filter(\.isPublic) + PushModuleEvents.allCases.filter(\.isPublic)
            + TargetModuleEvents.allCases + ProfileModuleEvents.allCases + InAppModuleEvents.allCases
            + TagsEvents.allCases + InboxEvents.allCases + PreferencesEvents.allCases
    }

    /// The event kind `module.name` (as ``SDKEvent/description`` writes it), nil when unknown.
    public static func lookup(_ key: String) -> (any SDKEvent)? {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        switch parts[0] {
        case CoreEvents.moduleName: return CoreEvents(rawValue: parts[1])
        case PushModuleEvents.moduleName: return PushModuleEvents(rawValue: parts[1])
        case TargetModuleEvents.moduleName: return TargetModuleEvents(rawValue: parts[1])
        case ProfileModuleEvents.moduleName: return ProfileModuleEvents(rawValue: parts[1])
        case InAppModuleEvents.moduleName: return InAppModuleEvents(rawValue: parts[1])
        case TagsEvents.moduleName: return TagsEvents(rawValue: parts[1])
        case InboxEvents.moduleName: return InboxEvents(rawValue: parts[1])
        case PreferencesEvents.moduleName: return PreferencesEvents(rawValue: parts[1])
        default: return nil
        }
    }
}
