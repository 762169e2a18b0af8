import Foundation
import TernCore
import TernProtocol

/// What a test needs of one SDK event, copied out on the main queue so it can cross to the test's task.
struct SeenEvent: Sendable {
    let name: String
    let isError: Bool
    let isRetry: Bool
    let valueKeys: Set<String>
    let httpCode: Int?
    let error: Int?
    let errorText: String?
    let profile: ProfileData?

    init(_ event: Event) {
        name = event.event?.name ?? ""
        isError = event is ErrorEvent
        isRetry = event is RetryEvent
        let value = event.value ?? [:]
        valueKeys = Set(value.keys)
        httpCode = value["http_code"] as? Int
        error = value["error"] as? Int
        errorText = value["error_text"] as? String
        profile = value["profile"] as? ProfileData
    }
}

/// The SDK's events as an async sequence, for tests that wait for one of them.
final class SDKEventStream: Sendable {
    let events: AsyncStream<SeenEvent>
    private let continuation: AsyncStream<SeenEvent>.Continuation
    /// Every event's name and function, in order (for failure messages).
    let log = Log()

    actor Log {
        private(set) var lines: [String] = []
        func add(_ line: String) { lines.append(line) }
    }

    init(_ tern: Tern) {
        (events, continuation) = AsyncStream.makeStream(of: SeenEvent.self)
        let continuation = continuation
        let log = log
        tern.eventSDKFunctions.subscribe { event in
            let seen = SeenEvent(event)
            continuation.yield(seen)
            Task { await log.add("\(event.function).\(seen.name)") }
        }
    }

    /// The next event named `name`, or nil when none comes within `timeout` seconds.
    func next(_ name: String, timeout: TimeInterval = 30) async -> SeenEvent? {
        let events = events
        return await withTaskGroup(of: SeenEvent?.self) { group in
            group.addTask {
                for await event in events where event.name == name { return event }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
