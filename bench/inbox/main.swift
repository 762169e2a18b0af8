import Foundation
import TernCrypto
import TernHTTP
import TernProtocol
import TernServer

// tern-bench-inbox: issue 13's figures, one run, no network (the server's router over a real SQLite
// file, called in-process as the HTTP server calls it).
//  1. inbox/list requests per second for persons with 250 messages each: first syncs (no cursor,
//     250 messages each answer) and incremental syncs (a cursor, one change since). One answer in
//     16 is decoded and checked; decoding every one would time this program's JSON decoder.
//  2. A send to a resource of N subscriptions (100,000 by default) with a category, fan-out time with
//     preferences set on a tenth of the persons (that tenth turned the category off for push) beside
//     the same send without any preferences.
//
//   swift run -c release tern-bench-inbox [persons] [subscriptions] [seconds] [concurrency]

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let persons = arguments.first ?? 200
let subscriptions = arguments.count > 1 ? arguments[1] : 100_000
let duration = Double(arguments.count > 2 ? arguments[2] : 5)
let concurrency = arguments.count > 3 ? arguments[3] : 8

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-bench-inbox-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

// MARK: 1. Sync

let store = try SQLiteStore(path: directory.appendingPathComponent("tern.sqlite").path)
let metrics = Metrics()
let router = Router(
    routes: TernServerApp.routes(store: store, metrics: metrics, benchRoutes: false), metrics: metrics,
    logger: Logger(minimum: .error, sink: { _ in }))
let (bootstrap, _) = try await Bootstrapper.run(
    store: store, path: directory.appendingPathComponent("bootstrap.json").path, apiURL: "http://bench/api/v1", now: 1)
let secret = Data("bench-secret-0123456789abcdef0123456789abcdef".utf8)
let addKey = await router.handle(
    HTTPRequest(
        method: "POST", path: "/api/v1/admin/projects/\(bootstrap.projectId)/jwt-keys", query: [:],
        headers: ["Authorization": "Bearer \(bootstrap.adminKey)", "Content-Type": "application/json"],
        body: Data(#"{"kid":"bench","algorithm":"HS256","key":"\#(String(decoding: secret, as: UTF8.self))"}"#.utf8)))
guard addKey.status == 201 else { fatalError("adding the JWT key: \(addKey.status)") }

let seedStart = ContinuousClock.now
let now = ServerClock.milliseconds()
let profileIds: [Int64] = try await store.write { tx in
    var ids: [Int64] = []
    for index in 0..<persons {
        let profile = try tx.createProfile(dbId: 1, publicId: "person-\(index)", now: 1)
        ids.append(profile.id)
        for message in 0..<InboxLimits.maxMessages {
            _ = try tx.insertInboxMessage(
                NewInboxMessage(
                    profileId: profile.id, sourceMessageId: nil, title: "Message \(message)",
                    body: "Your order \(message) shipped and arrives on Friday.", imageURL: nil,
                    link: "https://example.com/o/\(message)", data: #"{"order":"A-\#(message)"}"#,
                    expiresAt: now + 90 * 86_400_000),
                keep: InboxLimits.maxMessages, now: now + Int64(message))
        }
    }
    return ids
}
print(
    "seeded \(persons) persons × \(InboxLimits.maxMessages) messages in \(String(format: "%.1f", seconds(since: seedStart))) s"
)

let jwts = try (0..<persons).map { index in
    let claims: [String: Any] = [
        "aud": "tern:\(bootstrap.projectId)", "sub": "bench", "exp": Int(Date().timeIntervalSince1970) + 3600,
        "matching": ["db_id": 1, "profile_id": "person-\(index)"],
    ]
    return try JWT.sign(
        claims: try JSONSerialization.data(withJSONObject: claims), key: .hmac(secret), algorithm: .hs256,
        header: ["kid": "bench"])
}

/// One inbox/list of person `index`: the status, and the answer decoded when `decode` (a device
/// decodes each answer, but that is the client's time: the figures decode one answer in
/// `checkEvery`, enough to see every answer is right, and count the server's work).
@Sendable func list(_ index: Int, cursor: String?, decode: Bool = true) async -> (Int, InboxListAnswer?) {
    let body = try? JSONEncoder().encode(InboxListRequest(cursor: cursor))
    let response = await router.handle(
        HTTPRequest(
            method: "POST", path: Endpoint.inboxList.path, query: [:],
            headers: ["Authorization": "Bearer \(jwts[index])", "Content-Type": "application/json"],
            body: body ?? Data()))
    guard decode else { return (response.status, nil) }
    return (response.status, try? JSONDecoder().decode(InboxListAnswer.self, from: response.body))
}
let checkEvery = 16

/// Requests per second over `duration` with `concurrency` callers, each request made by `request(i)`.
func measure(_ label: String, _ request: @escaping @Sendable (Int) async -> Bool) async -> Double {
    let start = ContinuousClock.now
    let counts = await withTaskGroup(of: (Int, Int).self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var done = 0
                var failed = 0
                var index = worker
                while seconds(since: start) < duration {
                    if await request(index) { done += 1 } else { failed += 1 }
                    index += concurrency
                }
                return (done, failed)
            }
        }
        var total = (0, 0)
        for await (done, failed) in group { total = (total.0 + done, total.1 + failed) }
        return total
    }
    let rate = Double(counts.0) / seconds(since: start)
    print(String(format: "%@: %.0f requests/s (%d answered 200, %d failed)", label, rate, counts.0, counts.1))
    return rate
}

_ = await measure("inbox/list, first sync (250 messages per answer)") { request in
    let check = request % checkEvery == 0
    let (status, answer) = await list(request % persons, cursor: nil, decode: check)
    return status == 200 && (!check || answer?.messages.count == InboxLimits.maxMessages)
}

// Each person's cursor, then one change each (a read), so an incremental sync has one message to say.
var cursors: [String] = []
for index in 0..<persons { cursors.append(await list(index, cursor: nil).1?.cursor ?? "") }
try await store.write { tx in
    for profileId in profileIds {
        let newest = try tx.liveInboxMessages(profileId: profileId, now: now + 1000, limit: 1)
        if let row = newest.first { _ = try tx.markInboxMessageRead(id: row.id, profileId: profileId, now: now + 1000) }
    }
}
let frozenCursors = cursors
_ = await measure("inbox/list, incremental sync (one change since the cursor)") { request in
    let check = request % checkEvery == 0
    let (status, answer) = await list(request % persons, cursor: frozenCursors[request % persons], decode: check)
    return status == 200 && (!check || answer?.messages.count == 1)
}
await store.close()

// MARK: 2. Fan-out with and without preferences

func fanOut(preferences: Bool) async throws -> (seconds: Double, targeted: Int64, skipped: Int64) {
    let path = directory.appendingPathComponent("fanout-\(preferences).sqlite").path
    let store = try SQLiteStore(path: path)
    defer { Task { await store.close() } }
    let resourceId = try await store.write { tx in
        let project = try tx.createProject(name: "bench", audience: nil, now: 1)
        let database = try tx.createDatabase(projectId: project.id, name: "main", now: 1)
        let resource = try tx.createResource(
            projectId: project.id, dbId: database.id, name: "push", channels: [.push], rToken: "rt_bench", now: 1)
        try tx.upsertCategory(ResourceCategory(resourceId: resource.id, name: "marketing", title: "M", steady: false))
        return resource.id
    }
    for chunk in stride(from: 0, to: subscriptions, by: 10_000) {
        try await store.write { tx in
            for index in chunk..<min(subscriptions, chunk + 10_000) {
                let profile = try tx.createProfile(dbId: 1, publicId: "p\(index)", now: 1)
                _ = try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: profile.id, resourceId: resourceId, channel: .push, provider: .apns,
                        token: String(format: "%064x", index), status: .subscribed, hashId: String(index),
                        fields: ["_os": "IOS"], clientTime: 1),
                    now: 1)
                if preferences, index % 10 == 0 {
                    try tx.setPreferences(profileId: profile.id, ["push": ["marketing": false]], now: 1)
                }
            }
        }
    }
    var request = MessageRequest(audience: MessageAudience(type: .resource, resourceId: resourceId))
    request.title = "Sale"
    request.body = "30% off today"
    request.category = "marketing"
    let service = MessageService(store: store)
    let fanOut = FanOut()
    let start = ContinuousClock.now
    let created = try await service.create(request)
    var done = created.fanOutDone
    while !done {
        done = try await store.write { tx in
            guard let message = try tx.message(publicId: created.id) else { return true }
            try fanOut.step(tx, message: message, now: ServerClock.milliseconds())
            return try tx.message(publicId: created.id)?.fanOutDone ?? true
        }
    }
    let elapsed = seconds(since: start)
    let stats = try await service.stats(publicId: created.id)
    return (elapsed, stats.targeted, stats.skippedByPreference)
}

let without = try await fanOut(preferences: false)
let with = try await fanOut(preferences: true)
print(
    String(
        format: "fan-out to %d subscriptions, category marketing: %.2f s without preferences (%lld targeted); "
            + "%.2f s with a tenth turned off (%lld targeted, %lld skipped by preference): %.2f×",
        subscriptions, without.seconds, without.targeted, with.seconds, with.targeted, with.skipped,
        with.seconds / without.seconds))
