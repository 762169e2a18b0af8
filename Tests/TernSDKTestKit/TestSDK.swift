import Foundation
import Synchronization
import TernCore
import TernTestSupport

/// The SDK tests' one harness: an SDK in a temporary directory, as an iPhone would run it, with
/// fast retries and a fixed random source, its events kept in ``events``.
///
/// ```swift
/// let sdk = try TestSDK()
/// sdk.configure(apiUrl: server.apiUrl, jwt: "header.claims.signature")
/// let done = await sdk.events.first("pushSubscribeRequestSuccessful")
/// await sdk.close()
/// ```
public struct TestSDK {
    public let directory: TemporaryDirectory
    public let tern: Tern
    /// Every event of this SDK (the SDK has one subscriber: use this log, not a second one).
    public let events: EventLog

    /// An SDK in `directory` (a new temporary one when nil: pass another SDK's to restart on its
    /// database), with `retryPolicy`, and `transport` / `lifecycle` instead of the defaults when given;
    /// `sessionTimeout`: seconds away after which a foreground starts a new session; `requestTimeout`:
    /// seconds an outbox request may go unanswered (10, a third of the tests' waits: a request that
    /// a loaded run leaves hanging is sent again within the wait, as on a device); `clock` instead of
    /// the system's when given. `modules` names
    /// the module products to bring up (nil: every one the test runner links, which is all of them: a
    /// test against a scripted server names the ones whose requests it scripts).
    public init(
        directory: TemporaryDirectory? = nil, retryPolicy: RetryPolicy = .fast, transport: (any HTTPTransport)? = nil,
        moduleInitTimeout: TimeInterval = 10, lifecycle: (any AppLifecycle)? = ManualAppLifecycle(),
        sessionTimeout: TimeInterval = 1800, requestTimeout: TimeInterval = 10, clock: (any TernClock)? = nil,
        modules: [String]? = nil
    ) throws {
        let directory = try directory ?? TemporaryDirectory(prefix: "tern-sdk")
        self.directory = directory
        var environment = TernEnvironment.directory(
            directory.url, deviceInfo: HostDeviceInfo(model: "iPhone14,7", name: "iPhone", osVersion: "18.6.2"))
        environment.retryPolicy = retryPolicy
        environment.moduleInitTimeout = moduleInitTimeout
        environment.sessionTimeout = sessionTimeout
        environment.requestTimeout = requestTimeout
        if let lifecycle { environment.lifecycle = lifecycle }
        if let clock { environment.clock = clock }
        environment.random = { 0.5 }
        environment.moduleProducts = modules
        environment.transport = SlowRequestReporter(transport ?? environment.transport)
        tern = Tern(environment: environment)
        events = EventLog(tern)
    }

    /// Sets the app group and the configuration: the rToken, and a JWT provider when `jwt` is given.
    public func configure(
        apiUrl: String, rToken: String? = "rt_test", appGroup: String? = "group.test", jwt: String? = nil
    ) {
        tern.setAppGroup(groupName: appGroup)
        if let jwt { tern.setJWTProvider(provider: FixedJWT(jwt)) }
        tern.initialization(configuration: TernConfiguration.Builder(apiUrl: apiUrl).setRToken(rToken).build())
    }

    /// Returns when every call made so far has run and its events reached the subscriber.
    public func settle() async {
        await tern.flushQueues()
        await tern.core.bus.flush()
    }

    /// Stops the SDK. The directory stays, for another SDK to open (`TestSDK(directory:)`).
    public func close() async {
        await tern.shutdown()
    }
}

extension RetryPolicy {
    /// Milliseconds between attempts, so tests that retry finish quickly.
    public static let fast = RetryPolicy(baseDelay: 0.02, maxDelay: 0.1, budget: 60, maxRetryAfter: 2, jitter: 0)
}

/// A JWT provider that always gives the same token.
public final class FixedJWT: JWTInterface {
    public let token: String?
    public init(_ token: String?) { self.token = token }
    public func getToken() -> String? { token }
}

/// What a test needs of one SDK event, copied on the main queue so it can cross tasks.
public struct SeenEvent: Sendable {
    /// Its place in the log: wait for later ones with `after: event.index + 1`.
    public internal(set) var index = 0
    public let module: String
    public let name: String
    public let function: String
    public let isError: Bool
    public let isRetry: Bool
    /// The keys of the event's value, e.g. `["http_code", "error", "error_text", "profile"]`.
    public let valueKeys: Set<String>
    public let httpCode: Int?
    /// The value's `error` (the server's error code).
    public let error: Int?
    public let errorText: String?
    public let reason: String?
    public let field: String?
    public let count: Int?
    public let profile: ProfileData?
    /// The campaign ids of the value's `placements` (`inAppPlacementsRequestSuccessful`).
    public let placements: [String]?

    public init(_ event: Event) {
        module = event.event?.module ?? ""
        name = event.event?.name ?? ""
        function = event.function
        isError = event is ErrorEvent
        isRetry = event is RetryEvent
        let value = event.value ?? [:]
        valueKeys = Set(value.keys)
        httpCode = value["http_code"] as? Int
        error = value["error"] as? Int
        errorText = value["error_text"] as? String
        reason = value["reason"] as? String
        field = value["field"] as? String
        count = value["count"] as? Int
        profile = value["profile"] as? ProfileData
        placements = (value["placements"] as? [InAppPlacement])?.map(\.campaignId)
    }
}

/// Passes requests to a transport and says on standard error when one took more than five seconds
/// or got no answer: a request that hangs in a loaded run is sent again and the test passes, so
/// this line is how such a hang shows.
struct SlowRequestReporter: HTTPTransport {
    let transport: any HTTPTransport

    init(_ transport: any HTTPTransport) {
        self.transport = transport
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let started = Date()
        do {
            let response = try await transport.send(request)
            report(request, started, "HTTP \(response.status)")
            return response
        } catch {
            report(request, started, "\(error)")
            throw error
        }
    }

    private func report(_ request: TransportRequest, _ started: Date, _ outcome: String) {
        let seconds = Date().timeIntervalSince(started)
        guard seconds > 5 else { return }
        FileHandle.standardError.write(
            Data("TestSDK: \(request.url.path) took \(String(format: "%.1f", seconds)) s: \(outcome)\n".utf8))
    }
}

/// `call`'s answer, or nil when it has not answered within `seconds`: a call that never answers
/// fails its test instead of hanging the run (its task is left behind).
public func answer<T: Sendable>(within seconds: TimeInterval, _ call: @escaping @Sendable () async -> T) async -> T? {
    let (answers, answered) = AsyncStream.makeStream(of: T.self, bufferingPolicy: .bufferingOldest(1))
    Task { answered.yield(await call()) }
    let timer = Task {
        try? await Task.sleep(for: .seconds(seconds))
        answered.finish()
    }
    defer { timer.cancel() }
    for await value in answers { return value }
    return nil
}
