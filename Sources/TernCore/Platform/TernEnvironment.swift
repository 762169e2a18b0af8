import Foundation
import TernProtocol

/// Everything the SDK takes from the platform, and the outbox's tuning. Apps use ``Tern/shared``,
/// which picks the platform's defaults; tests and the simulated device make a ``Tern`` with their own.
///
/// ```swift
/// let tern = Tern(environment: .directory(URL(fileURLWithPath: "/tmp/device-1")))
/// ```
public struct TernEnvironment: Sendable {
    /// Sends the SDK's HTTP requests.
    public var transport: any HTTPTransport
    /// Tells the time and waits.
    public var clock: any TernClock
    /// Describes the device for the subscription's fields.
    public var deviceInfo: any DeviceInfoProvider
    /// Where the database lives (the app group's container on iOS).
    public var container: any AppGroupContainer
    /// Reports foreground and background, and grants background time.
    public var lifecycle: any AppLifecycle
    /// Runs the SDK's background flush (`BGTaskScheduler` on iOS).
    public var backgroundTasks: any BackgroundTaskScheduler
    /// A number in 0..<1 for the retry policy's jitter.
    public var random: @Sendable () -> Double
    /// When failed requests are retried and when they are dropped.
    public var retryPolicy: RetryPolicy
    /// The most events in one `event/push` or `event/post` request.
    public var maxBatchSize: Int
    /// How often an idle sender looks for rows another process (the NSE) wrote.
    public var idlePollInterval: TimeInterval
    /// Seconds an outbox request may go unanswered before it counts as a network failure and is
    /// retried by the ``retryPolicy``; default 30.
    public var requestTimeout: TimeInterval = 30
    /// The longest a module's initialization may take before it is reported as `timeout`.
    public var moduleInitTimeout: TimeInterval
    /// How long a session lasts after the app leaves the foreground.
    public var sessionTimeout: TimeInterval
    /// The APNs environment the build's signature says (on iOS, ``ProvisioningProfile/buildEnvironment(profile:simulator:)``);
    /// nil when it cannot say. Used when the configuration's `apnsEnvironment` is nil.
    public var buildAPNsEnvironment: @Sendable () -> APNsEnvironment?
    /// The module products initialization brings up, in this order (e.g. `["TernPush"]`); nil, the
    /// default: every linked one. An app never needs it (it links what it uses); a process that links
    /// every module, as a test runner does, names the ones a test talks to.
    public var moduleProducts: [String]? = nil

    /// An environment; the platform parts are required, the tuning has the SDK's defaults.
    ///
    /// - Parameters:
    ///   - transport: Sends HTTP requests; default ``URLSessionTransport``.
    ///   - clock: Tells the time; default ``SystemClock``.
    ///   - deviceInfo: Describes the device.
    ///   - container: Where the database lives.
    ///   - lifecycle: Reports foreground and background.
    ///   - backgroundTasks: Runs background work.
    ///   - random: A number in 0..<1 for retry jitter; default `Double.random(in:)`.
    ///   - retryPolicy: When requests are retried; default ``RetryPolicy/init(baseDelay:maxDelay:budget:maxRetryAfter:jitter:)`` with its defaults.
    ///   - maxBatchSize: The most events in one request; default 100.
    ///   - idlePollInterval: Seconds between an idle sender's looks for rows another process wrote; default 30.
    ///   - moduleInitTimeout: Seconds a module may take to initialize before `timeout`; default 10.
    ///   - sessionTimeout: Seconds a session lasts after the app leaves the foreground; default 1,800.
    ///   - buildAPNsEnvironment: The APNs environment the build says; default: none (nil).
    public init(
        transport: any HTTPTransport = URLSessionTransport(), clock: any TernClock = SystemClock(),
        deviceInfo: any DeviceInfoProvider, container: any AppGroupContainer, lifecycle: any AppLifecycle,
        backgroundTasks: any BackgroundTaskScheduler,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        retryPolicy: RetryPolicy = RetryPolicy(), maxBatchSize: Int = 100, idlePollInterval: TimeInterval = 30,
        moduleInitTimeout: TimeInterval = 10, sessionTimeout: TimeInterval = 1800,
        buildAPNsEnvironment: @escaping @Sendable () -> APNsEnvironment? = { nil }
    ) {
        self.transport = transport
        self.clock = clock
        self.deviceInfo = deviceInfo
        self.container = container
        self.lifecycle = lifecycle
        self.backgroundTasks = backgroundTasks
        self.random = random
        self.retryPolicy = retryPolicy
        self.maxBatchSize = maxBatchSize
        self.idlePollInterval = idlePollInterval
        self.moduleInitTimeout = moduleInitTimeout
        self.sessionTimeout = sessionTimeout
        self.buildAPNsEnvironment = buildAPNsEnvironment
    }

    /// Portable ports with the database under `root` (one directory per app group): for Linux, tests
    /// and the simulated device.
    public static func directory(_ root: URL, deviceInfo: any DeviceInfoProvider = HostDeviceInfo()) -> TernEnvironment
    {
        TernEnvironment(
            deviceInfo: deviceInfo, container: DirectoryContainer(root: root), lifecycle: ManualAppLifecycle(),
            backgroundTasks: ManualBackgroundScheduler())
    }

    /// The platform's defaults: the Apple ports on iOS, a directory under the user's home elsewhere
    /// (`$TERN_SDK_HOME`, else `~/.tern-sdk`).
    public static var platformDefault: TernEnvironment {
        #if os(iOS)
            return .apple
        #else
            let home = ProcessInfo.processInfo.environment["TERN_SDK_HOME"].map { URL(fileURLWithPath: $0) }
            return .directory(
                home ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".tern-sdk"))
        #endif
    }
}
