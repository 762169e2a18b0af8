import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// `tern serve --database`: the option, its environment variable, and how a bad one stops the server.
@Suite struct DatabaseOptionTests {
    /// Runs `tern serve` with these arguments; its exit status and what it wrote on stderr and stdout.
    static func tern(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String) {
        let run = try await TernCommand.run(["serve"] + arguments, environment: environment)
        return (run.status, run.output + run.error)
    }

    @Test func optionEnvironmentAndPoolAreParsedAndCheckedWithReasons() throws {
        let url = "postgresql://tern:pw@db/tern?sslmode=require"
        let flag = try ServerOptions.parse(["--database", url, "--database-pool", "16"], environment: [:])
        #expect(flag.databaseURL == url && flag.databasePoolSize == 16)
        let environment = try ServerOptions.parse([], environment: ["TERN_DATABASE_URL": url])
        #expect(environment.databaseURL == url && environment.databasePoolSize == 8)
        #expect(try ServerOptions.parse([], environment: [:]).databaseURL == nil)
        #expect(throws: ConfigurationError.self) {
            try ServerOptions.parse(["--database", "mysql://x:secret@h/db"], environment: [:])
        }
        do {
            _ = try ServerOptions.parse(["--database", "mysql://x:secret@h/db"], environment: [:])
        } catch {
            #expect(error.reason.contains("must be a postgresql:// URL"))
            #expect(!error.reason.contains("secret"))
        }
        #expect(throws: ConfigurationError.self) {
            try ServerOptions.parse(["--database-pool", "0"], environment: [:])
        }
        for option in ["--database", "TERN_DATABASE_URL", "--database-pool", "TERN_DATABASE_POOL", "sslmode"] {
            #expect(ServerOptions.help.contains(option), "\(option) missing from --help")
        }
    }

    @Test func unreachableDatabaseStopsTheServerWithTheReason() async throws {
        let data = try TemporaryDirectory(prefix: "tern-unreachable")
        defer { data.remove() }
        let (status, output) = try await Self.tern(
            ["--port", "0", "--data", data.path("data"), "--database", "postgresql://tern:secret@127.0.0.1:1/tern"])
        #expect(status != 0)
        #expect(output.contains("cannot connect to PostgreSQL at postgresql://tern:***@127.0.0.1:1/tern"), "\(output)")
        #expect(!output.contains("secret"))
    }

    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func wrongPasswordStopsTheServerWithTheReason() async throws {
        var url = try #require(URLComponents(string: PostgresTestDatabase.url ?? ""))
        url.password = "wrong-password"
        let data = try TemporaryDirectory(prefix: "tern-badpw")
        defer { data.remove() }
        let (status, output) = try await Self.tern(
            ["--port", "0", "--data", data.path("data")], environment: ["TERN_DATABASE_URL": url.string ?? ""])
        #expect(status != 0)
        #expect(output.contains("password authentication failed"), "\(output)")
        #expect(!output.contains("wrong-password"))
    }
}
