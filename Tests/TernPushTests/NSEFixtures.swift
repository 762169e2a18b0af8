import Foundation
import TernHTTP
import TernProtocol
import TernPush

/// A real HTTP server on loopback serving fixed routes, counting requests, optionally holding a
/// route's answer until the test lets it go.
final class MediaServer: Sendable {
    struct Route: Sendable {
        var status = 200
        var headers: [(String, String)] = []
        var body = Data()
        var held = false
    }

    let server: HTTPServer
    let log: RequestLog

    init(_ routes: [String: Route]) throws {
        let log = RequestLog()
        self.log = log
        server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0),
            handler: HTTPHandlerFunction { request in
                await log.arrived(request.path)
                guard let route = routes[request.path] else { return .text(404, "no such file") }
                if route.held { await log.waitForRelease() }
                return HTTPResponse(status: route.status, headers: route.headers, body: route.body)
            })
        try server.start()
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }

    func stop() { server.stop() }
}

/// What the server saw, and the gate held routes wait on.
actor RequestLog {
    private(set) var paths: [String] = []
    private var arrivalWaiters: [CheckedContinuation<Void, Never>] = []
    private var releaseWaiters: [CheckedContinuation<Void, Never>] = []
    private var released = false

    func arrived(_ path: String) {
        paths.append(path)
        for waiter in arrivalWaiters { waiter.resume() }
        arrivalWaiters = []
    }

    /// Returns once at least one request has arrived.
    func firstArrival() async {
        guard paths.isEmpty else { return }
        await withCheckedContinuation { arrivalWaiters.append($0) }
    }

    func waitForRelease() async {
        guard !released else { return }
        await withCheckedContinuation { releaseWaiters.append($0) }
    }

    func release() {
        released = true
        for waiter in releaseWaiters { waiter.resume() }
        releaseWaiters = []
    }
}

/// Records delivery reports (the core's outbox implements the port in the app).
actor RecordingDelivery: DeliveryReporting {
    private(set) var messageIds: [String] = []
    let hangs: Bool
    /// The hanging reports' continuations, kept (never resumed) so the runtime does not call them leaked.
    private var stuck: [CheckedContinuation<Void, Never>] = []

    init(hangs: Bool = false) { self.hangs = hangs }

    func reportDelivery(messageId: String) async {
        messageIds.append(messageId)
        if hangs {
            // Like a report stuck on a dead network: it ignores cancellation on purpose.
            await withCheckedContinuation { stuck.append($0) }
        }
    }
}

/// Records the push events the SDK would raise.
actor RecordingIssues: PushIssueReporting {
    private(set) var issues: [PushIssue] = []

    func report(_ issue: PushIssue, function: String) async {
        issues.append(issue)
    }

    var kinds: [PushIssue.Kind] { issues.map(\.kind) }
}

/// The notification center's category set (UNUserNotificationCenter cannot run on Linux).
actor InMemoryCategoryStore: NotificationCategoryStore {
    private(set) var appCategories: [NotificationCategory]
    private(set) var tern: [NotificationCategory] = []
    var delivered: Set<String> = []

    init(appCategories: [NotificationCategory] = []) {
        self.appCategories = appCategories
    }

    func ternCategories() async -> [NotificationCategory] { tern }

    func replaceTernCategories(with categories: [NotificationCategory]) async {
        tern = categories
    }

    func deliveredCategoryIdentifiers() async -> Set<String> { delivered }

    func setDelivered(_ identifiers: Set<String>) { delivered = identifiers }

    func category(_ identifier: String) -> NotificationCategory? {
        (appCategories + tern).first { $0.identifier == identifier }
    }
}

/// Counts content-handler calls.
actor HandlerCalls {
    private(set) var results: [NotificationServiceResult] = []
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func record(_ result: NotificationServiceResult) {
        results.append(result)
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    func first() async -> NotificationServiceResult {
        if let first = results.first { return first }
        await withCheckedContinuation { waiters.append($0) }
        return results[0]
    }
}
