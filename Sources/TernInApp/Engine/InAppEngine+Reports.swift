import Foundation

extension InAppEngine {
    /// Sends `shown`, `clicked`, `closed` or `error` through the outbox, keyed by the display so
    /// each reaches the server once.
    nonisolated func report(_ presentation: InAppPresentation, _ report: DisplayReport, _ ready: ReadyCore) {
        let function = "inAppEvent"
        ready.post(function) { ready in
            let token = await ready.token()
            var buttonId: String?
            var reason: String?
            let kind: InAppEventRequest.Kind
            switch report {
            case .shown: kind = .shown
            case .closed: kind = .closed
            case .clicked(let id):
                kind = .clicked
                buttonId = String(id.prefix(64))
            case .error(let failure):
                kind = .error
                reason = String(failure.reason.prefix(1024))
            }
            let body = InAppEventRequest(
                provider: token?.provider, subscriptionId: token?.token, smid: presentation.campaign.smid,
                campaignId: presentation.campaign.campaignId, type: kind, buttonId: buttonId, reason: reason,
                at: ready.now)
            guard let data = try? JSONEncoder().encode(body) else {
                ready.emit(.error(function, InAppModuleEvents.inAppEventRequestDataIsNil))
                return
            }
            await ready.enqueue(
                OutboxEntry(
                    endpoint: .inAppEvent, lane: .ordered, body: data,
                    meta: OutboxMeta(
                        function: function, success: InAppModuleEvents.inAppEventRequestSuccessful,
                        failure: InAppModuleEvents.inAppEventRequestFailed, includeProfile: false),
                    idempotencyKey: "inapp.\(presentation.id).\(kind.rawValue)"))
        }
    }
}
