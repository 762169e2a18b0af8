import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// A `$field_set` message starts on the backend's writes (`POST …/databases/{db_id}/profiles/update`)
/// as on the SDK's: a field given the message's value starts the person's wait, which sends after
/// the delay; `skip_triggers` holds the person back, as it does on `profile/update`.
@Suite struct BackendFieldTriggerTests {
    @Test(arguments: StoreFactory.all)
    func aBackendUpdateStartsTheWaitAndSkipTriggersHoldsItBack(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        let id = try await FieldTriggerTests.message(harness, field: "order_status", value: "shipped")
        let dbId = try await JWTAuthTests.databaseId(harness.server)

        // bo's entry skips triggers, and another value starts nothing.
        let reply = try await BackendProfileUpdateTests.update(
            harness.server, dbId: dbId,
            [
                ["matching": ["email": "ana@example.com"], "profile_fields": ["order_status": "shipped"]],
                [
                    "matching": ["email": "bo@example.com"], "profile_fields": ["order_status": "shipped"],
                    "skip_triggers": true,
                ],
                [
                    "matching": ["email": "cy@example.com"], "profile_fields": ["order_status": "packed"],
                    "create": true,
                ],
            ])
        let results = try BackendProfileUpdateTests.results(reply)
        #expect(results.map { $0["result"] as? String } == ["updated", "updated", "created"])
        let waits = try await WelcomeTriggerTests.waits(harness)
        #expect(waits.count == 1, "\(waits)")
        let profileId = try await harness.server.store.read { try $0.profile(publicId: ana.profileId)?.id }
        #expect(waits.first?.profileId == profileId)

        #expect(try await runner.pass() == 0, "not before the delay")
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token])
        #expect(try await harness.stats(id).int("sent") == 1)
        // skip_triggers is the profile's flag, as profile/update sets it.
        #expect(try await harness.server.store.read { try $0.profile(publicId: bo.profileId)?.skipTriggers } == true)
    }

    /// A backfill (`start_triggers: false`) writes the values and starts no wait, without touching
    /// the profile's own `skip_triggers` flag; the same write without it then starts nothing either
    /// (the value is the one the field holds), while a new value does.
    @Test(arguments: StoreFactory.all)
    func aBackfillWritesTheValuesAndStartsNoWait(factory: StoreFactory) async throws {
        let (harness, _) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let ana = try await TriggerTests.person(harness, signer, "ana")
        _ = try await FieldTriggerTests.message(harness, field: "tier", value: nil)
        let dbId = try await JWTAuthTests.databaseId(harness.server)
        func write(_ tier: String, startTriggers: Bool?) async throws -> [String?] {
            var request: [String: Any] = [
                "profiles": [["matching": ["email": "ana@example.com"], "profile_fields": ["tier": tier]]]
            ]
            if let startTriggers { request["start_triggers"] = startTriggers }
            let body = try JSONSerialization.data(withJSONObject: request, options: [.sortedKeys])
            let reply = await BackendProfileUpdateTests.raw(harness.server, dbId: dbId, body)
            return try BackendProfileUpdateTests.results(reply).map { $0["result"] as? String }
        }

        #expect(try await write("gold", startTriggers: false) == ["updated"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty, "a backfill starts no wait")
        let profile = try await harness.server.store.read { try $0.profile(publicId: ana.profileId) }
        #expect(profile?.skipTriggers == false, "nor changes the profile's own flag")
        #expect(
            try await harness.server.store.read { try $0.profileFields(profileId: profile?.id ?? 0) }["tier"] == "gold")

        #expect(try await write("gold", startTriggers: nil) == ["unchanged"])
        #expect(try await WelcomeTriggerTests.waits(harness).isEmpty)
        #expect(try await write("platinum", startTriggers: true) == ["updated"])
        #expect(try await WelcomeTriggerTests.waits(harness).count == 1, "a new value starts it")
    }
}
