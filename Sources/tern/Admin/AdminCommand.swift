import Foundation
import TernProtocol
import TernServer

/// The management subcommands: each becomes one call of the admin API, whose JSON is printed.
enum AdminCommand {
    static let topics: Set<String> = Set([
        "projects", "databases", "resources", "categories", "pixels", "jwt-keys", "keys", "audit", "profiles",
        "subscriptions", "push-events", "test-devices", "identity", "segments", "messages", "webhooks",
        "live-activity-channels", "import", "export",
    ]).union(inboxTopics)

    /// Every management option; each subcommand reads the ones `tern help` names for it.
    static let spec = CommandSpec(
        name: "tern",
        usage: "tern <topic> <subcommand> [arguments] [options]",
        summary: "Calls the server's management API and prints its JSON (the topics are in tern help).",
        sections: [
            (
                "Options",
                [
                    OptionSpec("audience", "AUD", "projects create: the JWT audience"),
                    OptionSpec(
                        "project", "ID",
                        "resources list, keys list/create, audit, test-devices list, segments: only this project's"),
                    OptionSpec("role", "ROLE", "keys create: read, send, full (a project key) or server"),
                    OptionSpec("grace", "SECONDS", "keys rotate: how long the old secret keeps working (default 0)"),
                    OptionSpec("before", "ID", "audit, messages list: entries older than this one"),
                    OptionSpec("db", "ID", "resources create: the profile database"),
                    OptionSpec("channels", "push,email", "resources create: its channels"),
                    OptionSpec("title", "T", "categories set: the title"),
                    OptionSpec("steady", "categories set: a steady category"),
                    OptionSpec("sid", "SID", "pixels create: the pixel's sid"),
                    OptionSpec("name", "NAME", "pixels create, keys create, segments create/edit: its name"),
                    OptionSpec("limit", "N", "pixels goals, audit, messages list: at most N"),
                    OptionSpec(
                        "state", "STATE",
                        "messages list: only scheduled, sending, done, cancelled or standing (trigger, repeat) ones"),
                    OptionSpec(
                        "kind", "KIND", "messages list: only one_off, trigger, repeat, live_activity or ab_test ones"),
                    OptionSpec("search", "TEXT", "messages list: only those with TEXT in the title, body or id"),
                    OptionSpec(
                        "since", "DATE", "messages list: only those made since DATE (2026-11-27, ISO 8601, or ms)"),
                    OptionSpec(
                        "bucket", "minute|hour|day",
                        "messages timeline: a row a minute, hour or day (UTC; left out, chosen by the message's span)"),
                    OptionSpec(
                        "file", "FILE",
                        "messages edit: the whole message request as JSON, as tern send would send it (- reads stdin)"),
                    OptionSpec("pem", "FILE", "jwt-keys add: the public key (ES256, RS256, PS256)"),
                    OptionSpec(
                        "secret-file", "FILE",
                        "jwt-keys add: read the shared secret (HS256) from FILE (or TERN_JWT_SECRET); prefer this"),
                    OptionSpec("secret", "S", "jwt-keys add: the shared secret (HS256); shows in ps"),
                    OptionSpec("email", "E", "profiles find/set: by email"),
                    OptionSpec("phone", "P", "profiles find/set: by phone"),
                    OptionSpec("field", "NAME", "profiles find/set: by this field (with --value)"),
                    OptionSpec("value", "V", "profiles find/set: the field's value (JSON when it is JSON, else text)"),
                    OptionSpec("id", "ID", "profiles set: by profile id"),
                    OptionSpec(
                        "set", "NAME=VALUE", repeatable: true,
                        "profiles set: a field's new value (JSON when it is JSON, else text; an action object too)"),
                    OptionSpec("create", "profiles set: make the profile when none matches"),
                    OptionSpec(
                        "no-triggers",
                        "profiles set, import profiles: a backfill: the values start no $field_set message"),
                    OptionSpec("channel", "CHANNEL", "subscriptions find: the channel (default push)"),
                    OptionSpec(
                        "provider", "PROVIDER",
                        "subscriptions find/test, identity show: the push provider (default \(PushProvider.apns.rawValue))"
                    ),
                    OptionSpec("off", "profiles test, subscriptions test: unmark the test device instead"),
                    OptionSpec(
                        "events", "TYPES",
                        "webhooks add: " + WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")),
                    OptionSpec(
                        "sandbox", "live-activity-channels: the channel in APNs' sandbox (default production)"),
                    OptionSpec("storage", "POLICY", "live-activity-channels create: most_recent (default) or none"),
                    OptionSpec("event", "EVENT", "live-activity-channels broadcast: update or end"),
                    OptionSpec(
                        "content-state", "JSON", "live-activity-channels broadcast: the activity's content (an object)"),
                    OptionSpec("priority", "10|5", "live-activity-channels broadcast: APNs' priority (default 10)"),
                    OptionSpec("ttl", "SECONDS", "live-activity-channels broadcast: how long APNs keeps it"),
                ] + inboxOptions + segmentOptions
            ),
            ("Connection", OptionSpec.connection),
        ],
        maxPositionals: 4,
        footer: "")

    static func run(_ topic: String, _ arguments: [String]) async {
        await Usage.run {
            let arguments = try spec.parse(arguments)
            let client = try AdminClient.resolve(arguments)
            if topic == "import" {
                switch try arguments.position(0, "a subcommand") {
                case "devices": return try await DeviceImportCommand.run(arguments, client: client)
                case "profiles": return try await ProfileUpdateCommand.importFile(arguments, client: client)
                default:
                    throw CommandError(
                        "tern import takes devices RESOURCE FILE or profiles DB FILE (JSON Lines, - for standard input)"
                    )
                }
            }
            if topic == "profiles", arguments.positionals.first == "set" {
                return try await ProfileUpdateCommand.set(arguments, client: client)
            }
            if topic == "export" {
                guard try arguments.position(0, "a subcommand") == "devices" else {
                    throw CommandError(
                        "tern export takes devices RESOURCE [FILE] (JSON Lines; standard output without FILE)")
                }
                return try await DeviceExportCommand.run(arguments, client: client)
            }
            let call = try plan(topic, arguments)
            if topic == "messages", try arguments.position(0, "a subcommand") == "timeline" {
                let (status, body) = try await client.send(call.method, call.path, query: call.query)
                if (200..<300).contains(status), let table = TimelineTable.text(body) {
                    FileHandle.standardOutput.write(Data(table.utf8))
                    return
                }
                return output(status, body)
            }
            if topic == "messages", try arguments.position(0, "a subcommand") == "stats" {
                // The answer as JSON on standard output, as ever; a control group's comparison
                // also as lines on standard error, for the person at the terminal.
                let (status, body) = try await client.send(call.method, call.path, query: call.query)
                output(status, body)
                if (200..<300).contains(status),
                    let control = (try? JSONDecoder().decode(MessageStats.self, from: body))?.controlGroup
                {
                    FileHandle.standardError.write(
                        Data((Funnel.controlGroup(control).joined(separator: "\n") + "\n").utf8))
                }
                return
            }
            try await perform(call, client: client)
        }
    }

    /// One request of the management API, planned from a command's arguments.
    struct Call {
        var method: String
        var path: String
        var query: [String: String] = [:]
        var body: Data?
        var headers: [String: String] = [:]
    }

    /// Sends `call` and prints the server's answer (exit status 1 on a refusal).
    static func perform(_ call: Call, client: AdminClient) async throws {
        let (status, body) = try await client.send(
            call.method, call.path, query: call.query, body: call.body, headers: call.headers)
        output(status, body)
    }

    /// A subcommand of its own (`tern inapp`, `tern template`): its help without arguments, else
    /// the call `plan` makes of them, sent with the connection they name.
    static func run(_ arguments: [String], spec: CommandSpec, plan: (Arguments) throws -> Call) async {
        if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
            print(spec.help)
            return
        }
        await Usage.run {
            let parsed = try spec.parse(arguments)
            try await perform(plan(parsed), client: AdminClient.resolve(parsed))
        }
    }

    static func plan(_ topic: String, _ arguments: Arguments) throws -> Call {
        let verb = try arguments.position(0, "a subcommand")
        func arg(_ index: Int, _ name: String) throws -> String { try arguments.position(index, name) }
        if let call = try inboxPlan(topic, verb, arguments) { return call }
        if let call = try segmentPlan(topic, verb, arguments) { return call }
        switch (topic, verb) {
        case ("identity", "policy"):
            let project = try arg(1, "PROJECT")
            guard arguments.positionals.count > 2 else {
                return Call(method: "GET", path: "/projects/\(project)/identity-policy")
            }
            let mode = try arg(2, "MODE")
            guard ["basic", "verified"].contains(mode) else { throw CommandError("MODE is basic or verified") }
            return Call(method: "PUT", path: "/projects/\(project)/identity-policy", body: try json(["mode": mode]))
        case ("identity", "show"):
            return Call(
                method: "GET", path: "/resources/\(try arg(1, "RESOURCE"))/identity",
                query: [
                    "provider": arguments.value("provider") ?? PushProvider.apns.rawValue,
                    "subscription_id": try arg(2, "TOKEN"),
                ])
        case ("projects", "list"): return Call(method: "GET", path: "/projects")
        case ("projects", "create"):
            return Call(
                method: "POST", path: "/projects",
                body: try json(["name": try arg(1, "NAME"), "audience": arguments.value("audience")]))
        case ("projects", "cap"):
            let project = try arg(1, "PROJECT")
            if try arg(2, "PUSHES or off") == "off" {
                return Call(method: "DELETE", path: "/projects/\(project)/frequency-cap")
            }
            guard let pushes = Int(try arg(2, "PUSHES")), let hours = Int(try arg(3, "HOURS")) else {
                throw CommandError(
                    "tern projects cap PROJECT PUSHES HOURS takes two whole numbers, or: cap PROJECT off")
            }
            return Call(
                method: "PUT", path: "/projects/\(project)/frequency-cap",
                body: try json(["pushes": pushes, "hours": hours]))
        case ("webhooks", "list"): return Call(method: "GET", path: "/projects/\(try arg(1, "PROJECT"))/webhooks")
        case ("webhooks", "add"):
            guard let events = arguments.value("events")?.split(separator: ",").map(String.init), !events.isEmpty else {
                throw CommandError(
                    "tern webhooks add PROJECT URL needs --events, one or more of "
                        + WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return Call(
                method: "POST", path: "/projects/\(try arg(1, "PROJECT"))/webhooks",
                body: try json(["url": try arg(2, "URL"), "events": events]))
        case ("webhooks", "test"):
            return Call(
                method: "POST", path: "/projects/\(try arg(1, "PROJECT"))/webhooks/\(try arg(2, "ID"))/test")
        case ("webhooks", "remove"):
            return Call(method: "DELETE", path: "/projects/\(try arg(1, "PROJECT"))/webhooks/\(try arg(2, "ID"))")
        case ("live-activity-channels", _):
            return try liveActivityChannelPlan(verb, arguments)
        case ("databases", "list"): return Call(method: "GET", path: "/projects/\(try arg(1, "PROJECT"))/databases")
        case ("databases", "create"):
            return Call(
                method: "POST", path: "/projects/\(try arg(1, "PROJECT"))/databases",
                body: try json(["name": try arg(2, "NAME")]))
        case ("resources", "list"):
            return Call(
                method: "GET", path: "/resources", query: arguments.value("project").map { ["project_id": $0] } ?? [:])
        case ("resources", "show"): return Call(method: "GET", path: "/resources/\(try arg(1, "ID"))")
        case ("resources", "create"):
            let channels = arguments.value("channels")?.split(separator: ",").map(String.init)
            return Call(
                method: "POST", path: "/resources",
                body: try json([
                    "project_id": Int(try arg(1, "PROJECT")), "name": try arg(2, "NAME"),
                    "db_id": arguments.value("db").flatMap { Int($0) }, "channels": channels,
                ]))
        case ("categories", "list"): return Call(method: "GET", path: "/resources/\(try arg(1, "RESOURCE"))/categories")
        case ("categories", "set"):
            return Call(
                method: "PUT", path: "/resources/\(try arg(1, "RESOURCE"))/categories/\(try arg(2, "NAME"))",
                body: try json([
                    "title": arguments.value("title"), "steady": arguments.value("steady").map { $0 == "true" },
                ]))
        case ("categories", "delete"):
            return Call(method: "DELETE", path: "/resources/\(try arg(1, "RESOURCE"))/categories/\(try arg(2, "NAME"))")
        case ("pixels", "list"): return Call(method: "GET", path: "/projects/\(try arg(1, "PROJECT"))/pixels")
        case ("pixels", "create"):
            return Call(
                method: "POST", path: "/projects/\(try arg(1, "PROJECT"))/pixels",
                body: try json(["sid": arguments.value("sid"), "name": arguments.value("name")]))
        case ("pixels", "delete"):
            return Call(method: "DELETE", path: "/projects/\(try arg(1, "PROJECT"))/pixels/\(try arg(2, "SID"))")
        case ("pixels", "goals"):
            return Call(
                method: "GET", path: "/projects/\(try arg(1, "PROJECT"))/pixels/\(try arg(2, "SID"))/goals",
                query: arguments.value("limit").map { ["limit": $0] } ?? [:])
        case ("jwt-keys", "list"): return Call(method: "GET", path: "/projects/\(try arg(1, "PROJECT"))/jwt-keys")
        case ("jwt-keys", "add"):
            let key: String
            if let file = arguments.value("pem") {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                    throw CommandError("cannot read the PEM file \(file)")
                }
                key = text
            } else if let file = arguments.value("secret-file") {
                key = try secret(fromFile: file, "--secret-file")
            } else if let value = ProcessInfo.processInfo.environment["TERN_JWT_SECRET"], !value.isEmpty {
                key = value
            } else if let value = arguments.value("secret") {
                key = value
            } else {
                throw CommandError(
                    "jwt-keys add needs --pem FILE (ES256, RS256, PS256) or, for HS256, --secret-file FILE or "
                        + "TERN_JWT_SECRET (--secret S works too, but shows in ps)")
            }
            return Call(
                method: "POST", path: "/projects/\(try arg(1, "PROJECT"))/jwt-keys",
                body: try json(["kid": try arg(2, "KID"), "algorithm": try arg(3, "ALG"), "key": key]))
        case ("jwt-keys", "delete"):
            return Call(method: "DELETE", path: "/projects/\(try arg(1, "PROJECT"))/jwt-keys/\(try arg(2, "KID"))")
        case ("keys", "add"), ("keys", "delete"):
            throw CommandError("JWT verification keys moved to tern jwt-keys \(verb); tern keys manages API keys")
        case ("keys", "list"):
            return Call(
                method: "GET", path: "/keys", query: arguments.value("project").map { ["project_id": $0] } ?? [:])
        case ("keys", "create"):
            guard let role = arguments.value("role") else {
                throw CommandError(
                    "keys create needs --role read|send|full with --project ID (a project key), or --role server")
            }
            return Call(
                method: "POST", path: "/keys",
                body: try json([
                    "role": role, "project_id": try arguments.value("project").map(integer),
                    "name": arguments.value("name"),
                ]))
        case ("keys", "rotate"):
            return Call(
                method: "POST", path: "/keys/\(try arg(1, "KEY_ID"))/rotate",
                body: try json(["grace_seconds": try arguments.value("grace").map(integer) ?? 0]))
        case ("keys", "revoke"): return Call(method: "DELETE", path: "/keys/\(try arg(1, "KEY_ID"))")
        case ("audit", "list"):
            var query: [String: String] = [:]
            for (option, name) in [("project", "project_id"), ("before", "before"), ("limit", "limit")] {
                query[name] = arguments.value(option)
            }
            return Call(method: "GET", path: "/audit", query: query)
        case ("profiles", "show"): return Call(method: "GET", path: "/profiles/\(try arg(1, "ID"))")
        case ("profiles", "export"): return Call(method: "GET", path: "/profiles/\(try arg(1, "ID"))/export")
        case ("profiles", "erase"): return Call(method: "DELETE", path: "/profiles/\(try arg(1, "ID"))")
        case ("profiles", "find"):
            var query = ["db_id": try arg(1, "DB")]
            for name in ["email", "phone", "field", "value"] { query[name] = arguments.value(name) }
            return Call(method: "GET", path: "/profiles", query: query)
        case ("profiles", "test"):
            return Call(
                method: "PUT", path: "/profiles/\(try arg(1, "ID"))/test",
                body: try json(["is_test": !arguments.has("off")]))
        case ("subscriptions", "test"):
            return Call(
                method: "PUT", path: "/resources/\(try arg(1, "RESOURCE"))/test-devices",
                body: try json([
                    "subscription_id": try arg(2, "TOKEN"),
                    "provider": arguments.value("provider") ?? PushProvider.apns.rawValue,
                    "is_test": !arguments.has("off"),
                ]))
        case ("test-devices", "list"):
            return Call(
                method: "GET", path: "/test-devices",
                query: arguments.value("project").map { ["project_id": $0] } ?? [:])
        case ("subscriptions", "find"):
            var query = ["resource_id": try arg(1, "RESOURCE"), "subscription_id": try arg(2, "TOKEN")]
            let push = SubscriptionChannel.push.rawValue
            query["channel"] = arguments.value("channel") ?? push
            query["provider"] =
                arguments.value("provider") ?? (query["channel"] == push ? PushProvider.apns.rawValue : "")
            return Call(method: "GET", path: "/subscriptions", query: query)
        case ("push-events", _): return Call(method: "GET", path: "/push-events", query: ["message_id": verb])
        case ("messages", "list"):
            var query = ["limit": arguments.value("limit") ?? "50"]
            query["before"] = arguments.value("before")
            query["state"] = arguments.value("state")
            query["kind"] = arguments.value("kind")
            query["q"] = arguments.value("search")
            query["created_after"] = arguments.value("since")
            return Call(method: "GET", path: "/messages", query: query)
        case ("messages", "show"): return Call(method: "GET", path: "/messages/\(try arg(1, "ID"))")
        case ("messages", "stats"): return Call(method: "GET", path: "/messages/\(try arg(1, "ID"))/stats")
        case ("messages", "timeline"):
            return Call(
                method: "GET", path: "/messages/\(try arg(1, "ID"))/timeline",
                query: arguments.value("bucket").map { ["bucket": $0] } ?? [:])
        case ("messages", "cancel"): return Call(method: "POST", path: "/messages/\(try arg(1, "ID"))/cancel")
        case ("messages", "edit"):
            // The whole request, as the API replaces it: tern send's options would make a second
            // spelling of every field here, and an edit of one field still names all the others.
            guard let file = arguments.value("file") else {
                throw CommandError(
                    "tern messages edit ID --file FILE: FILE holds the whole message request as JSON (tern messages "
                        + "show ID prints it under \"request\")")
            }
            return Call(
                method: "PUT", path: "/messages/\(try arg(1, "ID"))",
                body: try InAppCommand.jsonFile(file, fields: "see docs/sending.md for a message's fields"))
        case ("messages", "winner"):
            return Call(
                method: "POST", path: "/messages/\(try arg(1, "ID"))/winner",
                body: try json(["variant": try arg(2, "VARIANT")]))
        default:
            throw CommandError("unknown command tern \(topic) \(verb); see tern help")
        }
    }

    /// An option's value as an integer, or a usage error naming it.
    static func integer(_ text: String) throws -> Int64 {
        guard let value = Int64(text) else { throw CommandError("\(text) is not an integer") }
        return value
    }

    /// A JSON object without the nil values.
    static func json(_ fields: [String: Any?]) throws -> Data {
        try JSONSerialization.data(withJSONObject: fields.compactMapValues { $0 }, options: [.sortedKeys])
    }

    /// Prints the answer as indented JSON; a failure goes to stderr and exits 1.
    static func output(_ status: Int, _ body: Data) {
        var text = String(decoding: body, as: UTF8.self)
        if let object = try? JSONSerialization.jsonObject(with: body),
            let pretty = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        {
            text = String(decoding: pretty, as: UTF8.self)
        }
        if (200..<300).contains(status) {
            if !text.isEmpty { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
            return
        }
        let reason = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error_text"] as? String
        FileHandle.standardError.write(Data("tern: HTTP \(status): \(reason ?? text)\n".utf8))
        exit(ExitCode.refused.rawValue)
    }
}
