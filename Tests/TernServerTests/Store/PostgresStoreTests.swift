import Foundation
import TernServer
import TernTestSupport
import Testing

/// What only the PostgreSQL backend has: the connection, its schema version, and how it fails.
@Suite struct PostgresStoreTests {
    @Test func postgresIsAvailableOrTheSkipIsSaid() {
        if PostgresTestDatabase.url == nil {
            if PostgresTestDatabase.required {
                Issue.record("CI must run the PostgreSQL store tests: TERN_TEST_POSTGRES_URL is not set")
            } else {
                print("PostgreSQL store tests skipped: TERN_TEST_POSTGRES_URL is not set (install postgresql)")
            }
        }
    }
}
