import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// A way to make an empty store in a directory: the store suite runs against every one.
struct StoreFactory: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable (TemporaryDirectory) throws -> any Store

    var testDescription: String { name }

    static let sqlite = StoreFactory(name: "SQLite") { try SQLiteStore(path: $0.path("tern.sqlite")) }

    /// A schema of its own in the test PostgreSQL (``PostgresTestDatabase``).
    static let postgres = StoreFactory(name: "PostgreSQL") {
        _ in try PostgresStore(url: PostgresTestDatabase.freshSchemaURL(), poolSize: 4)
    }

    /// Every backend: PostgreSQL when the tests have one (CI always does; see `PostgresStoreTests`).
    static let all: [StoreFactory] = PostgresTestDatabase.url == nil ? [.sqlite] : [.sqlite, .postgres]
}

/// A store with a project, a database and a push resource, in a directory removed afterwards.
struct StoreFixture {
    let directory: TemporaryDirectory
    let store: any Store
    let project: Project
    let database: ProfileDatabase
    let resource: Resource

    init(_ factory: StoreFactory) async throws {
        directory = try TemporaryDirectory(prefix: "store")
        store = try factory.make(directory)
        (project, database, resource) = try await store.write { tx in
            let project = try tx.createProject(name: "app", audience: nil, now: 1)
            let database = try tx.createDatabase(projectId: project.id, name: "main", now: 1)
            let resource = try tx.createResource(
                projectId: project.id, dbId: database.id, name: "push", channels: [.push], rToken: "rt_fixture",
                now: 1)
            return (project, database, resource)
        }
    }

    func finish() async {
        await store.close()
        directory.remove()
    }
}

struct TestFailure: Error {}

/// A statement's first `columns` columns as integers, on either backend (what the store's API
/// does not show).
func integerRows(
    _ tx: any StoreTransaction, _ sql: String, _ parameters: [Int64], columns: Int = 1
) throws -> [[Int64]] {
    if let tx = tx as? SQLiteTransaction {
        return try tx.database.query(sql, parameters).map { row in (0..<columns).map { row.requiredInt($0) } }
    }
    let tx = try #require(tx as? PostgresTransaction)
    return try tx.database.query(sql, parameters).map { row in (0..<columns).map { row.requiredInt($0) } }
}
