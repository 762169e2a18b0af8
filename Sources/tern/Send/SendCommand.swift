import Foundation
import TernProtocol
import TernServer

/// `tern send`: creates a message through the management API, shows its progress until every
/// delivery has an outcome (unless `--no-wait`), then prints the funnel.
enum SendCommand {
    static func run(_ arguments: [String]) async {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(SendOptions.spec.help)
            return
        }
        await Usage.run {
            let options = try SendOptions(arguments)
            let client = try AdminClient.resolve(options.arguments)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let created = try object(try await create(client, body: try encoder.encode(options.message)))
            guard let id = created["id"] as? String else {
                throw CommandError("the server answered no message id", exitCode: .refused)
            }
            say("message \(id)")
            if let sendAt = created["send_at"] as? Int {
                say("scheduled for \(Date(timeIntervalSince1970: Double(sendAt) / 1000).formatted(.iso8601))")
                return
            }
            if let trigger = options.message.trigger {
                // A standing message has no end to watch for.
                let again =
                    trigger.reentryAfterMinutes.map { ", again \($0) minutes after it last went to them," } ?? ""
                let who =
                    switch trigger.eventName {
                    case MessageTrigger.subscribed: "whose device subscribes"
                    case MessageTrigger.tagSet:
                        "whose device's tag \(trigger.tag ?? "")"
                            + (trigger.tagValue.map { " is set to \($0)" } ?? " takes a new value")
                    case MessageTrigger.fieldSet:
                        "whose profile field \(trigger.field ?? "")"
                            + (trigger.fieldValue.map { " is set to \(Self.text($0))" } ?? " takes a new value")
                    case MessageTrigger.inAppClicked:
                        "who taps "
                            + (trigger.button.map { "the button \($0) of" } ?? "a button of")
                            + " in-app campaign \(trigger.campaignId ?? "")"
                    case MessageTrigger.inAppShown: "who sees in-app campaign \(trigger.campaignId ?? "")"
                    default: "who reaches the goal \(trigger.eventName)"
                    }
                say(
                    "sent to each person \(who)\(again) until tern messages cancel \(id); tern messages stats \(id) "
                        + "counts them")
                return
            }
            guard options.wait else { return }
            if let spread = Self.spread(options.message) {
                say("\(spread): stopping this watch leaves it sending (tern messages cancel \(id) stops it)")
            }
            let progress = ProgressLine(interactive: isatty(STDOUT_FILENO) == 1)
            while true {
                let message = try await call(client, "GET", "/messages/\(id)")
                let counts = try JSONDecoder().decode(
                    DeliveryCounts.self, from: JSONSerialization.data(withJSONObject: message["counts"] ?? [:]))
                progress.show(Funnel.bar(counts, fanningOut: message["fan_out_done"] as? Bool == false))
                if message["done"] as? Bool == true { break }
                try await Task.sleep(for: .milliseconds(Int(options.interval * 1000)))
            }
            progress.finish()
            let statsBody = try await client.send("GET", "/messages/\(id)/stats")
            _ = try object(statsBody)
            if options.json {
                say(String(decoding: statsBody.1, as: UTF8.self))
            } else {
                say(Funnel.table(try JSONDecoder().decode(MessageStats.self, from: statsBody.1)))
            }
        }
    }

    /// How a message's deliveries are spread over time, in a few words; nil for one sent at once.
    static func spread(_ message: MessageRequest) -> String? {
        if let rate = message.throttlePerMinute { return "throttled to \(rate) a minute" }
        if let local = message.localTimeOfDay { return "each device gets it at \(local) on its own clock" }
        if let quiet = message.quietHours {
            return "devices in their quiet hours (\(quiet.from)-\(quiet.to)) get it after"
        }
        return nil
    }

    /// Creates the message with an idempotency key, retrying a few times when the server cannot be
    /// reached or is busy: a retry of a request that did arrive answers the same message.
    static func create(_ client: AdminClient, body: Data) async throws -> (Int, Data) {
        let headers = ["Idempotency-Key": UUID().uuidString]
        var attempt = 0
        while true {
            attempt += 1
            do {
                let answer = try await client.send("POST", "/messages", body: body, headers: headers)
                if answer.0 != 503 || attempt >= 5 { return answer }
            } catch let error as CommandError {
                guard attempt < 5 else { throw error }
                FileHandle.standardError.write(Data("tern: \(error.reason); trying again\n".utf8))
            }
            try await Task.sleep(for: .seconds(attempt))
        }
    }

    /// One management call; a failure is a ``CommandError`` with the server's reason.
    static func call(_ client: AdminClient, _ method: String, _ path: String, body: Data? = nil) async throws
        -> [String: Any]
    {
        try object(try await client.send(method, path, body: body))
    }

    /// The answer's JSON object; an error answer is a ``CommandError`` with the server's reason.
    static func object(_ answer: (Int, Data)) throws(CommandError) -> [String: Any] {
        let (status, data) = answer
        let json = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        guard (200..<300).contains(status) else {
            let reason = json["error_text"] as? String ?? String(decoding: data, as: UTF8.self)
            throw CommandError("HTTP \(status): \(reason)", exitCode: .refused)
        }
        return json
    }

    /// A field's value as a person reads it: a string as it is, any other value as JSON.
    static func text(_ value: JSONValue) -> String {
        value.stringValue
            ?? (try? JSONEncoder().encode(value)).flatMap { String(data: $0, encoding: .utf8) } ?? "\(value)"
    }

    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

/// Redraws one line on a terminal; elsewhere prints a line whenever it changes.
final class ProgressLine {
    let interactive: Bool
    private var last = ""

    init(interactive: Bool) { self.interactive = interactive }

    func show(_ text: String) {
        guard text != last else { return }
        last = text
        FileHandle.standardOutput.write(Data((interactive ? "\r\u{1B}[K" + text : text + "\n").utf8))
    }

    func finish() {
        if interactive { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }
}
