import Foundation
import TernCore
import TernInbox
import TernProfile
import TernServer

/// `tern device` commands of the inbox, preferences and topics: each write is queued in the device's
/// outbox (and sent by the run, or by a later one after a crash).
extension SimulatedDevice {
    static let inboxCommands: Set<String> = [
        "inbox-read", "inbox-delete", "inbox-sync", "preference", "follow", "unfollow",
    ]

    func performInbox(_ command: String, _ arguments: Arguments) async throws {
        let value = arguments.positionals.dropFirst().first ?? ""
        switch command {
        case "inbox-read": try await queued(command) { $0.inbox.markRead(id: value) }
        case "inbox-delete": try await queued(command) { $0.inbox.delete(id: value) }
        case "inbox-sync":
            let snapshot = try await tern.inbox.sync()
            Self.output(["messages": snapshot.messages.map(\.id), "unread": snapshot.unread])
        case "preference":
            // CHANNEL.CATEGORY=on|off
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            let key = (parts.first ?? "").split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, key.count == 2, ["on", "off"].contains(parts[1]) else {
                throw CommandError("preference takes CHANNEL.CATEGORY=on|off, e.g. push.marketing=off")
            }
            try await queued(command) { try await $0.profile.setPreferences([key[0]: [key[1]: parts[1] == "on"]]) }
        case "follow": try await queued(command) { try await $0.profile.follow(topic: value) }
        case "unfollow": try await queued(command) { try await $0.profile.unfollow(topic: value) }
        default: throw CommandError("unknown device command \(command)")
        }
    }

    /// Starts a write and returns once it is in the outbox (the run then sends it as any other),
    /// printing `{"queued": COMMAND}`.
    private func queued(_ command: String, _ write: @escaping @Sendable (Tern) async throws -> Void) async throws {
        let before = await tern.outboxStatistics()?.enqueuedTotal ?? 0
        let tern = tern
        Task {
            do { try await write(tern) } catch { Self.output(["error": "\(error)"]) }
        }
        for _ in 0..<200 {
            if (await tern.outboxStatistics()?.enqueuedTotal ?? 0) > before {
                Self.output(["queued": command])
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CommandError("the write was not queued within 10 s")
    }
}
