import Foundation
import TernTestSupport
import Testing

/// Secrets need not be on the command line, where `ps` shows them to every user of the machine.
@Suite struct SecretsTests {
    /// `tern …` with `environment`, and `TERN_ADMIN_KEY` only when `environment` gives it.
    func tern(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
        status: Int32, output: String
    ) {
        var variables: [String: String?] = environment
        variables["TERN_ADMIN_KEY"] = .some(environment["TERN_ADMIN_KEY"])
        let run = try await TernCommand.run(arguments, environment: variables)
        return (run.status, run.output + run.error)
    }

    @Test func theAdminKeyAndAnHS256SecretComeFromFiles() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let directory = try TemporaryDirectory(prefix: "secrets")
        defer { directory.remove() }
        let keyFile = directory.path("admin-key")
        let secretFile = directory.path("jwt-secret")
        try Data((server.process.adminKey + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        try Data(String(repeating: "z", count: 40).utf8).write(to: URL(fileURLWithPath: secretFile))
        let url = server.process.apiURL.absoluteString
        let added = try await tern([
            "jwt-keys", "add", "\(server.first.projectId)", "from-file", "HS256", "--secret-file", secretFile, "--url",
            url,
            "--admin-key-file", keyFile,
        ])
        #expect(added.status == 0, "\(added.output)")
        let listed = try await tern(
            ["jwt-keys", "list", "\(server.first.projectId)", "--url", url],
            environment: ["TERN_ADMIN_KEY_FILE": keyFile])
        #expect(listed.status == 0, "\(listed.output)")
        #expect(listed.output.contains("from-file"))
        #expect(!listed.output.contains(String(repeating: "z", count: 40)))
        let wrong = try await tern([
            "jwt-keys", "list", "1", "--url", url, "--admin-key-file", directory.path("missing"),
        ])
        #expect(wrong.status != 0)
        #expect(wrong.output.contains("cannot read"))
        let help = try await tern(["help"])
        #expect(help.output.contains("shows in ps"), "\(help.output)")
    }
}
