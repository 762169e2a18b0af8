import Foundation
import TernProtocol

/// The installation's identity binding: log a person in and out with a durable journal, and read
/// what the server confirmed.
///
/// Each ``login(externalId:)`` and ``logout()`` is written to the SDK's database in call order, then
/// sent (after the requests the app queued before it) until the server confirms it, across restarts
/// and crashes; the server applies each operation once. In `IdentityMode.basic` a login sends the
/// external id, in `IdentityMode.verified` a JWT from the app's backend
/// (``setIdentityTokenProvider(_:)``), in `IdentityMode.auto` (the default) what the project's
/// policy asks. Bad input is an `invalidIdentityRequestData` event; nothing is thrown.
///
/// ```swift
/// Tern.shared.identity.login(externalId: "user-42")   // after the app's own sign-in
/// Tern.shared.identity.logout()                        // on a real sign-out
/// let state = await Tern.shared.identity.identityState // what the server confirmed
/// ```
public struct IdentityAPI: Sendable {
    let core: CoreServices

    /// Queues a login of `externalId`. Events: `identityOperationQueued`, then
    /// `identityLoginConfirmed` (or `identityOperationFailed`, `identityAuthModeChanged`).
    /// After a halted login, a login while bound first queues a logout (the barrier), then the login.
    ///
    /// - Parameter externalId: The person's id in the app: 1 to 256 characters, no control characters.
    public func login(externalId: String) {
        if let problem = IdentityWire.problem(externalId: externalId) {
            core.emit(
                .error(
                    "login", IdentityEvents.invalidIdentityRequestData,
                    value: ["field": "external_id", "reason": problem]))
            return
        }
        core.perform("login") { ready in await IdentityQueue.login(ready, externalId: externalId, source: .identity) }
    }

    /// Queues a logout: the installation becomes anonymous once the server confirms it
    /// (`identityLogoutConfirmed`). Until then ``identityState`` still shows the confirmed binding.
    public func logout() {
        core.perform("logout") { ready in await IdentityQueue.logout(ready, source: .identity) }
    }

    /// The binding the server confirmed, the operations still queued and a halted login (after the
    /// calls made before this read).
    public var identityState: IdentityState {
        get async {
            await core.runtime.mailbox.drained()
            await core.runtime.awaitWrites()
            guard let store = await core.runtime.store else { return IdentityState(pending: []) }
            let pending = ((try? await store.identityOperations()) ?? []).map {
                PendingIdentityOperation(
                    operationId: $0.operationId, kind: $0.kind, externalId: $0.externalId,
                    mode: $0.followsPolicy && $0.policyRevision == nil ? .auto : $0.mode)
            }
            return IdentityState(
                confirmed: await store.setting(IdentityJournal.confirmedKey, as: IdentityBinding.self),
                pending: pending,
                halted: await store.setting(IdentityJournal.haltedKey, as: IdentityHalt.self))
        }
    }

    /// The app's backend for VERIFIED logins' JWTs (nil removes it; the ``JWTInterface`` is asked then).
    ///
    /// - Parameter provider: Asked once per attempt to send a VERIFIED login.
    public func setIdentityTokenProvider(_ provider: (any IdentityTokenProvider)?) {
        core.runtime.mailbox.post(.setup { [runtime = core.runtime] in await runtime.identityTokens.set(provider) })
    }
}

/// Holds the identity token provider.
actor IdentityTokenSource {
    private(set) var provider: (any IdentityTokenProvider)?

    func set(_ provider: (any IdentityTokenProvider)?) {
        self.provider = provider
    }
}

/// Writes logins and logouts to the journal (inside a mailbox letter) and wakes the driver.
enum IdentityQueue {
    static func login(_ ready: ReadyCore, externalId: String, source: JournalOperation.Source) async {
        let function = source == .identity ? "login" : source.function
        guard ready.configuration.rToken != nil else {
            ready.emit(
                .error(
                    function, IdentityEvents.invalidIdentityRequestData,
                    value: [
                        "field": "rToken",
                        "reason": "the identity journal needs the configuration's rToken (setRToken)",
                    ]))
            return
        }
        let mode = ready.configuration.identityMode
        var operations: [JournalOperation] = []
        let halted = await ready.store.setting(IdentityJournal.haltedKey, as: IdentityHalt.self)
        if halted != nil, await isBound(ready) {
            operations.append(operation(.logout, externalId: nil, mode: mode, source: source, ready))
        }
        operations.append(operation(.login, externalId: externalId, mode: mode, source: source, ready))
        await append(operations, ready, function: function, clearHalt: true)
    }

    static func logout(_ ready: ReadyCore, source: JournalOperation.Source) async {
        let function = source == .identity ? "logout" : source.function
        guard ready.configuration.rToken != nil else {
            ready.emit(
                .error(
                    function, IdentityEvents.invalidIdentityRequestData,
                    value: [
                        "field": "rToken",
                        "reason": "the identity journal needs the configuration's rToken (setRToken)",
                    ]))
            return
        }
        await append(
            [operation(.logout, externalId: nil, mode: ready.configuration.identityMode, source: source, ready)], ready,
            function: function, clearHalt: false)
    }

    /// True when the journal's last word is a login: the confirmed binding is bound, or a login is queued last.
    static func isBound(_ ready: ReadyCore) async -> Bool {
        if let last = (try? await ready.store.identityOperations())?.last { return last.kind == .login }
        return await ready.store.setting(IdentityJournal.confirmedKey, as: IdentityBinding.self)?.isBound ?? false
    }

    private static func operation(
        _ kind: IdentityOperationKind, externalId: String?, mode: IdentityMode, source: JournalOperation.Source,
        _ ready: ReadyCore
    ) -> JournalOperation {
        JournalOperation(
            seq: 0, operationId: UUID().uuidString, kind: kind, externalId: externalId, mode: mode,
            followsPolicy: mode == .auto, source: source, outboxWatermark: 0, expectedBindingId: nil,
            policyRevision: nil, attempts: 0, createdAt: ready.now)
    }

    private static func append(
        _ operations: [JournalOperation], _ ready: ReadyCore, function: String, clearHalt: Bool
    ) async {
        // After the requests accepted before this call are on disk: the watermark orders them first.
        await ready.runtime.awaitWrites()
        do {
            try await ready.store.appendIdentity(operations, halted: clearHalt ? .some(nil) : .none)
        } catch {
            ready.emit(.error(function, CoreEvents.databaseError, value: ["reason": "\(error)"]))
            return
        }
        for operation in operations {
            var value: [String: any Sendable] = [
                "operation_id": operation.operationId, "kind": operation.kind.rawValue,
            ]
            if let externalId = operation.externalId { value["external_id"] = externalId }
            ready.emit(.info(function, IdentityEvents.identityOperationQueued, value: value))
        }
        await ready.runtime.identity.wake(ready)
    }
}
