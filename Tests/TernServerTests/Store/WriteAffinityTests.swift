import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Write affinity: the SDK's writes name the device or person they change, and on PostgreSQL the
/// writes that name the same one share one connection's batches instead of waiting on each other's
/// row locks from two transactions.
@Suite struct WriteAffinityTests {
    /// A store that notes each write's affinity (nil for a write without one) and runs it on `base`.
    actor RecordingStore: Store {
        let base: any Store
        private(set) var affinities: [String?] = []

        init(_ base: any Store) { self.base = base }

        nonisolated var webhookDirectory: WebhookDirectory { base.webhookDirectory }
        nonisolated var triggerDirectory: TriggerDirectory { base.triggerDirectory }

        func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
            affinities.append(nil)
            return try await base.write(body)
        }

        func write<T: Sendable>(
            affinity: String, _ body: @escaping @Sendable (any StoreTransaction) throws -> T
        ) async throws -> T {
            affinities.append(affinity)
            return try await base.write(affinity: affinity, body)
        }

        func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> T) async throws -> T {
            try await base.read(body)
        }

        func isHealthy() async -> Bool { await base.isHealthy() }
        func close() async { await base.close() }
    }

    static func idempotency(_ caller: Caller, key: String) throws -> IdempotencyToken {
        try IdempotencyToken(
            projectId: caller.project.id, caller: IdempotencyToken.callerScope(caller), key: key, endpoint: "test",
            body: Data(key.utf8))
    }

    @Test func aDevicesWritesNameItsTokenAndAPersonsWritesTheirIdentity() async throws {
        let fixture = try await StoreFixture(.sqlite)
        defer { Task { await fixture.finish() } }
        let device = Caller(
            project: fixture.project, resource: fixture.resource, database: fixture.database, identity: nil)
        #expect(device.writeAffinity(token: "tok-1") == "token\u{0}tok-1")
        #expect(device.writeAffinity(token: "tok-2") != device.writeAffinity(token: "tok-1"))
        #expect(device.writeAffinity(token: nil) == nil, "an rToken and no token name nothing to share")
        let person = Caller(
            project: fixture.project, resource: fixture.resource, database: fixture.database,
            identity: .email("ada@example.com"))
        #expect(person.writeAffinity(token: "tok-1") == IdempotencyToken.callerScope(person))
        #expect(person.writeAffinity(token: "tok-2") == person.writeAffinity(token: nil), "every device of theirs")
    }

    @Test func theSDKsSubscriptionProfileAndTagWritesCarryTheirAffinity() async throws {
        let fixture = try await StoreFixture(.sqlite)
        defer { Task { await fixture.finish() } }
        let store = RecordingStore(fixture.store)
        let device = Caller(
            project: fixture.project, resource: fixture.resource, database: fixture.database, identity: nil)
        let subscriptions = SubscriptionService(store: store)
        _ = try await subscriptions.change(
            PushSubscriptionRequest(time: 1, provider: "ios-apns", subscriptionId: "tok-a"), to: .subscribed,
            caller: device, idempotency: try Self.idempotency(device, key: "k1"))
        _ = try await subscriptions.update(
            PushUpdateRequest(
                oldProvider: "ios-apns", oldSubscriptionId: "tok-a", provider: "ios-apns", subscriptionId: "tok-b"),
            caller: device, idempotency: try Self.idempotency(device, key: "k2"))
        _ = try await TagService(store: store).set(
            TagsSetRequest(provider: "ios-apns", subscriptionId: "tok-b", tags: ["plan": "pro"]), caller: device,
            idempotency: try Self.idempotency(device, key: "k3"))
        let person = Caller(
            project: fixture.project, resource: fixture.resource, database: fixture.database,
            identity: .email("ada@example.com"))
        _ = try await ProfileService(store: store).update(
            ProfileUpdateRequest(profileFields: ["_fname": .string("Ada")]), caller: person,
            idempotency: try Self.idempotency(person, key: "k4"))
        #expect(
            await store.affinities == [
                "token\u{0}tok-a", "token\u{0}tok-a", "token\u{0}tok-b", IdempotencyToken.callerScope(person),
            ])
    }

    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func onPostgreSQLWritesOfOneAffinityAtOnceShareOneConnectionAndOthersSpread() async throws {
        let store = try PostgresStore(url: try PostgresTestDatabase.freshSchemaURL(), poolSize: 4)
        defer { Task { await store.close() } }
        /// The write's connection (its server process), after holding its batch for `pause` seconds,
        /// so that the writes sent with it arrive while it is still running.
        @Sendable func backend(_ tx: any StoreTransaction, pause: TimeInterval) throws -> Int64 {
            let connection = try #require(tx as? PostgresTransaction).database
            Thread.sleep(forTimeInterval: pause)
            return try #require(try connection.queryFirst("SELECT CAST(pg_backend_pid() AS BIGINT)")?.int(0))
        }
        // One device's writes, all at once, behind a slow first: the least busy connection would
        // have spread them over the idle three.
        let one = try await withThrowingTaskGroup(of: Int64.self) { group in
            group.addTask { try await store.write(affinity: "token\u{0}device-1") { try backend($0, pause: 1) } }
            while await store.affinitiesInFlight == 0 { try await Task.sleep(for: .milliseconds(5)) }
            for _ in 0..<16 {
                group.addTask { try await store.write(affinity: "token\u{0}device-1") { try backend($0, pause: 0) } }
            }
            return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
        }
        #expect(one.count == 1, "\(one)")
        // Sixteen devices' writes at once: spread over the pool as any writes are (four connections
        // when they arrive within one write's pause, as they do here; the test asks for two or more).
        let many = try await withThrowingTaskGroup(of: Int64.self) { group in
            for device in 0..<16 {
                group.addTask {
                    try await store.write(affinity: "token\u{0}d\(device)") { try backend($0, pause: 0.2) }
                }
            }
            return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
        }
        #expect(many.count > 1, "\(many)")
        // Later writes of the device go wherever the pool is least busy: nothing of it is in flight.
        #expect(await store.affinitiesInFlight == 0)
    }
}
