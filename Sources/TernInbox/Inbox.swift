import Foundation
@_exported import TernCore
@_exported import TernProtocol

extension Tern {
    /// The signed-in person's inbox: the same messages on every device of theirs, cached in the SDK's
    /// database so it shows offline.
    ///
    /// ```swift
    /// for await snapshot in Tern.shared.inbox.updates() {
    ///     print(snapshot.unread, snapshot.messages.map(\.title))
    /// }
    /// Tern.shared.inbox.markRead(id: message.id)
    /// ```
    public var inbox: Inbox {
        core.register(InboxModule(core: core))
        return Inbox(core: core)
    }
}

/// `Tern.shared.inbox`. Synced when the SDK initializes for a signed-in person, each time the app
/// comes to the foreground (a session starts), on a push that says the inbox changed (TernPush
/// hands every Tern push it shows in the foreground or sees tapped to the inbox by itself;
/// ``handleNotification(_:)`` is for pushes the app handles elsewhere), and on demand (``sync()``). Reads and deletes show at once and go
/// through the SDK's durable outbox, so they reach the server once even if the app is killed.
public struct Inbox: Sendable {
    let core: CoreServices

    /// The payload key a push carries when the person's inbox changed (`"tern_inbox": true`).
    public static let pushKey = "tern_inbox"

    static let notReady =
        "the SDK is not initialized (call Tern.initialization first; an unusable configuration is reported as configIsNotSet)"

    /// The cached inbox (no network), with every read and delete called before it applied.
    public func snapshot() async -> InboxSnapshot {
        // Through the mailbox (readyCore), so that it comes after the calls made before it.
        guard let ready = await core.readyCore("inbox", timeout: 10) else { return .empty }
        return await InboxState.shared(core).snapshot(ready.store, now: Self.now(ready))
    }

    /// The cached messages, newest first.
    public func messages() async -> [InboxMessage] { await snapshot().messages }

    /// The unread count of the cached inbox.
    public func unreadCount() async -> Int { await snapshot().unread }

    /// Every change of the inbox from now on (the current one first, once known).
    public func updates() -> AsyncStream<InboxSnapshot> {
        let core = core
        let (stream, continuation) = AsyncStream.makeStream(
            of: InboxSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            for await snapshot in await InboxState.shared(core).stream() { continuation.yield(snapshot) }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Calls `callback` with every change of the inbox (off the main thread) until the observation is cancelled.
    @discardableResult
    public func observe(_ callback: @escaping @Sendable (InboxSnapshot) -> Void) -> InboxObservation {
        let id = UUID()
        let core = core
        Task { await InboxState.shared(core).addCallback(id, callback) }
        return InboxObservation { Task { await InboxState.shared(core).removeCallback(id) } }
    }

    /// Fetches what changed since the last sync and returns the inbox. Events:
    /// `syncInboxRequestSuccessful` or `syncInboxRequestFailed` (the cache is kept as it was).
    @discardableResult
    public func sync() async throws -> InboxSnapshot {
        guard let ready = await core.readyCore("sync", timeout: 30) else {
            throw DirectReadError(httpCode: nil, reason: Self.notReady)
        }
        return try await InboxSync.run(ready, state: await state())
    }

    /// ``sync()`` with a completion on the main queue.
    public func sync(completion: @escaping @Sendable (Result<InboxSnapshot, any Error>) -> Void) {
        Task {
            let result: Result<InboxSnapshot, any Error>
            do { result = .success(try await sync()) } catch { result = .failure(error) }
            DispatchQueue.main.async { completion(result) }
        }
    }

    /// Syncs when `userInfo` is a push that says the inbox changed; returns whether it did. Pushes
    /// that TernPush's notification manager handles (`willPresent`, `didReceive`) reach the inbox
    /// without this call; use it for pushes the app receives elsewhere (its own notification-center
    /// delegate, `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`).
    ///
    /// - Parameter userInfo: The push's payload.
    /// - Returns: True when the push carries the inbox's change marker and a sync was started.
    @discardableResult
    public func handleNotification(_ userInfo: [AnyHashable: Any]) -> Bool {
        guard Self.carriesInboxChange(userInfo) else { return false }
        let inbox = self
        Task { try? await inbox.sync() }
        return true
    }

    /// True when a push payload says the inbox changed.
    public static func carriesInboxChange(_ userInfo: [AnyHashable: Any]) -> Bool {
        if let flag = userInfo[pushKey] as? Bool { return flag }
        if let flag = userInfo[pushKey] as? Int { return flag != 0 }
        return false
    }

    /// ``carriesInboxChange(_:)`` for a payload as JSON (what TernPush hands the modules).
    static func carriesInboxChange(_ payload: [String: JSONValue]) -> Bool {
        switch payload[pushKey] {
        case .bool(let flag)?: flag
        case .int(let value)?: value != 0
        case .double(let value)?: value != 0
        default: false
        }
    }

    /// Marks the message read on every device of the person: at once here, then through the outbox.
    /// Events: `markReadRequestSuccessful` or `markReadRequestFailed` (e.g. 404 for an id not in the
    /// person's inbox); refused at once (`invalidInboxRequestData`) for an empty or too long id.
    @discardableResult
    public func markRead(id: String) -> QueuedRequest {
        change("markRead", id, .inboxRead, InboxEvents.markReadRequestSuccessful, InboxEvents.markReadRequestFailed) {
            $0.pendingRead.insert(id)
        }
    }

    /// Deletes the message from every device of the person: at once here, then through the outbox.
    /// Events: `deleteRequestSuccessful` or `deleteRequestFailed`; refused at once like ``markRead(id:)``.
    @discardableResult
    public func delete(id: String) -> QueuedRequest {
        change("delete", id, .inboxDelete, InboxEvents.deleteRequestSuccessful, InboxEvents.deleteRequestFailed) {
            $0.pendingDelete.insert(id)
        }
    }

    private func change(
        _ function: String, _ id: String, _ endpoint: Endpoint, _ success: InboxEvents, _ failure: InboxEvents,
        _ overlay: @escaping @Sendable (inout InboxCache) -> Void
    ) -> QueuedRequest {
        if let problem = InboxLimits.problem(id: id) {
            core.emit(.error(function, InboxEvents.invalidInboxRequestData, value: ["reason": problem]))
            return .rejected(problem)
        }
        let requestId = RequestKey.make()
        let core = core
        core.perform(function, requestId: requestId) { ready in
            guard let body = try? JSONEncoder().encode(InboxMessageRequest(id: id)) else { return }
            let entry = OutboxEntry(
                endpoint: endpoint, lane: .ordered, body: body,
                meta: OutboxMeta(function: function, success: success, failure: failure, includeProfile: false),
                idempotencyKey: requestId)
            let state = await InboxState.shared(core)
            let accepted = await ready.enqueue(entry) { response in
                // Refused (e.g. 404): the overlay goes; the next sync shows the server's state.
                guard let code = response?.httpCode, (400..<500).contains(code) else { return }
                Task {
                    try? await state.update(ready.store, now: Inbox.now(ready)) {
                        $0.pendingRead.remove(id)
                        $0.pendingDelete.remove(id)
                    }
                }
            }
            guard accepted else { return }
            do {
                try await state.update(ready.store, now: Self.now(ready), overlay)
            } catch {
                ready.emit(.error(function, CoreEvents.databaseError, value: ["reason": "\(error)"]))
            }
        }
        return QueuedRequest(id: requestId, state: .queued)
    }

    private func state() async -> InboxState { await InboxState.shared(core) }

    static func now(_ ready: ReadyCore) -> Int64 { Int64(ready.now.timeIntervalSince1970 * 1000) }
}

/// An observation made by ``Inbox/observe(_:)``; ``cancel()`` stops it.
public final class InboxObservation: Sendable {
    private let stop: @Sendable () -> Void

    init(stop: @escaping @Sendable () -> Void) { self.stop = stop }

    /// Stops the callbacks.
    public func cancel() { stop() }
}

/// One sync: pages of `inbox/list` from the cached cursor until nothing more, each applied and saved.
enum InboxSync {
    static func run(_ ready: ReadyCore, state: InboxState) async throws -> InboxSnapshot {
        try await state.sync {
            do {
                var more = true
                var pages = 0
                while more, pages < 20 {
                    pages += 1
                    let cursor = await state.load(ready.store).cursor
                    let body = try JSONEncoder().encode(InboxListRequest(cursor: cursor))
                    let data = try await ready.read(.inboxList, body: body)
                    let answer = try JSONDecoder().decode(InboxListAnswer.self, from: data)
                    try await state.update(ready.store, now: Inbox.now(ready)) { $0.apply(answer) }
                    more = answer.more
                }
                let snapshot = await state.snapshot(ready.store, now: Inbox.now(ready))
                ready.emit(
                    .info(
                        "syncInbox", InboxEvents.syncInboxRequestSuccessful,
                        value: ["http_code": 200, "unread": snapshot.unread, "count": snapshot.messages.count]))
                return snapshot
            } catch let error as DirectReadError {
                var value: [String: any Sendable] = ["reason": error.reason]
                if let code = error.httpCode {
                    value["http_code"] = code
                    value["error_text"] = error.reason
                }
                ready.emit(.error("syncInbox", InboxEvents.syncInboxRequestFailed, value: value))
                throw error
            } catch {
                ready.emit(.error("syncInbox", InboxEvents.syncInboxRequestFailed, value: ["reason": "\(error)"]))
                throw error
            }
        }
    }
}

/// The inbox as the core initializes and clears it: it keeps the ready core, syncs for a
/// signed-in person and at each session start, and forgets the cache when the person changes.
struct InboxModule: TernModule {
    let core: CoreServices
    var moduleName: String { "inbox" }
    var parts: ModuleParts {
        let core = core
        return ModuleParts(
            events: InboxEvents.allCases,
            handlePush: { payload, ready in
                // A push that says the inbox changed (TernPush hands over every Tern push it gets).
                guard Inbox.carriesInboxChange(payload), await ready.auth.hasProvider else { return }
                let state = await InboxState.shared(core)
                Task { _ = try? await InboxSync.run(ready, state: state) }
            })
    }

    func initialize(_ ready: ReadyCore) async throws {
        let state = await InboxState.shared(core)
        let lifecycle = core.environment.lifecycle
        let task = Task {
            // A session starts when the app comes back to the foreground; the state the app was in
            // when observing began (the launch) is initialization's own sync below.
            var previous: AppState?
            for await appState in await lifecycle.states() {
                defer { previous = appState }
                guard appState == .foreground, let previous, previous != .foreground else { continue }
                if await ready.auth.hasProvider { _ = try? await InboxSync.run(ready, state: state) }
            }
        }
        await state.setLifecycleTask(task)
        if await ready.auth.hasProvider {
            Task { _ = try? await InboxSync.run(ready, state: state) }
        }
    }

    func clear(_ ready: ReadyCore) async {
        await InboxState.shared(core).reset(ready.store)
    }

    func authenticationChanged(_ ready: ReadyCore, signedIn: Bool) async {
        let state = await InboxState.shared(core)
        await state.reset(ready.store)
        if signedIn { Task { _ = try? await InboxSync.run(ready, state: state) } }
    }
}

/// Found by name when the SDK initializes (`TernModuleEntry`).
public enum TernModuleEntryPoint: TernModuleEntry {
    /// The inbox module for this SDK instance.
    public static func module(_ core: CoreServices) -> any TernModule {
        InboxModule(core: core)
    }
}
