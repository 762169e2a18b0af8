import Foundation
import TernProtocol

extension Sender {
    /// Applies the policy's decision: removes or reschedules the rows, raises the event, answers
    /// waiting callers and reports sync states.
    func conclude(
        _ rows: [OutboxRow], _ decision: RetryPolicy.Decision, outcome: RetryPolicy.Outcome,
        envelope: ResponseModel.ResponseWithProfile?
    ) async {
        guard let first = rows.first else { return }
        let ids = rows.map(\.id)
        let meta = first.meta
        let status: Int? = if case .status(let code, _) = outcome { code } else { nil }
        switch decision {
        case .success:
            do { try await store.acknowledge(ids) } catch { reportDatabase(error) }
            if let event = meta.success.flatMap(catalog.lookup) {
                bus.emit(.info(meta.function, event, value: Self.value(status, envelope, meta, rows.count, nil)))
            }
            await finish(rows, response: .init(httpCode: status, response: envelope), state: .synced)
        case .retry(let delay):
            let now = environment.clock.now()
            do {
                try await store.reschedule(
                    ids, attempts: first.attempts + 1, firstAttemptAt: first.firstAttemptAt ?? now,
                    nextAttemptAt: now.addingTimeInterval(delay))
            } catch { reportDatabase(error) }
            if let event = meta.failure.flatMap(catalog.lookup) {
                var value = Self.value(status, envelope, meta, rows.count, Self.reason(outcome))
                value["retry_after"] = delay
                bus.emit(.retry(meta.function, event, value: value))
            }
        case .drop(let reason):
            do { try await store.drop(ids) } catch { reportDatabase(error) }
            if let event = meta.failure.flatMap(catalog.lookup) {
                var value = Self.value(status, envelope, meta, rows.count, Self.reason(outcome))
                value["reason"] = reason
                bus.emit(.error(meta.function, event, value: value))
            }
            let response = status.map { ResponseModel.ResponseWithHttpCode(httpCode: $0, response: envelope) }
            await finish(rows, response: response, state: .failed(reason: reason))
        }
    }

    /// Answers the rows' callers and reports their final state.
    func finish(
        _ rows: [OutboxRow], response: ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>?,
        state: SyncState
    ) async {
        let keys = rows.map(\.idempotencyKey)
        await completions.complete(keys, response)
        if await syncStates.hasListeners {
            await syncStates.publish(keys.map { SyncUpdate(requestId: $0, state: state) })
        }
    }

    private func reportDatabase(_ error: any Error) {
        bus.emit(.error("outbox", CoreEvents.databaseError, value: ["reason": "\(error)"]))
    }

    /// The event's value as the reference shows it: `http_code`, `error`, `error_text` and (when
    /// the answer had one and the call asked for it) `profile`; `reason` when there was no answer.
    static func value(
        _ status: Int?, _ envelope: ResponseModel.ResponseWithProfile?, _ meta: OutboxMeta, _ count: Int,
        _ reason: String?
    ) -> [String: any Sendable] {
        var value: [String: any Sendable] = [:]
        if let status { value["http_code"] = status }
        if let envelope {
            value["error"] = envelope.error ?? 0
            value["error_text"] = envelope.errorText ?? ""
            if let status, (200..<300).contains(status) {
                let profile: ProfileData? = meta.includeProfile ? envelope.profile : nil
                value.updateValue(profile, forKey: "profile")
            }
        }
        if let reason, envelope == nil { value["reason"] = reason }
        if count > 1 { value["count"] = count }
        return value
    }

    static func reason(_ outcome: RetryPolicy.Outcome) -> String? {
        if case .network(let reason) = outcome { reason } else { nil }
    }
}
