// tern-bench-sdk: the SDK's outbox, measured (issue 3). Prints, for N events (default 10,000):
//   1. events enqueued per second through the SDK's ordered command queue into the outbox (group
//      commit: rows are written in call order, many per transaction; the time ends when all are on
//      disk), and the process's peak memory; then the same with each call waiting for its own write;
//   2. events drained per second to a local HTTP server on loopback (batches of up to 100);
//   3. the baseline: the same events written one plain SQLite insert per event, no batching.
// Usage: swift run -c release tern-bench-sdk [count]
import Foundation
import TernCore
import TernHTTP
import TernPush
import TernSQLite

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 10_000
let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tern-bench-sdk-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }

func seconds(_ start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// One push event as the outbox stores it.
func entry(_ index: Int) -> OutboxEntry {
    OutboxEntry(
        endpoint: .eventPush, lane: .events,
        body: Data("{\"message_id\":\"bench-\(index)\",\"type\":\"delivery\",\"time\":1700000000000}".utf8),
        meta: OutboxMeta(
            function: "deliveryEvent", success: PushModuleEvents.pushEventRequestSuccessful,
            failure: PushModuleEvents.pushEventRequestFailed))
}

/// Holds every request until opened, so phase 1 measures enqueueing alone and phase 2 drains
/// what phase 1 queued, in the same SDK.
actor Gate {
    private var open = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func pass() async {
        if open { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func openGate() {
        open = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }
}

struct GatedTransport: HTTPTransport {
    let gate: Gate
    let transport = URLSessionTransport()

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        await gate.pass()
        return try await transport.send(request)
    }
}

actor Received {
    var events = 0
    var requests = 0
    func add(_ body: Data) {
        requests += 1
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        events += (object?["events"] as? [Any])?.count ?? 0
    }
}

let received = Received()
let server = try HTTPServer(
    configuration: .init(host: "127.0.0.1", port: 0, threads: 4),
    handler: HTTPHandlerFunction { request in
        await received.add(request.body)
        return .json(200, Data("{\"error\":0,\"error_text\":\"\",\"profile\":null}".utf8))
    })
try server.start()
let gate = Gate()
var environment = TernEnvironment.directory(root)
environment.transport = GatedTransport(gate: gate)
let tern = Tern(environment: environment)
tern.setAppGroup(groupName: "group.bench")
tern.initialization(
    configuration: TernConfiguration.Builder(apiUrl: "http://127.0.0.1:\(server.port)/api/v1").setRToken("rt_bench")
        .build())
await tern.flushQueues()

// 1. Enqueue: every event through the core's ordered command queue into the outbox.
let rssBefore = Memory.residentBytes()
let enqueueStart = ContinuousClock.now
for index in 0..<count {
    let item = entry(index)
    tern.core.perform("deliveryEvent") { ready in await ready.enqueue(item) }
}
await tern.flushQueues()
let enqueueSeconds = seconds(enqueueStart)
let peak = Memory.peakBytes()
let queued = await tern.outboxStatistics()?.enqueuedTotal ?? 0

// 1b. The same, each call waiting until its own row is on disk (one transaction per event).
let waitingRoot = root.appendingPathComponent("waiting", isDirectory: true)
var waitingEnvironment = TernEnvironment.directory(waitingRoot)
waitingEnvironment.transport = GatedTransport(gate: Gate())
let waiting = Tern(environment: waitingEnvironment)
waiting.setAppGroup(groupName: "group.bench")
waiting.initialization(configuration: TernConfiguration.Builder(apiUrl: "http://127.0.0.1:9/api/v1").build())
await waiting.flushQueues()
let waitingStart = ContinuousClock.now
for index in 0..<count {
    let item = entry(index)
    waiting.core.perform("deliveryEvent") { ready in await ready.enqueue([item], waitUntilWritten: true) }
}
await waiting.flushQueues()
let waitingSeconds = seconds(waitingStart)
await waiting.shutdown()

// 2. Drain to the local server.
let drainStart = ContinuousClock.now
await gate.openGate()
let drained = await tern.flush(timeout: 600)
let drainSeconds = seconds(drainStart)
await tern.shutdown()
server.stop()
let (events, requests) = (await received.events, await received.requests)
guard queued == count else {
    FileHandle.standardError.write(Data("bench: expected \(count) queued events, found \(queued)\n".utf8))
    exit(1)
}

// 3. Baseline: one plain INSERT per event (autocommit), same pragmas, same row.
let baselinePath = root.appendingPathComponent("baseline.sqlite").path
let baseline = try SQLiteDatabase(path: baselinePath)
try baseline.execute(
    "CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, endpoint TEXT, body BLOB, idempotency_key TEXT, created_at REAL)"
)
let baselineStart = ContinuousClock.now
for index in 0..<count {
    try baseline.run(
        "INSERT INTO events (endpoint, body, idempotency_key, created_at) VALUES (?, ?, ?, ?)",
        ["event/push", entry(index).body, UUID().uuidString, Date().timeIntervalSince1970])
}
let baselineSeconds = seconds(baselineStart)

func rate(_ n: Int, _ seconds: Double) -> String { String(Int((Double(n) / seconds).rounded())) }
func megabytes(_ bytes: Int?) -> String { bytes.map { String(format: "%.1f MB", Double($0) / 1_048_576) } ?? "n/a" }

print("tern-bench-sdk: \(count) events")
print(
    "enqueue (SDK outbox, group commit, all on disk at the end): \(rate(count, enqueueSeconds)) events/s "
        + "(\(String(format: "%.3f", enqueueSeconds)) s); peak memory \(megabytes(peak)) "
        + "(resident before \(megabytes(rssBefore)))")
print(
    "enqueue (SDK outbox, each call waiting for its own write): \(rate(count, waitingSeconds)) events/s "
        + "(\(String(format: "%.3f", waitingSeconds)) s)")
print(
    "drain to a loopback server: \(rate(events, drainSeconds)) events/s (\(String(format: "%.3f", drainSeconds)) s, "
        + "\(requests) requests, \(events) events, emptied: \(drained))")
print(
    "baseline (one plain SQLite INSERT per event, autocommit): \(rate(count, baselineSeconds)) events/s "
        + "(\(String(format: "%.3f", baselineSeconds)) s)")
exit(drained && events == count ? 0 : 1)
