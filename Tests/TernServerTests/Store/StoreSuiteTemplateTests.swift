import Foundation
import Testing

@testable import TernServer

/// Message templates in the store, on every backend: names unique per project (also on a rename),
/// pages in id order per project or across them, updates and deletes.
@Suite struct StoreSuiteTemplateTests {
    static func record(_ projectId: Int64, _ name: String, content: String = #"{"title":"Hi"}"#) -> TemplateRecord {
        TemplateRecord(id: 0, projectId: projectId, name: name, content: content, createdAt: 5, updatedAt: 5)
    }

    @Test(arguments: StoreFactory.all)
    func templatesAreKeptPerProjectWithUniqueNamesAndReadInPages(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let project = fixture.project.id
        let other = try await fixture.store.write { tx in try tx.createProject(name: "other", audience: nil, now: 1).id
        }
        let made = try await fixture.store.write { tx in
            try ["a", "b", "c"].map { try tx.insertTemplate(Self.record(project, $0)) }
                + [try tx.insertTemplate(Self.record(other, "a"))]
        }
        #expect(Set(made.map(\.id)).count == 4)
        await #expect(throws: StoreError.self) {
            try await fixture.store.write { tx in try tx.insertTemplate(Self.record(project, "a")) }
        }
        let (byId, byName, missing, first, next, all) = try await fixture.store.read { tx in
            (
                try tx.template(id: made[1].id)?.name, try tx.template(projectId: other, name: "a")?.id,
                try tx.template(projectId: other, name: "b"),
                try tx.templates(projectId: project, afterId: 0, limit: 2).map(\.name),
                try tx.templates(projectId: project, afterId: made[1].id, limit: 2).map(\.name),
                try tx.templates(projectId: nil, afterId: 0, limit: 10).count
            )
        }
        #expect(byId == "b" && byName == made[3].id && missing == nil)
        #expect(first == ["a", "b"] && next == ["c"] && all == 4)
        var renamed = made[1]
        renamed.name = "a"
        let clash = renamed
        await #expect(throws: StoreError.self) { try await fixture.store.write { tx in try tx.updateTemplate(clash) } }
        renamed.name = "b2"
        renamed.content = #"{"body":"Changed"}"#
        renamed.updatedAt = 9
        let changed = renamed
        try await fixture.store.write { tx in try tx.updateTemplate(changed) }
        #expect(try await fixture.store.read { tx in try tx.template(id: changed.id) } == changed)
        #expect(try await fixture.store.write { tx in try tx.deleteTemplate(id: made[0].id) })
        #expect(try await !fixture.store.write { tx in try tx.deleteTemplate(id: made[0].id) })
        #expect(try await fixture.store.read { tx in try tx.template(id: made[0].id) } == nil)
    }
}
