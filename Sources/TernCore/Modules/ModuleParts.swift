import Foundation
import TernProtocol

/// What a module brings to the core besides its init step: its event kinds, its own tables, the
/// last touch its requests get before they are first sent, and its checks of the configuration.
/// TernCore knows no module: each one hands these over in ``TernModule/parts`` when it registers
/// (at ``Tern/initialization(configuration:completion:)``, before the database opens).
///
/// ```swift
/// var parts: ModuleParts {
///     ModuleParts(
///         events: MyModuleEvents.allCases,
///         migrations: ["CREATE TABLE my_things (id TEXT PRIMARY KEY, body BLOB NOT NULL);"])
/// }
/// ```
public struct ModuleParts: Sendable {
    /// How a request body is finalized just before its first send.
    public enum Finalized: Sendable {
        /// Send this body (it is saved, so a retry sends the same bytes).
        case ready(Data)
        /// Not sendable yet (a token it needs has not arrived): the lane waits; `report` is raised
        /// once per wait.
        case wait(report: EventRecord?)
        /// Never sendable: the row is dropped with this reason.
        case drop(reason: String)
    }

    /// Fills in a row written with ``OutboxEntry/needsToken`` just before its first send (push adds
    /// the device's token); `nil` from it leaves the row to the next module's finalizer.
    public typealias BodyFinalizer = @Sendable (_ row: OutboxRow, _ core: ReadyCore) async -> Finalized?

    /// Checks the module's part of a configuration, fixing what it can through the builder (a
    /// default for a bad value), and returns the events to report.
    public typealias ConfigurationCheck =
        @Sendable (_ configuration: TernConfiguration, _ fixes: TernConfiguration.Builder) -> [EventRecord]

    /// Reads a Tern push that a module handling pushes (TernPush) got while the app runs (shown in
    /// the foreground, or tapped), for what concerns this module: the inbox syncs when the push
    /// carries its change marker. Runs in the SDK's mailbox, in order with the app's calls: start
    /// long work (a request) without waiting for it. `payload` is the push's `userInfo` as JSON.
    public typealias PushHandler = @Sendable (_ payload: [String: JSONValue], _ core: ReadyCore) async -> Void

    /// Every event kind of the module (`MyEvents.allCases`): a request's stored success and failure
    /// events are found again by `module.name` when its answer comes, after a restart too.
    public var events: [any SDKEvent]
    /// The module's own schema, applied in order once each, tracked under the module's name in the
    /// SDK's database (never remove or edit one that shipped; append).
    public var migrations: [String]
    /// See ``BodyFinalizer``.
    public var finalizeBody: BodyFinalizer?
    /// See ``ConfigurationCheck``.
    public var checkConfiguration: ConfigurationCheck?
    /// See ``PushHandler``.
    public var handlePush: PushHandler?

    /// The parts; every one may be left out (default: none).
    ///
    /// - Parameters:
    ///   - events: See ``events``.
    ///   - migrations: See ``migrations``.
    ///   - finalizeBody: See ``finalizeBody``.
    ///   - checkConfiguration: See ``checkConfiguration``.
    ///   - handlePush: See ``handlePush``.
    public init(
        events: [any SDKEvent] = [], migrations: [String] = [], finalizeBody: BodyFinalizer? = nil,
        checkConfiguration: ConfigurationCheck? = nil, handlePush: PushHandler? = nil
    ) {
        self.events = events
        self.migrations = migrations
        self.finalizeBody = finalizeBody
        self.checkConfiguration = checkConfiguration
        self.handlePush = handlePush
    }
}

/// The event kinds one SDK instance knows: the core's and each registered module's, by
/// `module.name` (as ``SDKEvent/description`` writes it).
public struct EventCatalog: Sendable {
    private var kinds: [String: any SDKEvent] = [:]
    /// Every kind, in the order they were added.
    public private(set) var all: [any SDKEvent] = []

    /// The core's event kinds.
    public init() {
        add(CoreEvents.allCases + IdentityEvents.allCases)
    }

    /// Adds event kinds (a kind already known stays as it was).
    public mutating func add(_ events: [any SDKEvent]) {
        for event in events where kinds[event.description] == nil {
            kinds[event.description] = event
            all.append(event)
        }
    }

    /// The event kind `module.name`, nil when no registered module has it.
    public func lookup(_ key: String) -> (any SDKEvent)? {
        kinds[key]
    }
}
