import Foundation
import TernProtocol
import TernServer

// tern-bench-segments: segment previews and segment fan-out on a real SQLite file. Seeds N push
// subscriptions (default 1,000,000) with the built-in fields the SDK reports (sessions, app
// version, last session, language) and tags on a third of them, plus a second resource of 100,000
// plain subscriptions. Prints, in one run: preview latency (count, and a sample of 20) for a few
// segments, the median of 5 runs each; then the fan-out time of a segment matching about 100,000
// subscriptions beside the fan-out of a plain resource audience of 100,000.
//
//   swift run -c release tern-bench-segments [subscriptions]
//   tern-bench-segments --database postgresql://… [subscriptions]   the same on an empty PostgreSQL

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func milliseconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return seconds(since: start) * 1000
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// The process's CPU time in ms (the store's queries run on its own threads): beside the wall
/// time, it tells the work from the wait for cores other builds hold.
func cpuMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
}

/// Wall and CPU ms of `body`.
func measured(_ body: () async throws -> Void) async rethrows -> (wall: Double, cpu: Double) {
    let cpu = cpuMilliseconds()
    let wall = try await milliseconds(body)
    return (wall, cpuMilliseconds() - cpu)
}

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(index...(index + 1)) }
    return arguments[index + 1]
}
let databaseURL = option("--database")
let total = arguments.compactMap { Int($0) }.first ?? 1_000_000
let plain = 100_000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-bench-segments-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
// TERN_BENCH_KEEP=1 keeps the SQLite database (its path is printed) for EXPLAIN QUERY PLAN afterwards.
let keep = ProcessInfo.processInfo.environment["TERN_BENCH_KEEP"] == "1" && databaseURL == nil
defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
let store: any Store =
    if let databaseURL {
        try PostgresStore(url: databaseURL)
    } else {
        try SQLiteStore(path: directory.appendingPathComponent("tern.sqlite").path)
    }
let backend = databaseURL == nil ? "SQLite" : "PostgreSQL"
// The CPU time is this process's: on PostgreSQL the queries' own work is the server's, not in it.
let now = ServerClock.milliseconds()
let day: Int64 = 86_400_000

let (projectId, segmented, plainResource) = try await store.write { tx in
    let project = try tx.createProject(name: "bench", audience: nil, now: 1)
    let database = try tx.createDatabase(projectId: project.id, name: "main", now: 1)
    let a = try tx.createResource(
        projectId: project.id, dbId: database.id, name: "app", channels: [.push], rToken: "rt_bench_a", now: 1)
    let b = try tx.createResource(
        projectId: project.id, dbId: database.id, name: "plain", channels: [.push], rToken: "rt_bench_b", now: 1)
    return (project.id, a.id, b.id)
}

let versions = ["1.8", "1.9.2", "2.0", "2.0.1", "2.1", "2.9", "2.10", "3.0", "10.0"]
let languages = ["en", "fr", "de", "es", "ja"]
let interests = ["travel", "food", "sport"]
let seedStart = ContinuousClock.now
for (resource, count, offset, builtIns) in [(segmented, total, 0, true), (plainResource, plain, total, false)] {
    for chunk in stride(from: 0, to: count, by: 10_000) {
        try await store.write { tx in
            for index in chunk..<min(count, chunk + 10_000) {
                let n = offset + index
                let profile = try tx.createProfile(dbId: 1, publicId: "p\(n)", now: 1)
                var fields: [String: JSONValue] = ["_os": "IOS"]
                if builtIns {
                    // A spread the filters below cut at known shares: sessions 0…19, nine versions,
                    // last sessions over 60 days, five languages.
                    fields[BuiltInField.sessionCount.key] = .int(Int64(n % 20))
                    fields[BuiltInField.appVersion.key] = .string(versions[(n / 20) % versions.count])
                    fields[BuiltInField.lastSession.key] = .int(now - Int64((n * 7919) % 60) * day)
                    fields[BuiltInField.firstSession.key] = .int(now - 90 * day)
                    fields[BuiltInField.foregroundTime.key] = .int(Int64((n * 31) % 7200))
                    fields[BuiltInField.language.key] = .string(languages[(n / 3) % languages.count])
                }
                let subscription = try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: profile.id, resourceId: resource, channel: .push, provider: .apns,
                        token: String(format: "%064x", n), status: .subscribed, hashId: String(n), fields: fields,
                        clientTime: 1), now: 1)
                if builtIns, n % 3 == 0 {
                    try tx.setTags(subscriptionId: subscription.id, ["interest": interests[(n / 3) % 3]], now: 1)
                }
            }
        }
    }
}
print(
    "seeded \(total) subscriptions with built-in fields (a third tagged) and \(plain) plain ones (\(backend)) in "
        + String(format: "%.1f s", seconds(since: seedStart)))

func filter(_ text: String) throws -> AudienceExpression {
    try AudienceExpression.parse(FilterText.parse(text))
}

let segments: [(String, String)] = [
    ("sessions ≥ 3 and version ≥ 2.0", "session_count >= 3 and app_version >= 2.0"),
    ("tag interest = travel", "tags.interest = travel"),
    ("last 7 days and language en", "last_session within 7 days and language = en"),
    ("18+ sessions (the fan-out's)", "session_count >= 18"),
    (
        "nested: (travel or food) and version > 2.9 and sessions < 5",
        "(tags.interest = travel or tags.interest = food) and app_version > 2.9 and session_count < 5"
    ),
]
let scope = AudienceScope(projectId: projectId, resourceId: segmented)
print(
    "\npreview on \(total) subscriptions, \(backend) (median of 5; count, then a sample of 20 with profiles and tags; wall ms, CPU ms):"
)
print(
    "segment".padding(toLength: 62, withPad: " ", startingAt: 0)
        + "matches     count ms (cpu)   sample ms (cpu)")
let service = SegmentService(store: store)
for (label, text) in segments {
    let expression = try filter(text)
    var counts: [(wall: Double, cpu: Double)] = []
    var samples: [(wall: Double, cpu: Double)] = []
    var matched: Int64 = 0
    for _ in 0..<5 {
        counts.append(
            try await measured {
                matched = try await store.read { try $0.audienceCount(scope, filter: expression, now: now) }
            })
        samples.append(
            try await measured {
                _ = try await store.read { tx in
                    try tx.audienceSample(scope, filter: expression, now: now, limit: 20).map {
                        (try tx.profile(id: $0.profileId), try tx.tags(subscriptionId: $0.id))
                    }
                }
            })
    }
    let preview = try await service.preview(
        AudiencePreviewRequest(projectId: projectId, resourceId: segmented, filter: try FilterText.parse(text)))
    precondition(preview.count == matched, "the service and the store disagree")
    print(
        label.padding(toLength: 62, withPad: " ", startingAt: 0)
            + String(matched).padding(toLength: 12, withPad: " ", startingAt: 0)
            + String(
                format: "%8.1f (%5.1f)  %9.1f (%5.1f)", median(counts.map(\.wall)), median(counts.map(\.cpu)),
                median(samples.map(\.wall)), median(samples.map(\.cpu))))
}

/// Fans a message out to completion (no sending), chunk by chunk as the engine does; seconds and
/// deliveries written.
func fanOut(_ audience: String) async throws -> (Double, Int64) {
    let messages = MessageService(store: store)
    let request = try JSONDecoder().decode(
        MessageRequest.self, from: Data(#"{"title":"Sale","body":"30% off","audience":\#(audience)}"#.utf8))
    let start = ContinuousClock.now
    let view = try await messages.create(request)
    let fan = FanOut()
    while true {
        let done = try await store.write { tx -> Bool in
            guard let message = try tx.message(publicId: view.id) else { return true }
            if message.fanOutDone { return true }
            try fan.step(tx, message: message, now: ServerClock.milliseconds())
            return false
        }
        if done { break }
    }
    let elapsed = seconds(since: start)
    let total = try await store.read { try $0.message(publicId: view.id)?.total ?? 0 }
    return (elapsed, total)
}

let segment = try await service.create(
    SegmentSpec(
        projectId: projectId, name: "18+ sessions", resourceId: segmented,
        filter: try FilterText.parse("session_count >= 18")))
let (segmentSeconds, segmentTotal) = try await fanOut(#"{"type":"segment","segment_id":\#(segment.id)}"#)
let previewed = try await service.preview(id: segment.id, sample: 0).count
precondition(previewed == segmentTotal, "the preview counts \(previewed), the send reached \(segmentTotal)")
let (plainSeconds, plainTotal) = try await fanOut(#"{"type":"resource","resource_id":\#(plainResource)}"#)
// The segment's again, after the plain one: the first fan-out of the run also shares the disk with
// the checkpoint of the seeding's write-ahead log.
let (againSeconds, againTotal) = try await fanOut(#"{"type":"segment","segment_id":\#(segment.id)}"#)
print("\nfan-out, \(backend) (deliveries written, chunks of \(FanOut().chunkSize), no sending):")
print(
    String(
        format: "segment \"session_count >= 18\" of %d: %lld deliveries in %.2f s (%.0f/s)", total, segmentTotal,
        segmentSeconds, Double(segmentTotal) / segmentSeconds))
print(
    String(
        format: "plain resource audience:            %lld deliveries in %.2f s (%.0f/s)", plainTotal, plainSeconds,
        Double(plainTotal) / plainSeconds))
print(
    String(
        format: "segment again, after the plain one:  %lld deliveries in %.2f s (%.0f/s)", againTotal, againSeconds,
        Double(againTotal) / againSeconds))
await store.close()
if keep { print("kept \(directory.path)") }
