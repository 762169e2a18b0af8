import Foundation
import Testing

@testable import TernServer

/// In-app campaigns, counters, static resources and caps: the same on every backend.
@Suite struct InAppStoreTests {
    static func record(_ fixture: StoreFixture, name: String, status: String = "draft", priority: Int64 = 0)
        -> InAppCampaignRecord
    {
        InAppCampaignRecord(
            id: 0, projectId: fixture.project.id, resourceId: fixture.resource.id, name: name, status: status,
            priority: priority, startsAt: nil, endsAt: 5000, definition: #"{"x":1}"#, createdAt: 1, updatedAt: 1)
    }

    @Test(arguments: StoreFactory.all)
    func campaignsAreStoredUpdatedAndListedNewestFirst(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let first = try await fixture.store.write { try $0.insertInAppCampaign(Self.record(fixture, name: "a")) }
        let second = try await fixture.store.write {
            try $0.insertInAppCampaign(Self.record(fixture, name: "b", status: "active", priority: 3))
        }
        #expect(first.id > 0 && second.id > first.id)
        #expect(try await fixture.store.read { try $0.inAppCampaign(id: first.id) } == first)
        var changed = first
        changed.status = "active"
        changed.startsAt = 100
        changed.endsAt = nil
        changed.definition = #"{"y":2}"#
        changed.updatedAt = 9
        let saved = changed
        try await fixture.store.write { try $0.updateInAppCampaign(saved) }
        #expect(try await fixture.store.read { try $0.inAppCampaign(id: first.id) } == saved)
        let projectId = fixture.project.id
        let all = try await fixture.store.read {
            try $0.inAppCampaigns(projectId: projectId, resourceId: nil, status: nil, limit: 10)
        }
        #expect(all.map(\.id) == [second.id, first.id])
        let active = try await fixture.store.read {
            try $0.inAppCampaigns(projectId: nil, resourceId: nil, status: "active", limit: 1)
        }
        #expect(active.map(\.id) == [second.id])
        #expect(try await fixture.store.read { try $0.inAppCampaign(id: 999_999) } == nil)
    }

    @Test(arguments: StoreFactory.all)
    func countersAddUpStaticFilesAndCapsAreKept(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let id = try await fixture.store.write { try $0.insertInAppCampaign(Self.record(fixture, name: "a")).id }
        try await fixture.store.write { tx in
            try tx.addInAppStat(campaignId: id, kind: "clicked", item: "buy", count: 1)
            try tx.addInAppStat(campaignId: id, kind: "clicked", item: "buy", count: 2)
            try tx.addInAppStat(campaignId: id, kind: "placed", item: "", count: 40)
        }
        let stats = try await fixture.store.read { try $0.inAppStats(campaignId: id) }
        #expect(
            stats == [
                InAppStatCount(kind: "clicked", item: "buy", count: 3),
                InAppStatCount(kind: "placed", item: "", count: 40),
            ])

        let bytes = Data([0, 1, 2, 255, 0x5C, 0x78])
        try await fixture.store.write { tx in
            try tx.putInAppStatic(
                campaignId: id, name: "b.png", file: InAppStaticFile(contentType: "image/png", bytes: bytes), now: 1)
            try tx.putInAppStatic(
                campaignId: id, name: "a.css", file: InAppStaticFile(contentType: "text/css", bytes: Data("x".utf8)),
                now: 1)
            try tx.putInAppStatic(
                campaignId: id, name: "a.css", file: InAppStaticFile(contentType: "text/css", bytes: Data("y".utf8)),
                now: 2)
        }
        #expect(try await fixture.store.read { try $0.inAppStatic(campaignId: id, name: "b.png") }?.bytes == bytes)
        #expect(
            try await fixture.store.read { try $0.inAppStatic(campaignId: id, name: "a.css") }?.bytes == Data("y".utf8))
        #expect(try await fixture.store.read { try $0.inAppStaticNames(campaignId: id) } == ["a.css", "b.png"])
        #expect(try await fixture.store.read { try $0.inAppStatic(campaignId: id, name: "none") } == nil)

        let projectId = fixture.project.id
        #expect(try await fixture.store.read { try $0.inAppProjectCaps(projectId: projectId) } == nil)
        try await fixture.store.write {
            try $0.setInAppProjectCaps(projectId: projectId, caps: #"{"per_day":1}"#, now: 1)
        }
        try await fixture.store.write {
            try $0.setInAppProjectCaps(projectId: projectId, caps: #"{"per_day":2}"#, now: 2)
        }
        #expect(try await fixture.store.read { try $0.inAppProjectCaps(projectId: projectId) } == #"{"per_day":2}"#)
    }
}
