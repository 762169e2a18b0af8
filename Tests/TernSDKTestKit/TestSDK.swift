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
    /// Every event of this SDK (a test that subscribes its own ``EventRecorder`` replaces it).
    public let events: EventLog

    /// An SDK in `directory` (a new temporary one when nil: pass another SDK's to restart on its
    /// database), with `retryPolicy`, and `transport` / `lifecycle` instead of the defaults when given;
    /// `sessionTimeout`: seconds away after which a foreground starts a new session.
    public init(
        directory: TemporaryDirectory? = nil, retryPolicy: RetryPolicy = .fast, transport: (any HTTPTransport)? = nil,
        moduleInitTimeout: TimeInterval = 10, lifecycle: (any AppLifecycle)? = ManualAppLifecycle(),
        sessionTimeout: TimeInterval = 1800
    ) throws {
        let directory = try directory ?? TemporaryDirectory(prefix: "tern-sdk")
        self.directory = directory
        var environment = TernEnvironment.directory(
            directory.url, deviceInfo: HostDeviceInfo(model: "iPhone14,7", name: "iPhone", osVersion: "18.6.2"))
        environment.retryPolicy = retryPolicy
        environment.moduleInitTimeout = moduleInitTimeout
        environment.sessionTimeout = sessionTimeout
        if let lifecycle { environment.lifecycle = lifecycle }
        environment.random = { 0.5 }
        if let transport { environment.transport = transport }
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
    }
}

/// Every SDK event of one SDK, in the order the subscriber got them; tests wait for the one they need:
/// the first one of a kind (``first(_:timeout:)``), or the next one after the last returned
/// (``next(_:timeout:)``). Events are kept, so a wait that timed out leaves later ones to the next wait.
public final class EventLog: Sendable {
    private struct Waiter {
        let id: UUID
        let after: Int
        let matches: @Sendable (SeenEvent) -> Bool
        let continuation: CheckedContinuation<SeenEvent?, Never>
    }

    private struct State {
        var seen: [SeenEvent] = []
        var waiters: [Waiter] = []
        /// Where ``next(_:timeout:)`` looks from: after the last event it returned.
        var cursor = 0
    }

    private let state = Mutex(State())

    public init(_ tern: Tern) {
        tern.eventSDKFunctions.subscribe { [weak self] event in self?.record(SeenEvent(event)) }
    }

    private func record(_ event: SeenEvent) {
        var event = event
        let ready = state.withLock { state in
            event.index = state.seen.count
            state.seen.append(event)
            let index = event.index
            let ready = state.waiters.filter { index >= $0.after && $0.matches(event) }
            state.waiters.removeAll { index >= $0.after && $0.matches(event) }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: event) }
    }

    /// Every event so far.
    public var all: [SeenEvent] { state.withLock { $0.seen } }

    /// How many events were seen so far: pass it as `after` to wait only for later ones.
    public var count: Int { state.withLock { $0.seen.count } }

    /// Every event's name so far, in order (for failure messages).
    public var names: [String] { state.withLock { $0.seen.map(\.name) } }

    /// The next event named `name` after the last one this returned (already seen or still to come),
    /// nil after `timeout` seconds.
    public func next(_ name: String, timeout: TimeInterval = 30) async -> SeenEvent? {
        let after = state.withLock { $0.cursor }
        guard let found = await first(where: { $0.name == name }, after: after, timeout: timeout) else { return nil }
        state.withLock { $0.cursor = max($0.cursor, found.index + 1) }
        return found
    }

    /// The first event named `name` (already seen or still to come), nil after `timeout` seconds.
    public func first(_ name: String, timeout: TimeInterval = 30) async -> SeenEvent? {
        await first(where: { $0.name == name }, timeout: timeout)
    }

    /// The first event from index `after` on (see ``count``) that `matches`, nil after `timeout` seconds.
    public func first(
        where matches: @escaping @Sendable (SeenEvent) -> Bool, after: Int = 0, timeout: TimeInterval = 30
    ) async -> SeenEvent? {
        let id = UUID()
        let expiry = Task { [weak self] in
            try? await Task.sleep(for: .seconds(timeout))
            self?.expire(id)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { continuation in
            let found: SeenEvent?? = state.withLock { state in
                if let found = state.seen.dropFirst(after).first(where: matches) { return .some(found) }
                state.waiters.append(Waiter(id: id, after: after, matches: matches, continuation: continuation))
                return .none
            }
            if case .some(let found) = found { continuation.resume(returning: found) }
        }
    }

    private func expire(_ id: UUID) {
        let expired = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: nil)
    }
}
