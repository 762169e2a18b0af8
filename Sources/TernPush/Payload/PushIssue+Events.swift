import TernCore
import TernProtocol

extension PushIssue.Kind {
    /// The push-module event an issue of this kind is reported as.
    public var event: PushModuleEvents {
        switch self {
        case .errorHandleUserInfo: .errorHandleUserInfo
        case .uidIsNil: .uidIsNil
        case .errorMediaDownload: .errorMediaDownload
        case .errorMediaKeyMissing: .errorMediaKeyMissing
        case .errorButtonsKeyMissing: .errorButtonsKeyMissing
        case .invalidButtonIdentifier: .invalidButtonIdentifier
        case .outOfRangeForIdentifier: .outOfRangeForIdentifier
        case .unknownButtonIdentifier: .unknownButtonIdentifier
        }
    }

    /// The event's message, as the reference words it (the event's own text).
    public var message: String { event.message }
}

extension PushIssue {
    /// The push-module event this issue is reported as.
    public var event: PushModuleEvents { kind.event }

    /// The issue as an `ErrorEvent` record: the reference's message, and the details as its value
    /// (strings, numbers, booleans; null details are left out).
    public func record(function: String) -> EventRecord {
        .error(function, event, value: value.compactMapValues(Self.plain))
    }

    private static func plain(_ json: JSONValue) -> (any Sendable)? {
        switch json {
        case .null: nil
        case .bool(let flag): flag
        case .int(let number): Int(truncatingIfNeeded: number)
        case .double(let number): number
        case .string(let text): text
        case .array(let items): items.compactMap(plain)
        case .object(let object): object.compactMapValues(plain)
        }
    }
}

/// Reports push issues on the SDK's event bus, as `ErrorEvent`s the app's subscriber receives.
///
/// ```swift
/// let issues = EventBusIssueReporter(bus: Tern.shared.core.bus)
/// ```
public struct EventBusIssueReporter: PushIssueReporting {
    /// The SDK's event bus (`Tern.shared.core.bus`).
    public let bus: EventBus

    /// A reporter on `bus`.
    ///
    /// - Parameter bus: The SDK's event bus.
    public init(bus: EventBus) {
        self.bus = bus
    }

    public func report(_ issue: PushIssue, function: String) async {
        bus.emit(issue.record(function: function))
    }

    public func progress(_ event: PushModuleEvents, messageId: String?, function: String) async {
        bus.emit(.info(function, event, value: messageId.map { ["message_id": $0] }))
    }
}
