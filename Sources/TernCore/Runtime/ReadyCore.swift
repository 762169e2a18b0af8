import Foundation
import TernProtocol

/// The core as a command sees it once the SDK is initialized: the configuration in force, the
/// database, the outbox. Public for Tern's modules; apps never need it.
public struct ReadyCore: Sendable {
    /// The configuration in force (validated).
    public let configuration: TernConfiguration
    /// The SDK's database.
    public let store: CoreStore
    let runtime: CoreRuntime

    /// Puts a request in the outbox: it is written in call order, in a group commit with the
    /// requests around it, and the sender is woken. Returns false (after raising
    /// `collectionDisabled` or `configIsNotSet` for the entry's function) when it was not accepted;
    /// a failed write raises `databaseError` and answers `completion` with nil.
    ///
    /// - Parameters:
    ///   - entry: the request.
    ///   - completion: called with the server's answer (nil when there was none) on the main queue.
    @discardableResult
    public func enqueue(
        _ entry: OutboxEntry,
        completion: (@Sendable (ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>?) -> Void)? = nil
    ) async -> Bool {
        await runtime.enqueue([entry], journal: [:], completion: completion)
    }

    /// Puts several requests in the outbox in one transaction, with `journal` settings saved in the
    /// same transaction (read them back with ``setting(_:)``). With `waitUntilWritten`, returns once
    /// they are on disk (false when the write failed).
    @discardableResult
    public func enqueue(
        _ entries: [OutboxEntry], journal: [String: JSONValue] = [:], waitUntilWritten: Bool = false
    ) async -> Bool {
        await runtime.enqueue(entries, journal: journal, waitUntilWritten: waitUntilWritten, completion: nil)
    }

    /// A setting saved by ``enqueue(_:journal:waitUntilWritten:)`` or ``setSetting(_:_:)`` (after the
    /// requests accepted before the call are written, so a journal is read back as it was queued).
    public func setting(_ key: String) async -> JSONValue? {
        await runtime.awaitWrites()
        return await store.setting(key, as: JSONValue.self)
    }

    /// Posts a follow-up the SDK makes on its own (after a server's answer, a provider's token) to
    /// the mailbox: it runs after every call the app made before it was posted, in order with those
    /// made after. Never from inside a command: a command waiting for a letter posted after it waits forever.
    public func post(_ function: String, _ body: @escaping @Sendable (ReadyCore) async -> Void) {
        runtime.mailbox.post(.command(function, body))
    }

    /// ``post(_:_:)``, returning once `body` has run, or at once should the SDK shut down first (the
    /// letter is dropped with the mailbox, and the stream ends with it).
    public func followUp(_ function: String, _ body: @escaping @Sendable (ReadyCore) async -> Void) async {
        for await _ in runtime.mailbox.postCommand(function, body) {}
    }

    /// Reports `.failed(reason:)` to ``Tern/syncStates()`` for a request a module refused after its
    /// public call had returned it as `.queued` (a JWT-only call without a JWT provider): nothing
    /// was queued, and an app waiting for the request's end learns it instead of waiting forever.
    ///
    /// ```swift
    /// guard await ready.auth.hasProvider else {
    ///     await ready.refuse(requestId: requestId, reason: "needs JWT authorization")
    ///     return
    /// }
    /// ```
    public func refuse(requestId: String, reason: String) async {
        await runtime.syncStates.fail(requestId, reason: reason)
    }

    /// Saves a module's setting (nil removes it).
    public func setSetting(_ key: String, _ value: JSONValue?) async throws {
        try await store.setSetting(key, value)
    }

    /// The subscription's automatic fields: device info, app info and sessions.
    public func automaticFields() async -> [String: JSONValue] {
        await runtime.automaticFields()
    }

    /// The device's push token, nil when none is set (kept in memory after the first read).
    public func token() async -> TokenData? {
        await runtime.token()
    }

    /// The device's token and the subscription's automatic fields, in one step into the core.
    public func tokenAndAutomaticFields() async -> (token: TokenData?, fields: [String: JSONValue]) {
        await runtime.tokenAndAutomaticFields()
    }

    /// Saves the device's push token (nil removes it) and wakes requests waiting for one.
    public func setToken(_ token: TokenData?) async throws {
        try await runtime.setToken(token)
    }

    /// True while the user allows collection.
    public func collectionEnabled() async -> Bool {
        await runtime.collectionEnabled
    }

    /// Emits an event.
    public func emit(_ record: EventRecord) {
        runtime.bus.emit(record)
    }

    /// Runs `work` on the main queue after the events emitted before it (for completions).
    public func onMain(_ work: @escaping @Sendable () -> Void) {
        runtime.bus.onMain(work)
    }

    /// The authentication state: true after a successful `authenticate()` until `logOut()`.
    public func isAuthenticated() async -> Bool {
        await store.setting(CoreRuntime.authenticatedKey, as: Bool.self) ?? false
    }

    /// The JWT provider and rToken, for modules that need credentials themselves.
    public var auth: AuthSource { runtime.auth }

    /// The current time, from the environment's clock.
    public var now: Date { runtime.environment.clock.now() }
}
