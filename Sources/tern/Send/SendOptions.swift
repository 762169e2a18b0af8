import Foundation

/// `tern send`'s arguments: every message field and audience as flags, some repeatable.
struct SendOptions {
    static let help = """
        usage: tern send MESSAGE AUDIENCE [options]

        Sends a push through the server's management API, shows its progress until every delivery has an
        outcome, then the funnel (sent, delivered, opened, failures by reason).

        Message:
          --title T --subtitle S --body B      the alert's text (an alert needs a title or a body)
          --media URL                          https image, GIF, audio or video for the extension
          --button ID:TITLE:ACTION[:URL]       up to 3; ACTION is open, url (with URL) or dismiss
          --click-url URL                      opened when the notification is tapped
          --category NAME                      the resource's category; devices that turned it off are skipped
          --badge N --sound NAME --thread-id ID
          --custom JSON                        custom data (a JSON object), top-level keys of the payload
          --custom-field KEY=VALUE             one custom key (VALUE as JSON, else a string); repeatable
          --priority 10|5|1 --ttl SECONDS --collapse-id ID
          --push-type alert|background         background: content-available, no text
          --no-track-delivery --no-track-open
          --topic BUNDLE_ID --environment production|sandbox --project ID

        Audience (one):
          --profile ID | --profiles ID,ID,... | --token TOKEN [--provider ios-apns] | --resource ID
        Filters (with any audience):
          --in-resource ID                     only subscriptions of this resource
          --with-category NAME                 the category must be on; repeatable
          --field NAME=VALUE                   a subscription custom field equals VALUE; repeatable
          --tag KEY[=VALUE]                    the tag is set (to VALUE); repeatable

        Output:
          --no-wait                            print the message id and return
          --json                               print the final statistics as JSON
          --interval SECONDS                   how often progress is read (0.5)

        Connection: --url URL --admin-key-file FILE, or TERN_URL / TERN_ADMIN_KEY, or --data DIR (bootstrap.json).
        Prefer the file or the environment for the key: --admin-key KEY works too, but shows in ps.
        """

    static let switches: Set<String> = ["--no-wait", "--json", "--no-track-delivery", "--no-track-open", "--help"]
    static let repeatable: Set<String> = ["--button", "--custom-field", "--with-category", "--field", "--tag"]

    var message: [String: Any] = [:]
    var wait = true
    var json = false
    var interval: Double = 0.5
    /// `--url`, `--admin-key`, `--data` for ``AdminClient``.
    var connection: [String] = []

    init(_ arguments: [String]) throws {
        var values: [String: [String]] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else {
                throw CommandError("unexpected argument \(argument); see tern send --help")
            }
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            if Self.switches.contains(name) {
                values[name, default: []].append(value ?? "true")
            } else {
                if value == nil {
                    index += 1
                    guard index < arguments.count else { throw CommandError("\(name) needs a value") }
                    value = arguments[index]
                }
                if !Self.repeatable.contains(name), values[name] != nil {
                    throw CommandError("\(name) is given twice")
                }
                values[name, default: []].append(value ?? "")
            }
            index += 1
        }
        for name in ["--url", "--admin-key", "--admin-key-file", "--data"] {
            if let value = values.removeValue(forKey: name)?.last { connection += [name, value] }
        }
        wait = values.removeValue(forKey: "--no-wait") == nil
        json = values.removeValue(forKey: "--json") != nil
        if let text = values.removeValue(forKey: "--interval")?.last {
            guard let seconds = Double(text), seconds > 0, seconds <= 60 else {
                throw CommandError("--interval must be seconds between 0 and 60, not \(text)")
            }
            interval = seconds
        }
        var reader = Reader(values: values)
        message = try Self.message(&reader)
        guard reader.values.isEmpty else {
            throw CommandError(
                "unknown option \(reader.values.keys.sorted().joined(separator: ", ")); see tern send --help")
        }
    }

    struct Reader {
        var values: [String: [String]]

        mutating func one(_ name: String) -> String? { values.removeValue(forKey: name)?.last }
        mutating func all(_ name: String) -> [String] { values.removeValue(forKey: name) ?? [] }

        mutating func integer(_ name: String) throws -> Int? {
            guard let text = one(name) else { return nil }
            guard let value = Int(text) else { throw CommandError("\(name) must be an integer, not \(text)") }
            return value
        }
    }

    static func message(_ reader: inout Reader) throws -> [String: Any] {
        var message: [String: Any] = [:]
        for (flag, key) in [
            ("--title", "title"), ("--subtitle", "subtitle"), ("--body", "body"), ("--media", "media_url"),
            ("--click-url", "click_url"), ("--category", "category"), ("--sound", "sound"),
            ("--thread-id", "thread_id"), ("--collapse-id", "collapse_id"), ("--push-type", "push_type"),
            ("--topic", "topic"), ("--environment", "environment"),
        ] {
            if let value = reader.one(flag) { message[key] = value }
        }
        for (flag, key) in [
            ("--badge", "badge"), ("--priority", "priority"), ("--ttl", "time_to_live"), ("--project", "project_id"),
        ] {
            if let value = try reader.integer(flag) { message[key] = value }
        }
        if reader.one("--no-track-delivery") != nil { message["track_delivery"] = false }
        if reader.one("--no-track-open") != nil { message["track_open"] = false }
        let buttons = try reader.all("--button").map(button)
        if !buttons.isEmpty { message["buttons"] = buttons }
        var custom: [String: Any] = [:]
        if let text = reader.one("--custom") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw CommandError("--custom must be a JSON object, like '{\"order_id\": \"A-1\"}'")
            }
            custom = object
        }
        for pair in reader.all("--custom-field") {
            let (key, value) = try keyValue(pair, "--custom-field")
            custom[key] = value
        }
        if !custom.isEmpty { message["data"] = custom }
        message["audience"] = try audience(&reader)
        return message
    }

    static func audience(_ reader: inout Reader) throws -> [String: Any] {
        var audience: [String: Any] = [:]
        var kinds: [String] = []
        if let id = reader.one("--profile") {
            audience = ["type": "profile", "profile_id": id]
            kinds.append("--profile")
        }
        if let ids = reader.one("--profiles") {
            audience = ["type": "profiles", "profile_ids": ids.split(separator: ",").map(String.init)]
            kinds.append("--profiles")
        }
        if let token = reader.one("--token") {
            audience = ["type": "token", "token": token, "provider": reader.one("--provider") ?? "ios-apns"]
            kinds.append("--token")
        }
        if let resource = try reader.integer("--resource") {
            audience = ["type": "resource", "resource_id": resource]
            kinds.append("--resource")
        }
        guard kinds.count == 1 else {
            throw CommandError(
                kinds.isEmpty
                    ? "say who gets it: --profile, --profiles, --token or --resource"
                    : "pick one audience, not \(kinds.joined(separator: " and "))")
        }
        if let resource = try reader.integer("--in-resource") { audience["resource_id"] = resource }
        let categories = reader.all("--with-category")
        if !categories.isEmpty { audience["categories"] = categories }
        var fields: [String: Any] = [:]
        for pair in reader.all("--field") {
            let (key, value) = try keyValue(pair, "--field")
            fields[key] = value
        }
        if !fields.isEmpty { audience["fields"] = fields }
        var tags: [String: Any] = [:]
        for pair in reader.all("--tag") {
            if let equals = pair.firstIndex(of: "=") {
                tags[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            } else {
                tags[pair] = NSNull()
            }
        }
        if !tags.isEmpty { audience["tags"] = tags }
        return audience
    }

    /// `ID:TITLE:ACTION[:URL]`.
    static func button(_ text: String) throws -> [String: Any] {
        let parts = text.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3 else {
            throw CommandError("--button \(text) should be ID:TITLE:ACTION[:URL], e.g. shop:Shop now:url:https://…")
        }
        var button: [String: Any] = ["id": parts[0], "title": parts[1], "action": parts[2]]
        if parts.count == 4 { button["url"] = parts[3] }
        return button
    }

    /// `KEY=VALUE`, VALUE read as JSON when it is JSON, else as a string.
    static func keyValue(_ text: String, _ flag: String) throws -> (String, Any) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw CommandError("\(flag) \(text) should be NAME=VALUE")
        }
        let raw = String(text[text.index(after: equals)...])
        let value =
            (try? JSONSerialization.jsonObject(with: Data(raw.utf8), options: [.fragmentsAllowed])) ?? raw
        return (String(text[..<equals]), value)
    }
}
