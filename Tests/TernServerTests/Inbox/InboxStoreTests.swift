import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The inbox's, preferences' and topics' queries on every backend: the same answers on SQLite and
/// PostgreSQL.
@Suite struct InboxStoreTests {
    static func message(_ profileId: Int64, _ title: String, expiresAt: Int64 = 1_000_000, source: Int64? = nil)
        -> NewInboxMessage
    {
        NewInboxMessage(
            profileId: profileId, sourceMessageId: source, title: title, body: "b", imageURL: nil, link: nil,
            data: #"{"k":1}"#, expiresAt: expiresAt)
    }

    @Test(arguments: StoreFactory.all)
    func versionsTrackPutsReadsDeletesAndTheNewestAreKept(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let dbId = fixture.database.id
        let profile = try await fixture.store.write { try $0.createProfile(dbId: dbId, publicId: "p1", now: 1) }
        let first = try await fixture.store.write { tx in
            try (1...3).map {
                try tx.insertInboxMessage(Self.message(profile.id, "m\($0)"), keep: 3, now: 10 + Int64($0))
            }
        }
        #expect(first.compactMap { $0?.version } == [1, 2, 3])
        let ids = first.compactMap { $0?.id }
        // A fourth drops the oldest (a tombstone with its own version), keeping three live.
        let fourth = try await fixture.store.write { tx in
            try tx.insertInboxMessage(Self.message(profile.id, "m4"), keep: 3, now: 20)
        }
        #expect(fourth?.version == 4)
        let live = try await fixture.store.read { try $0.liveInboxMessages(profileId: profile.id, now: 20, limit: 250) }
        #expect(live.map(\.title) == ["m4", "m3", "m2"])
        let changes = try await fixture.store.read {
            try $0.inboxChanges(profileId: profile.id, afterVersion: 3, limit: 10)
        }
        #expect(changes.map(\.id) == [fourth?.id ?? 0, ids[0]])
        #expect(changes.last?.removed == .dropped)
        #expect(changes.last?.title == nil)

        // Read and delete: once each, a version each.
        let (read, again, deleted, deletedAgain) = try await fixture.store.write { tx in
            (
                try tx.markInboxMessageRead(id: ids[1], profileId: profile.id, now: 30),
                try tx.markInboxMessageRead(id: ids[1], profileId: profile.id, now: 31),
                try tx.removeInboxMessage(id: ids[2], profileId: profile.id, reason: .deleted, now: 32),
                try tx.removeInboxMessage(id: ids[2], profileId: profile.id, reason: .deleted, now: 33)
            )
        }
        #expect(read && !again && deleted && !deletedAgain)
        #expect(try await fixture.store.read { try $0.inboxVersion(profileId: profile.id) } == 7)
        #expect(try await fixture.store.read { try $0.inboxUnreadCount(profileId: profile.id, now: 40) } == 1)
        // Another profile's row is not changed through this profile.
        let other = try await fixture.store.write { try $0.createProfile(dbId: dbId, publicId: "p2", now: 1) }
        #expect(
            try await fixture.store.write {
                try $0.markInboxMessageRead(id: fourth?.id ?? 0, profileId: other.id, now: 50)
            }
                == false)
        // A copy of a push goes in once per profile.
        let copies = try await fixture.store.write { tx in
            [
                try tx.insertInboxMessage(Self.message(other.id, "c", source: 9), keep: 250, now: 60),
                try tx.insertInboxMessage(Self.message(other.id, "c", source: 9), keep: 250, now: 61),
            ]
        }
        #expect(copies[0] != nil && copies[1] == nil)
        // Expired ones: found by time, and purged once long gone.
        let expiring = try await fixture.store.write { tx in
            try tx.insertInboxMessage(Self.message(other.id, "e", expiresAt: 100), keep: 250, now: 70)
        }
        let expired = try await fixture.store.read {
            try $0.inboxExpired(profileId: other.id, upToVersion: 100, after: 90, now: 150)
        }
        #expect(expired == [expiring?.id ?? 0])
        try await fixture.store.write { try $0.purgeInbox(before: 200) }
        #expect(try await fixture.store.read { try $0.inboxMessage(id: expiring?.id ?? 0) } == nil)
    }

    @Test(arguments: StoreFactory.all)
    func preferencesTopicsAndSkipsAreKept(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (dbId, projectId) = (fixture.database.id, fixture.project.id)
        let (a, b) = try await fixture.store.write { tx in
            (
                try tx.createProfile(dbId: dbId, publicId: "a", now: 1),
                try tx.createProfile(dbId: dbId, publicId: "b", now: 1)
            )
        }
        try await fixture.store.write { tx in
            try tx.setPreferences(profileId: a.id, ["push": ["marketing": false], "email": ["news": true]], now: 2)
            try tx.setPreferences(profileId: a.id, ["email": ["news": false]], now: 3)
        }
        #expect(
            try await fixture.store.read { try $0.preferences(profileId: a.id) }
                == ["push": ["marketing": false], "email": ["news": false]])
        #expect(
            try await fixture.store.read {
                try $0.profilesWithPreferenceOff(channel: "push", category: "marketing", profileIds: [a.id, b.id])
            } == [a.id])
        let topic = try await fixture.store.write { tx in
            try tx.topicId(projectId: projectId, name: "release-notes", create: true, now: 4)
        }
        let again = try await fixture.store.write { tx in
            try tx.topicId(projectId: projectId, name: "release-notes", create: true, now: 5)
        }
        #expect(topic != nil && topic == again)
        let follows = try await fixture.store.write { tx in
            [
                try tx.follow(topicId: topic ?? 0, profileId: a.id, now: 6),
                try tx.follow(topicId: topic ?? 0, profileId: a.id, now: 7),
                try tx.follow(topicId: topic ?? 0, profileId: b.id, now: 8),
            ]
        }
        #expect(follows == [true, false, true])
        #expect(
            try await fixture.store.read { try $0.followers(topicId: topic ?? 0, afterProfileId: 0, limit: 10) } == [
                a.id, b.id,
            ])
        #expect(try await fixture.store.write { try $0.unfollow(topicId: topic ?? 0, profileId: a.id) })
        let topics = try await fixture.store.read { try $0.topics(projectId: projectId) }
        #expect(topics.map(\.name) == ["release-notes"] && topics.first?.followers == 1)
        #expect(try await fixture.store.read { try $0.inboxExpiryDays(projectId: projectId) } == nil)
        try await fixture.store.write { try $0.setInboxExpiryDays(projectId: projectId, days: 30, now: 9) }
        #expect(try await fixture.store.read { try $0.inboxExpiryDays(projectId: projectId) } == 30)
    }
}
