import Foundation
import TernServer

/// `tern store copy`: a server's SQLite store (and the provider credentials beside it) copied into
/// an empty PostgreSQL database, for `tern serve --database` to run on (``StoreCopy``). It takes
/// `tern serve`'s own two options, so the data directory and the URL are written the same way.
enum StoreCommand {
    static let spec = CommandSpec(
        name: "tern store copy", usage: "tern store copy [--data DIR] --database URL",
        summary: """
            Copies everything the server keeps under --data (the SQLite file: projects, keys, resources, profiles,
            subscriptions, messages and their statistics, segments, in-app campaigns, inbox, webhooks…; and the
            provider credentials under credentials/) into an empty PostgreSQL database, in one transaction: if
            anything fails, the database is left as it was. Stop the server on DIR first (a running one is refused).
            The SQLite file is only read.
            """,
        sections: [
            (
                "",
                [
                    OptionSpec("data", "DIR", "the data directory tern serve ran on (./.tern)  [TERN_DATA]"),
                    OptionSpec(
                        "database", "URL",
                        "postgresql://user:password@host:port/db: an empty database, as tern serve --database "
                            + "takes it  [TERN_DATABASE_URL]"),
                    OptionSpec("help", "this text"),
                ]
            )
        ], maxPositionals: 0,
        footer: """
            Then start the server on PostgreSQL with the same data directory (its bootstrap.json and admin key stay
            valid): tern serve --database URL --data DIR. See docs/operating.md, "Moving from SQLite to PostgreSQL".
            """)

    static func run(_ arguments: [String]) async {
        if arguments.contains("--help") || arguments.contains("-h") || arguments.isEmpty {
            print(spec.help, terminator: "")
            return
        }
        await Usage.run {
            guard arguments.first == "copy" else {
                throw CommandError("unknown store command \(arguments[0]); tern store copy is the one there is")
            }
            let parsed = try spec.parse(Array(arguments.dropFirst()))
            let environment = ProcessInfo.processInfo.environment
            let data = parsed.value("data") ?? environment["TERN_DATA"].flatMap { $0.isEmpty ? nil : $0 } ?? "./.tern"
            guard let url = parsed.value("database") ?? environment["TERN_DATABASE_URL"], !url.isEmpty else {
                throw CommandError("--database is required: the PostgreSQL to copy into (or TERN_DATABASE_URL)")
            }
            guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") else {
                throw CommandError("--database must be a postgresql:// URL")
            }
            try copy(data: data, url: url)
        }
    }

    static func copy(data: String, url: String) throws {
        say("tern: copying \(data)/tern.sqlite into PostgreSQL (one transaction: a failure writes nothing)…", .error)
        let report: StoreCopy.Report
        do {
            report = try StoreCopy.run(dataDirectory: data, databaseURL: url) { table, rows in
                if rows >= 100_000 { say("  \(table): \(rows) rows", .error) }
            }
        } catch {
            throw CommandError(error.description, exitCode: error.unavailable ? .unavailable : .refused)
        }
        say(text(report, data: data))
    }

    /// What was copied and what the operator does next.
    static func text(_ report: StoreCopy.Report, data: String) -> String {
        let width = max(24, (report.rows.map(\.table.count).max() ?? 0) + 2)
        var lines = [
            "tern: copied \(report.source) (schema version \(report.sourceVersion)) into \(report.target) "
                + "(schema version \(report.targetVersion)), in one transaction.",
            "",
            "Rows by table:",
        ]
        for (table, rows) in report.rows.sorted(by: { $0.table < $1.table }) {
            lines.append("  " + table.padding(toLength: width, withPad: " ", startingAt: 0) + " \(rows)")
        }
        let total = report.rows.reduce(0) { $0 + $1.rows }
        lines.append("  " + "total".padding(toLength: width, withPad: " ", startingAt: 0) + " \(total)")
        lines.append("")
        if report.credentials.isEmpty {
            lines.append("Provider credentials: none under \(data)/credentials.")
        } else {
            let named = report.credentials.map { "project \($0.projectId) \($0.provider)" }.joined(separator: ", ")
            lines.append("Provider credentials, now in the database: \(named).")
        }
        for file in report.ignoredFiles { lines.append("  left alone (not a credential): \(file)") }
        lines.append("Id sequences set past the ids copied: \(report.sequences.count).")
        lines += [
            "",
            "Next:",
            "  1. Keep the SQLite server stopped: the database is the store now. \(report.source) is unchanged",
            "     (your way back, as of this copy).",
            "  2. Start the server on PostgreSQL with the same data directory, so it keeps bootstrap.json:",
            "       tern serve --database '\(report.target)' --data \(data)",
            "     (your URL with its password, or TERN_DATABASE_URL). On another machine, copy",
            "     \(data)/bootstrap.json into its --data directory first. The admin key, project keys, rTokens",
            "     and JWT keys are the same; the server rewrites bootstrap.json's api_url from its --host and --port.",
            "  3. Check: curl -fsS http://HOST:PORT/healthz, tern projects list --data \(data), and a test push",
            "     (tern subscriptions test, then tern send) to see the credentials work.",
        ]
        return lines.joined(separator: "\n")
    }

    enum Stream { case output, error }

    static func say(_ text: String, _ stream: Stream = .output) {
        let handle = stream == .output ? FileHandle.standardOutput : FileHandle.standardError
        handle.write(Data((text + "\n").utf8))
    }
}
