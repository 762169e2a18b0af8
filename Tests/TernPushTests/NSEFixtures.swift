import Foundation
import TernHTTP
import TernProtocol
import TernPush

/// Real PNG files, made here so the tests need no binary fixtures.
enum PNGFixture {
    /// A `width`×`height` RGB image of noise, stored uncompressed (so its size is predictable).
    static func make(width: Int, height: Int, seed: UInt8 = 1) -> Data {
        var raw = [UInt8]()
        raw.reserveCapacity((width * 3 + 1) * height)
        var value = seed
        for _ in 0..<height {
            raw.append(0)  // filter: none
            for _ in 0..<(width * 3) {
                value = value &* 31 &+ 7
                raw.append(value)
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
        png += chunk("IHDR", header) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
        return Data(png)
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
    }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let last: UInt8 = offset + count == data.count ? 1 : 0
            out += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<offset + count]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

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

    init(hangs: Bool = false) { self.hangs = hangs }

    func reportDelivery(messageId: String) async {
        messageIds.append(messageId)
        if hangs {
            // Like a report stuck on a dead network: it ignores cancellation on purpose.
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
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
