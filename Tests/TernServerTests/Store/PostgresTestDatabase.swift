import Foundation
import Testing

@testable import TernServer

/// The PostgreSQL the tests run against: `TERN_TEST_POSTGRES_URL`, which scripts/test.sh sets after
/// starting a throwaway cluster (scripts/postgres.sh). Each store gets a schema of its own in it.
enum PostgresTestDatabase {
    static let url: String? = {
        guard let url = ProcessInfo.processInfo.environment["TERN_TEST_POSTGRES_URL"], !url.isEmpty else { return nil }
        return url
    }()

    /// True in CI, where the PostgreSQL tests must run rather than be skipped.
    static let required = ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false

    /// The test database's URL with its tables in a fresh, empty schema.
    static func freshSchemaURL() throws -> String {
        guard let url else { throw PostgresTestDatabaseMissing() }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE SCHEMA \(schema)")
        return withSearchPath(url, schema)
    }

    /// `url` with `schema` first on the search path (libpq's `options` parameter).
    static func withSearchPath(_ url: String, _ schema: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
    }
}

struct PostgresTestDatabaseMissing: Error, CustomStringConvertible {
    var description: String { "TERN_TEST_POSTGRES_URL is not set: start one with scripts/postgres.sh" }
}
