import Foundation
import TernProtocol
import TernServer

/// The backend's profile writes (`POST …/databases/{db_id}/profiles/update`) from the command line:
/// `tern profiles set DB (--id N | --email E | --phone P | --field NAME --value V) --set name=value …
/// [--create] [--no-triggers]` for one person, and `tern import profiles DB FILE [--no-triggers]` for a
/// file of entries (one JSON object a line, as the API takes them; `-` for standard input), sent in
/// parts of 1,000 as `tern import devices` sends devices.
enum ProfileUpdateCommand {
    /// Entries a request: the server's most.
    static let partSize = 1_000
    /// A part that could not reach the server is sent again this many times, with the same
    /// `Idempotency-Key`, so that an increment that did arrive is not applied twice.
    static let attempts = 3
    static let example =
        #"one entry a line, e.g. {"matching": {"email": "ann@example.com"}, "profile_fields": {"plan": "gold"}}"#

    /// `tern profiles set`: one entry; prints its result, exit status 1 when it was refused or
    /// matched no one.
    static func set(_ arguments: Arguments, client: AdminClient) async throws {
        let db = try database(arguments)
        var fields: [String: JSONValue] = [:]
        for pair in arguments.all("set") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw CommandError("--set takes name=value (the value as JSON when it is JSON, else text), not \(pair)")
            }
            fields[String(pair[..<equals])] = SendOptions.jsonValue(String(pair[pair.index(after: equals)...]))
        }
        guard !fields.isEmpty else {
            throw CommandError(
                #"profiles set needs --set name=value (e.g. --set plan=gold --set 'orders={"action":"incr"}')"#)
        }
        var entry: [String: JSONValue] = [
            "matching": .object(try matching(arguments)), "profile_fields": .object(fields),
        ]
        if arguments.has("create") { entry["create"] = .bool(true) }
        var request: [String: JSONValue] = ["profiles": [.object(entry)]]
        if arguments.has("no-triggers") { request["start_triggers"] = .bool(false) }
        let body = try JSONEncoder().encode(request)
        let (status, answer) = try await client.send(
            "POST", path(db), body: body, headers: [Wire.idempotencyKeyHeader: UUID().uuidString])
        guard status == 200,
            let json = try? JSONSerialization.jsonObject(with: answer) as? [String: Any],
            let result = (json["results"] as? [[String: Any]])?.first
        else { return AdminCommand.output(status, answer) }
        AdminCommand.output(status, try JSONSerialization.data(withJSONObject: result))
        switch result["result"] as? String {
        case "refused":
            throw CommandError("refused: \(result["reason"] as? String ?? "")", exitCode: .refused)
        case "not_found":
            let reason = result["reason"] as? String ?? "no profile of database \(db) matches; --create makes one"
            throw CommandError(reason, exitCode: .refused)
        default: return
        }
    }

    /// `tern import profiles`: every line is read before the first part goes; prints the totals by
    /// result and each refused line's number and reason (exit status 1 when a line was refused).
    static func importFile(_ arguments: Arguments, client: AdminClient) async throws {
        let db = try database(arguments)
        let entries = try DeviceImportCommand.read(try arguments.position(2, "FILE"), example: example)
        guard !entries.isEmpty else { throw CommandError("the file has no entries: \(example)") }
        let run = UUID().uuidString
        var totals: [String: Int] = ["updated": 0, "created": 0, "unchanged": 0, "not_found": 0, "refused": 0]
        var refused: [[String: Any]] = []
        // A backfill (--no-triggers) writes the values without starting $field_set messages.
        let opening = arguments.has("no-triggers") ? #"{"start_triggers":false,"profiles":["# : #"{"profiles":["#
        for (number, part) in try DeviceImportCommand.parts(entries, what: "an entry").enumerated() {
            let body =
                Data(opening.utf8) + Data(part.map(\.json).joined(separator: Data(",".utf8))) + Data("]}".utf8)
            let (status, answer) = try await client.sendRetrying(
                "POST", path(db), body: body, headers: [Wire.idempotencyKeyHeader: "tern-import-\(run)-\(number)"],
                attempts: attempts)
            let json = (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any] ?? [:]
            guard status == 200 else {
                let applied = totals.filter { $0.key != "refused" && $0.key != "not_found" }.values.reduce(0, +)
                throw CommandError(
                    "\(json["error_text"] as? String ?? "HTTP \(status)")\n\(applied) entries before line "
                        + "\(part[0].line) were applied", exitCode: .refused)
            }
            for result in json["results"] as? [[String: Any]] ?? [] {
                let outcome = result["result"] as? String ?? "?"
                totals[outcome, default: 0] += 1
                if outcome == "refused" {
                    let index = result["index"] as? Int ?? 0
                    refused.append([
                        "line": index < part.count ? part[index].line : 0, "reason": result["reason"] ?? "",
                    ])
                }
            }
        }
        let summary = try JSONSerialization.data(
            withJSONObject: ["totals": totals, "refused": refused],
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(summary + Data("\n".utf8))
        if !refused.isEmpty {
            throw CommandError("\(refused.count) entries were refused (above, by line)", exitCode: .refused)
        }
    }

    static func path(_ db: String) -> String { "/databases/\(db)/profiles/update" }

    static func database(_ arguments: Arguments) throws -> String {
        let db = try arguments.position(1, "DB")
        guard Int64(db) != nil else { throw CommandError("DB is a profile database's id, not \(db)") }
        return db
    }

    /// The person `--id`, `--email`, `--phone` or `--field` with `--value` names, as `matching`.
    static func matching(_ arguments: Arguments) throws -> [String: JSONValue] {
        var found: [[String: JSONValue]] = []
        if let id = arguments.value("id") { found.append(["profile_id": .string(id)]) }
        if let email = arguments.value("email") { found.append(["email": .string(email)]) }
        if let phone = arguments.value("phone") { found.append(["phone": .string(phone)]) }
        if let field = arguments.value("field") {
            guard let value = arguments.value("value") else {
                throw CommandError("--field NAME needs --value V (JSON when it is JSON, else text)")
            }
            found.append(["field_name": .string(field), "field_value": SendOptions.jsonValue(value)])
        }
        guard found.count == 1, let matching = found.first else {
            throw CommandError(
                "profiles set names one person: --id ID, --email E, --phone P, or --field NAME --value V")
        }
        return matching
    }
}
