import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// A project's broadcast channels, kept the same on every backend: one name an environment,
/// listed by environment and name, their broadcasts counted, removed by name.
@Suite struct LiveActivityChannelStoreTests {
    @Test(arguments: StoreFactory.all)
    func channelsAreKeptByEnvironmentAndNameAndCountTheirBroadcasts(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let projectId = fixture.project.id
        @Sendable func channel(_ name: String, _ environment: APNsEnvironment, _ id: String)
            -> StoredLiveActivityChannel
        {
            StoredLiveActivityChannel(
                projectId: projectId, apnsEnvironment: environment, name: name, channelId: id, storage: "none",
                createdAt: 7)
        }
        let store = fixture.store
        #expect(try await store.write { try $0.insertLiveActivityChannel(channel("b", .production, "Yg==")) })
        #expect(try await store.write { try $0.insertLiveActivityChannel(channel("a", .production, "YQ==")) })
        #expect(try await store.write { try $0.insertLiveActivityChannel(channel("a", .sandbox, "c2E=")) })
        // The same name in the same environment is refused and changes nothing.
        #expect(try await !store.write { try $0.insertLiveActivityChannel(channel("a", .production, "eA==")) })

        let listed = try await store.read { try $0.liveActivityChannels(projectId: projectId) }
        #expect(
            listed.map { "\($0.apnsEnvironment.rawValue)/\($0.name)/\($0.channelId)" } == [
                "production/a/YQ==", "production/b/Yg==", "sandbox/a/c2E=",
            ])
        try await store.write {
            try $0.recordLiveActivityBroadcast(
                projectId: projectId, environment: .production, name: "a", event: "update", at: 100)
            try $0.recordLiveActivityBroadcast(
                projectId: projectId, environment: .production, name: "a", event: "end", at: 200)
        }
        let a = try await store.read {
            try $0.liveActivityChannel(projectId: projectId, environment: .production, name: "a")
        }
        #expect(a?.broadcasts == 2)
        #expect(a?.lastEvent == "end")
        #expect(a?.lastBroadcastAt == 200)
        let other = try await store.read {
            try $0.liveActivityChannel(projectId: projectId, environment: .sandbox, name: "a")
        }
        #expect(other?.broadcasts == 0 && other?.lastEvent == nil)

        #expect(
            try await store.write {
                try $0.deleteLiveActivityChannel(projectId: projectId, environment: .production, name: "a")
            })
        #expect(
            try await !store.write {
                try $0.deleteLiveActivityChannel(projectId: projectId, environment: .production, name: "a")
            })
        #expect(try await store.read { try $0.liveActivityChannels(projectId: projectId) }.map(\.name) == ["b", "a"])
        #expect(try await store.read { try $0.liveActivityChannels(projectId: projectId + 1) }.isEmpty)
    }
}
