import Foundation
import TernTestSupport
import Testing

/// The command line's help and its parser come from the same declarations, and the exit status
/// says what happened: 2 for a mistake in the options, 4 when no server answers.
@Suite struct CommandLineTests {
    static func tern(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await TernCommand.run(arguments)
    }

    /// Every `--option` the help of `tern send` lists is one the parser takes: given with a value
    /// where it takes one, none is refused as unknown.
    @Test func sendHelpListsOnlyWhatTheParserTakes() async throws {
        let help = try await Self.tern(["send", "--help"])
        #expect(help.status == 0)
        #expect(help.output.hasPrefix("usage: tern send [options]\n"))
        let options = help.output.split(separator: "\n").compactMap { line -> String? in
            guard let first = line.split(separator: " ").first, first.hasPrefix("--"), first != "--help" else {
                return nil
            }
            return String(first)
        }
        #expect(options.count > 30, "\(options.count) options in the help")
        for option in options {
            // --interval 0 stops the command once the options are read, before it looks for a server.
            let run = try await Self.tern(["send", option + "=1", "--interval", "0"])
            #expect(run.status == 2)
            #expect(!run.error.contains("unknown option"), "\(option): \(run.error)")
        }
    }

    @Test func positionalArgumentsTheHelpDoesNotShowAreRefusedWithStatus2() async throws {
        let run = try await Self.tern(["send", "hello", "--token", "t"])
        #expect(run.status == 2)
        #expect(run.error.contains("unexpected argument hello; see tern send --help"))
    }

    @Test func aSendTimeThatIsNoTimeIsRefusedWithStatus2() async throws {
        let run = try await Self.tern(["send", "--title", "Hi", "--token", "t", "--at", "tomorrow"])
        #expect(run.status == 2)
        #expect(run.error.contains("--at must be a time like 2026-12-24T09:00:00Z"), "\(run.error)")
    }

    @Test func anUnreachableServerExitsWith4() async throws {
        let run = try await Self.tern(["projects", "list", "--url", "http://127.0.0.1:1/api/v1", "--admin-key", "k"])
        #expect(run.status == 4)
        #expect(run.error.contains("cannot reach http://127.0.0.1:1/api/v1"))
    }
}
