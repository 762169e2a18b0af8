import Foundation
import TernCore
import TernHTTP
import TernPush

/// Outbox entries as modules write them.
enum Entries {
    static func ordered(_ n: Int, function: String = "subscribe") -> OutboxEntry {
        OutboxEntry(
            endpoint: .pushSubscribe, lane: .ordered, body: Data("{\"n\":\(n)}".utf8),
            meta: OutboxMeta(
                function: function, success: PushModuleEvents.pushSubscribeRequestSuccessful,
                failure: PushModuleEvents.pushSubscribeRequestFailed))
    }

    static func event(_ id: String) -> OutboxEntry {
        OutboxEntry(
            endpoint: .eventPush, lane: .events,
            body: Data("{\"message_id\":\"\(id)\",\"type\":\"delivery\",\"time\":1}".utf8),
            meta: OutboxMeta(
                function: "deliveryEvent", success: PushModuleEvents.pushEventRequestSuccessful,
                failure: PushModuleEvents.pushEventRequestFailed))
    }

    /// The `n` of an ordered request's body.
    static func number(_ request: HTTPRequest) -> Int? {
        (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["n"] as? Int
    }

    /// The message ids of an events request's body.
    static func messageIds(_ request: HTTPRequest) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
            let events = object["events"] as? [[String: Any]]
        else { return [] }
        return events.compactMap { $0["message_id"] as? String }
    }
}

extension Tern {
    /// Writes entries through the module API, in call order.
    func enqueueForTest(_ entries: [OutboxEntry]) {
        for entry in entries {
            core.perform(entry.meta.function) { ready in await ready.enqueue(entry) }
        }
    }
}
