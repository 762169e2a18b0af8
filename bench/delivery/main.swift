import Foundation
import TernProtocol
import TernServer

// tern-bench-delivery: the sending engine's own cost, without a network. N subscribed devices in a
// real SQLite file (or a PostgreSQL database); one message to the whole resource; the engine fans it
// out, claims batches under a lease, hands them to a sender that accepts everything at once, and
// records every outcome. Prints deliveries per second for the fan-out and for claim → send →
// record, and peak memory.
//
//   swift run -c release tern-bench-delivery [devices] [batch] [concurrency]
//   tern-bench-delivery --database postgresql://… [devices] …     the same on an empty PostgreSQL
//   tern-bench-delivery --database URL --seed RESOURCE [devices]  only subscribes N devices to an
//       existing resource (of a `tern serve`'s database) through the store, and exits: the fan-out
//       bench (bench/fanout/run.sh) seeds its 100,000 devices this way, the API would take minutes

/// Accepts every push at once: what is left is the engine's and the store's work.
struct AcceptingSender: PushSender {
    let provider = PushProvider.apns
    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        var outcomes: [Int64: DeliveryOutcome] = [:]
        outcomes.reserveCapacity(pushes.count)
        for push in pushes where !push.payload.isEmpty { outcomes[push.deliveryId] = .sent(providerMessageId: nil) }
        return outcomes
    }
}

func peakMemoryMB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes / 1024
}

/// The process's CPU time so far (user and system), in seconds: steadier than the rate on a shared,
/// noisy machine.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Subscribes `count` devices (one profile each, tokens made from the resource's id and the index) to
/// `resource`, 10,000 per transaction, as push/subscribe stores them.
func seed(_ store: any Store, resource: Resource, count: Int) async throws {
    for chunk in stride(from: 0, to: count, by: 10_000) {
        try await store.write { tx in
            for index in chunk..<min(count, chunk + 10_000) {
                let profile = try tx.createProfile(
                    dbId: resource.dbId, publicId: "bench-r\(resource.id)-p\(index)", now: 1)
                let token = String(format: "%032llx%032llx", resource.id, index)
                _ = try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: profile.id, resourceId: resource.id, channel: .push, provider: .apns,
                        token: token, status: .subscribed, hashId: String(index), fields: ["_os": "IOS"],
                        clientTime: 1), now: 1)
            }
        }
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(index...(index + 1)) }
    return arguments[index + 1]
}
let databaseURL = option("--database")
let seedResource = option("--seed").flatMap { Int64($0) }
let numbers = arguments.compactMap { Int($0) }
let devices = numbers.first ?? 100_000
var options = DeliveryEngine.Options()
if numbers.count > 1 { options.batchSize = numbers[1] }
if numbers.count > 2 { options.concurrency = numbers[2] }

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-bench-delivery-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let store: any Store =
    if let databaseURL {
        try PostgresStore(url: databaseURL)
    } else {
        try SQLiteStore(path: directory.appendingPathComponent("tern.sqlite").path)
    }
let backend = databaseURL == nil ? "SQLite" : "PostgreSQL"

if let seedResource {
    guard let resource = try await store.read({ try $0.resource(id: seedResource) }) else {
        print("tern-bench-delivery: no resource \(seedResource) in the database")
        try? FileManager.default.removeItem(at: directory)
        exit(1)
    }
    let seedStart = ContinuousClock.now
    try await seed(store, resource: resource, count: devices)
    print(
        "seeded \(devices) subscribed devices into resource \(resource.id) (\(backend)) in "
            + "\(String(format: "%.1f", seconds(since: seedStart))) s")
    await store.close()
    try? FileManager.default.removeItem(at: directory)
    exit(0)
}

let resource = try await store.write { tx in
    let project = try tx.createProject(name: "bench", audience: nil, now: 1)
    let database = try tx.createDatabase(projectId: project.id, name: "main", now: 1)
    return try tx.createResource(
        projectId: project.id, dbId: database.id, name: "push", channels: [.push], rToken: "rt_bench", now: 1)
}
let resourceId = resource.id
let seedStart = ContinuousClock.now
try await seed(store, resource: resource, count: devices)
print("seeded \(devices) subscribed devices (\(backend)) in \(String(format: "%.1f", seconds(since: seedStart))) s")

let engine = DeliveryEngine(
    store: store, senders: SenderRegistry([AcceptingSender()]), metrics: Metrics(),
    logger: Logger(minimum: .error, sink: { _ in }), options: options)
let messages = MessageService(store: store, fanOut: options.fanOut, queued: { engine.wake() })
let request = try JSONDecoder().decode(
    MessageRequest.self,
    from: Data(
        #"{"title":"Sale","body":"30% off today","media_url":"https://cdn.example.com/a.jpg","data":{"order":"A-1"},"audience":{"type":"resource","resource_id":\#(resourceId)}}"#
            .utf8))

// Each look reads the message's counts (a few rows); on PostgreSQL it looks less often, as before
// the counts were kept, so that runs compare with the older figures.
let poll: Duration = databaseURL == nil ? .milliseconds(20) : .seconds(1)
let start = ContinuousClock.now
let cpuStart = cpuSeconds()
let created = try await messages.create(request)
await engine.start()
var stats = try await messages.stats(publicId: created.id)
var fanOutSeconds: Double?
while !stats.done {
    try await Task.sleep(for: poll)
    if fanOutSeconds == nil, try await messages.message(publicId: created.id).fanOutDone {
        fanOutSeconds = seconds(since: start)
    }
    stats = try await messages.stats(publicId: created.id)
}
let total = seconds(since: start)
let cpu = cpuSeconds() - cpuStart
await engine.stop()
print(
    "message to \(stats.targeted) devices: fan-out done after \(String(format: "%.2f", fanOutSeconds ?? total)) s, "
        + "all \(stats.sent) sent and recorded after \(String(format: "%.2f", total)) s (looked every \(poll))")
print(
    "engine (\(backend)): "
        + String(
            format: "%.0f deliveries/s end to end (batch %d, %d in flight), %.1f µs of CPU per delivery, "
                + "peak memory %.0f MB",
            Double(stats.sent) / total, options.batchSize, options.concurrency, 1e6 * cpu / Double(max(stats.sent, 1)),
            peakMemoryMB()))
await store.close()
