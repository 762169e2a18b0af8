import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Keys and the audit log, on every backend: digests found only while they work, rotation's grace
/// period, revocation, and the audit log's order and project filter.
@Suite struct StoreSuiteKeyTests {
    @Test(arguments: StoreFactory.all)
    func aProjectKeyIsFoundByItsDigestUntilRevoked(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let projectId = fixture.project.id
        let key = try await fixture.store.write {
            try $0.insertKey(digest: "d-read", projectId: projectId, role: .read, name: "ci", createdBy: nil, now: 10)
        }
        #expect(key.projectId == projectId && key.role == .read && key.name == "ci")
        let found = try await fixture.store.read { try $0.key(digest: "d-read", now: 11) }
        #expect(found == key)
        #expect(try await fixture.store.read { try $0.key(digest: "d-other", now: 11) } == nil)
        // A project key is not a server key: bootstrap's check does not take it.
        #expect(try await !fixture.store.read { try $0.hasAdminKey(digest: "d-read") })
        #expect(try await fixture.store.write { try $0.revokeKey(id: key.id, now: 12) })
        #expect(try await !fixture.store.write { try $0.revokeKey(id: key.id, now: 13) }, "revoked once only")
        #expect(try await fixture.store.read { try $0.key(digest: "d-read", now: 14) } == nil)
        #expect(try await fixture.store.read { try $0.key(id: key.id) }?.revokedAt == 12)
    }

    @Test(arguments: StoreFactory.all)
    func aRotatedKeysOldDigestWorksOnlyDuringItsGracePeriod(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let projectId = fixture.project.id
        let key = try await fixture.store.write {
            try $0.insertKey(digest: "old", projectId: projectId, role: .send, name: "k", createdBy: 1, now: 10)
        }
        try await fixture.store.write { try $0.rotateKey(id: key.id, digest: "new", previousExpiresAt: 100, now: 20) }
        #expect(try await fixture.store.read { try $0.key(digest: "new", now: 50) }?.id == key.id)
        #expect(try await fixture.store.read { try $0.key(digest: "old", now: 99) }?.id == key.id)
        #expect(try await fixture.store.read { try $0.key(digest: "old", now: 100) } == nil, "grace over")
        // Without a grace period the old secret stops at once.
        try await fixture.store.write { try $0.rotateKey(id: key.id, digest: "newer", previousExpiresAt: nil, now: 30) }
        #expect(try await fixture.store.read { try $0.key(digest: "new", now: 31) } == nil)
        let stored = try await fixture.store.read { try $0.key(id: key.id) }
        #expect(stored?.rotatedAt == 30 && stored?.createdBy == 1)
    }

    @Test(arguments: StoreFactory.all)
    func theBootstrapKeyIsAServerKeyAndListsApartFromProjects(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let projectId = fixture.project.id
        try await fixture.store.write { try $0.addAdminKey(digest: "boot", name: "bootstrap", now: 1) }
        _ = try await fixture.store.write {
            try $0.insertKey(digest: "p", projectId: projectId, role: .full, name: "p", createdBy: nil, now: 2)
        }
        let boot = try #require(try await fixture.store.read { try $0.key(digest: "boot", now: 3) })
        #expect(boot.role == .server && boot.projectId == nil)
        #expect(try await fixture.store.read { try $0.keys(projectId: nil) }.count == 2)
        #expect(try await fixture.store.read { try $0.keys(projectId: projectId) }.map(\.role) == [.full])
    }

    @Test(arguments: StoreFactory.all)
    func theAuditLogReadsNewestFirstByProject(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        for (index, project) in [Int64(1), 2, 1, nil].enumerated() {
            let entry = AuditEntry(
                id: 0, at: Int64(index), keyId: 7, projectId: project, action: "POST /x", target: "/x/\(index)",
                status: 201, requestId: "r\(index)", detail: "id=\(index)")
            _ = try await fixture.store.write { try $0.appendAudit(entry) }
        }
        let all = try await fixture.store.read { try $0.audit(projectId: nil, beforeId: 0, limit: 10) }
        #expect(all.map(\.target) == ["/x/3", "/x/2", "/x/1", "/x/0"])
        #expect(all.first?.projectId == nil && all.last?.keyId == 7 && all.last?.requestId == "r0")
        let first = try await fixture.store.read { try $0.audit(projectId: 1, beforeId: 0, limit: 10) }
        #expect(first.map(\.target) == ["/x/2", "/x/0"])
        let older = try await fixture.store.read { try $0.audit(projectId: nil, beforeId: all[1].id, limit: 1) }
        #expect(older.map(\.target) == ["/x/1"])
    }
}
