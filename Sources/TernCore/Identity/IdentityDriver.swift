import Foundation
import TernProtocol

/// Sends the identity journal's operations one at a time, oldest first, until the server confirms
/// each: a network failure, 408, 429 or 5xx is retried with backoff and no deadline; a 409 is
/// reconciled (the binding and policy are read, then the operation is confirmed, sent again with
/// what it now expects, or halted); another refusal removes the operation with an error event. What
/// the app sees change (the confirmed binding, the journal, events, modules' per-person data) changes
/// in a letter of the core's mailbox, in order with the app's calls.
actor IdentityDriver {
    private var running = false
    private var wakeAgain = false
    private var stopped = false
    private var timer: Task<Void, Never>?
    private var conflicts: [Int64: Int] = [:]
    /// Failed attempts of each operation in this run, for the backoff.
    private var failures: [Int64: Int] = [:]
    /// A 409 answered more often than this for one operation waits like a failure before the next try.
    static let maxConflictsInARow = 5

    /// What one step decided.
    enum Step: Sendable {
        /// The head is done (confirmed, refused or halted): take the next one.
        case next
        /// Try the head again after this many seconds (or sooner, when woken).
        case wait(TimeInterval)
        /// Nothing to do until woken.
        case idle
    }

    /// Starts a pass over the journal unless one is running (then it goes round once more).
    func wake(_ ready: ReadyCore) {
        guard !stopped else { return }
        if running {
            wakeAgain = true
            return
        }
        running = true
        timer?.cancel()
        timer = nil
        Task { await self.run(ready) }
    }

    func stop() {
        stopped = true
        timer?.cancel()
        timer = nil
    }

    /// Forgets what it knew about the journal (after `clear()`).
    func reset() {
        conflicts = [:]
        failures = [:]
    }

    private func run(_ ready: ReadyCore) async {
        var last = Step.idle
        repeat {
            wakeAgain = false
            last = await drain(ready)
        } while wakeAgain && !stopped
        running = false
        if case .wait(let seconds) = last, !stopped {
            let clock = ready.runtime.environment.clock
            timer = Task { [weak self] in
                guard (try? await clock.sleep(seconds: seconds)) != nil else { return }
                await self?.wake(ready)
            }
        }
    }

    private func drain(_ ready: ReadyCore) async -> Step {
        while !stopped {
            guard let head = (try? await ready.store.identityOperations())?.first else { return .idle }
            let step = await attempt(head, ready)
            if case .wait(let seconds) = step, seconds <= 0 { continue }
            guard case .next = step else { return step }
            conflicts[head.seq] = nil
            failures[head.seq] = nil
        }
        return .idle
    }

    // MARK: One attempt

    private func attempt(_ original: JournalOperation, _ ready: ReadyCore) async -> Step {
        var head = original
        let client = IdentityClient(ready: ready)
        guard ready.configuration.rToken != nil else {
            return await fail(
                head, ready, status: nil, code: IdentityWire.invalidRequest, field: "rToken",
                reason:
                    "the identity journal needs the configuration's rToken (setRToken): it names the installation's resource"
            )
        }
        guard let installation = await ready.token() else { return .wait(1) }
        // The requests the app made before this operation go first (a subscribe before a login).
        if let queued = try? await ready.store.orderedRows(upTo: head.outboxWatermark), queued > 0 { return .wait(0.2) }
        // A login is queued in the configured mode: another mode means the configuration changed since
        // (a restart, a new initialization).
        let configured = ready.configuration.identityMode
        if head.kind == .login, head.followsPolicy ? configured != .auto : head.mode != configured {
            return await reconcileThenHalt(head, ready, client, installation, toMode: configured)
        }
        if head.followsPolicy, head.kind == .login, head.policyRevision == nil {
            switch await client.policy(installation) {
            case .answer(let status, let answer?, _) where (200..<300).contains(status):
                guard let binding = answer.binding, let policy = answer.policy, policy.mode != .auto else {
                    // A malformed policy never means BASIC.
                    return await retryLater(
                        head, ready, status: status, reason: "identity/policy answered without a policy")
                }
                if binding.operationId == head.operationId { return await confirm(head, binding, ready) }
                head.mode = policy.mode
                head.policyRevision = policy.revision
                head.expectedBindingId = binding.bindingId
            case .answer(let status, let answer, let retryAfter):
                return await answered(head, ready, status: status, answer, retryAfter: retryAfter)
            case .network(let reason):
                return await retryLater(head, ready, status: nil, reason: reason)
            }
        }
        if head.expectedBindingId == nil {
            if let known = await ready.store.setting(IdentityJournal.confirmedKey, as: IdentityBinding.self) {
                head.expectedBindingId = known.bindingId
            } else {
                switch await client.status(installation) {
                case .answer(let status, let answer?, _) where (200..<300).contains(status):
                    guard let binding = answer.binding else {
                        return await retryLater(
                            head, ready, status: status, reason: "identity/status answered without a binding")
                    }
                    if binding.operationId == head.operationId { return await confirm(head, binding, ready) }
                    head.expectedBindingId = binding.bindingId
                case .answer(let status, let answer, let retryAfter):
                    return await answered(head, ready, status: status, answer, retryAfter: retryAfter)
                case .network(let reason):
                    return await retryLater(head, ready, status: nil, reason: reason)
                }
            }
        }
        var request = IdentityChangeRequest(
            provider: installation.provider, subscriptionId: installation.token, operation: head.kind,
            expectedBindingId: head.expectedBindingId ?? IdentityWire.initialBindingId, operationId: head.operationId)
        if head.kind == .login {
            if head.followsPolicy { request.expectedPolicyRevision = head.policyRevision }
            if head.mode == .verified {
                guard let proof = await proof(head, ready) else {
                    return await fail(
                        head, ready, status: nil, code: IdentityWire.invalidToken, field: "token",
                        reason: "a VERIFIED login needs a JWT from the app's backend: the IdentityTokenProvider "
                            + "(or the JWTInterface) gave none; it is never sent as BASIC instead")
                }
                request.token = proof
            } else {
                request.externalId = head.externalId
            }
        }
        head.attempts += 1
        try? await ready.store.prepareIdentity(head)
        switch await client.change(request) {
        case .answer(let status, let answer, let retryAfter):
            return await answered(head, ready, status: status, answer, retryAfter: retryAfter)
        case .network(let reason):
            return await retryLater(head, ready, status: nil, reason: reason)
        }
    }

    /// A VERIFIED login's JWT: the identity token provider's for the person, else the JWT provider's.
    private func proof(_ head: JournalOperation, _ ready: ReadyCore) async -> String? {
        if let externalId = head.externalId, let provider = await ready.runtime.identityTokens.provider,
            let token = await provider.identityToken(externalId: externalId), !token.isEmpty
        {
            return token
        }
        guard await ready.auth.hasProvider, let token = await ready.auth.jwt(), !token.isEmpty else { return nil }
        return token
    }

    /// What an answer other than a read's success means for the head.
    private func answered(
        _ head: JournalOperation, _ ready: ReadyCore, status: Int, _ answer: IdentityAnswer?, retryAfter: String?
    ) async -> Step {
        if (200..<300).contains(status) {
            guard let binding = answer?.binding else {
                return await retryLater(head, ready, status: status, reason: "the answer had no binding")
            }
            return await confirm(head, binding, ready)
        }
        if status == 409, answer?.code == IdentityWire.rebindConflict {
            return await reconcile(head, ready, field: answer?.field, reason: answer?.errorText ?? "")
        }
        if status == 403, answer?.code == IdentityWire.modeMismatch, head.followsPolicy {
            return await halt(
                head, ready, toMode: .verified, binding: nil,
                reason: "the project became VERIFIED while this BASIC login was unconfirmed: log in again")
        }
        if RetryPolicy.isRetryable(status: status) {
            return await retryLater(
                head, ready, status: status, reason: answer?.errorText ?? "HTTP \(status)",
                retryAfter: retryAfter)
        }
        return await fail(
            head, ready, status: status, code: answer?.code, field: answer?.field,
            reason: answer?.errorText ?? "the server answered \(status)")
    }

    /// After a 409: reads the binding (and for a login that follows the policy, the policy), then
    /// confirms the head (it was applied, or the binding is already what it asks), halts it (the
    /// policy changed mode), or sends it again with what it should expect now.
    private func reconcile(_ original: JournalOperation, _ ready: ReadyCore, field: String?, reason: String) async
        -> Step
    {
        var head = original
        ready.emit(
            .info(
                head.source.function, IdentityEvents.identityRebindConflict,
                value: ["operation_id": head.operationId, "field": field ?? "", "reason": reason]))
        conflicts[head.seq, default: 0] += 1
        guard let installation = await ready.token() else { return .wait(1) }
        let client = IdentityClient(ready: ready)
        let read =
            head.followsPolicy && head.kind == .login
            ? await client.policy(installation) : await client.status(installation)
        guard case .answer(let status, let answer?, _) = read, (200..<300).contains(status),
            let binding = answer.binding
        else {
            return await retryLater(head, ready, status: nil, reason: "reconciling: the binding could not be read")
        }
        if binding.operationId == head.operationId { return await confirm(head, binding, ready) }
        if head.followsPolicy, head.kind == .login {
            guard let policy = answer.policy, policy.mode != .auto else {
                return await retryLater(
                    head, ready, status: status, reason: "reconciling: the policy could not be read")
            }
            if policy.mode != head.mode {
                return await halt(
                    head, ready, toMode: policy.mode, binding: nil,
                    reason: "the project's identity mode changed from \(head.mode.rawValue) to \(policy.mode.rawValue) "
                        + "while this login was unconfirmed: log in again")
            }
            head.policyRevision = policy.revision
        }
        let satisfied =
            head.kind == .login ? binding.externalId == head.externalId && head.externalId != nil : !binding.isBound
        if satisfied { return await confirm(head, binding, ready) }
        head.expectedBindingId = binding.bindingId
        try? await ready.store.prepareIdentity(head)
        if (conflicts[head.seq] ?? 0) > Self.maxConflictsInARow {
            conflicts[head.seq] = 0
            return await retryLater(head, ready, status: 409, reason: "the binding keeps changing: trying again later")
        }
        return .wait(0)
    }

    /// After a restart with another mode: a login the server applied is confirmed, any other halts.
    private func reconcileThenHalt(
        _ head: JournalOperation, _ ready: ReadyCore, _ client: IdentityClient, _ installation: TokenData,
        toMode: IdentityMode
    ) async -> Step {
        switch await client.status(installation) {
        case .answer(let status, let answer?, _) where (200..<300).contains(status):
            if let binding = answer.binding, binding.operationId == head.operationId {
                return await confirm(head, binding, ready)
            }
            return await halt(
                head, ready, toMode: toMode, binding: answer.binding,
                reason: "this login was made in \(head.followsPolicy ? "auto" : head.mode.rawValue) mode and the SDK "
                    + "now runs in \(toMode.rawValue): log in again")
        case .answer(let status, let answer, let retryAfter):
            return await answered(head, ready, status: status, answer, retryAfter: retryAfter)
        case .network(let reason):
            return await retryLater(head, ready, status: nil, reason: reason)
        }
    }

    // MARK: Outcomes (applied through the mailbox)

    private func confirm(_ head: JournalOperation, _ binding: IdentityBinding, _ ready: ReadyCore) async -> Step {
        await ready.followUp(head.source.function) { ready in
            let previous = await ready.store.setting(IdentityJournal.confirmedKey, as: IdentityBinding.self)
            guard (try? await ready.store.finishIdentity(head.seq, confirmed: binding)) == true else { return }
            var value: [String: any Sendable] = ["operation_id": head.operationId, "binding_id": binding.bindingId]
            if let externalId = binding.externalId { value["external_id"] = externalId }
            ready.emit(
                .info(
                    head.source.function,
                    binding.isBound ? IdentityEvents.identityLoginConfirmed : IdentityEvents.identityLogoutConfirmed,
                    value: value))
            // Per-person data of the modules (in-app state, the inbox) goes with a change of person;
            // authenticate() and logOut() told them already.
            if head.source == .identity, previous?.externalId != binding.externalId {
                for module in await ready.runtime.modules {
                    await module.identityChanged(ready, bound: binding.isBound)
                }
            }
        }
        return .next
    }

    private func fail(
        _ head: JournalOperation, _ ready: ReadyCore, status: Int?, code: String?, field: String?, reason: String
    ) async -> Step {
        await ready.followUp(head.source.function) { ready in
            guard (try? await ready.store.finishIdentity(head.seq, confirmed: nil)) == true else { return }
            var value: [String: any Sendable] = ["operation_id": head.operationId, "reason": reason]
            if let status { value["http_code"] = status }
            if let code { value["code"] = code }
            if let field { value["field"] = field }
            ready.emit(.error(head.source.function, IdentityEvents.identityOperationFailed, value: value))
        }
        return .next
    }

    private func halt(
        _ head: JournalOperation, _ ready: ReadyCore, toMode: IdentityMode, binding: IdentityBinding?, reason: String
    ) async -> Step {
        let halt = IdentityHalt(
            operationId: head.operationId, externalId: head.externalId,
            fromMode: head.followsPolicy && head.policyRevision == nil ? .auto : head.mode, toMode: toMode,
            reason: reason)
        await ready.followUp(head.source.function) { ready in
            guard (try? await ready.store.finishIdentity(head.seq, confirmed: binding, halted: .some(halt))) == true
            else { return }
            ready.emit(
                .error(
                    head.source.function, IdentityEvents.identityAuthModeChanged,
                    value: [
                        "operation_id": head.operationId, "code": IdentityWire.authModeChanged, "reason": reason,
                        "from_mode": halt.fromMode.rawValue, "to_mode": toMode.rawValue,
                    ]))
        }
        return .next
    }

    private func retryLater(
        _ head: JournalOperation, _ ready: ReadyCore, status: Int?, reason: String, retryAfter: String? = nil
    ) async -> Step {
        let outcome: RetryPolicy.Outcome = status.map { .status($0, retryAfter: retryAfter) } ?? .network(reason)
        // The SDK's retry policy without its deadline: an identity operation is retried until confirmed.
        let environment = ready.runtime.environment
        failures[head.seq, default: 0] += 1
        var retry = environment.retryPolicy
        retry.budget = .infinity
        let decision = retry.decide(
            RetryPolicy.isRetryable(status: status ?? 500) ? outcome : .status(503, retryAfter: nil),
            attempt: failures[head.seq] ?? 1, firstAttemptAt: head.createdAt, now: ready.now,
            random: environment.random())
        let delay: TimeInterval =
            switch decision {
            case .retry(let after): after
            case .success, .drop: retry.maxDelay
            }
        var value: [String: any Sendable] = ["operation_id": head.operationId, "reason": reason, "retry_after": delay]
        if let status { value["http_code"] = status }
        ready.emit(
            EventRecord(
                .retry, function: head.source.function, event: IdentityEvents.identityOperationRetry, value: value))
        return .wait(delay)
    }
}

extension JournalOperation.Source {
    /// The public function events name.
    var function: String {
        switch self {
        case .identity: "identity"
        case .authenticate: "authenticate"
        case .logOut: "logOut"
        }
    }
}
