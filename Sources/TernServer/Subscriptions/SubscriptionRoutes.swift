import Foundation
import TernProtocol

extension SubscriptionService {
    /// `push/subscribe`, `push/suspend`, `push/unsubscribe`, `push/update`, `push/status` and
    /// `push/unsuspend`; in the SDK group.
    var routes: [Route] {
        let service = self
        let changes = [Endpoint.pushSubscribe, .pushSuspend, .pushUnsubscribe].map { endpoint in
            let status = endpoint.subscriptionStatus ?? .subscribed
            return Route.sdk(endpoint, PushSubscriptionRequest.self) { request, caller, key in
                try request.validate()
                return try await service.change(request, to: status, caller: caller, idempotency: key)
            }
        }
        return changes + [
            .sdk(.pushUpdate, PushUpdateRequest.self) { request, caller, key in
                try request.validate()
                return try await service.update(request, caller: caller, idempotency: key)
            },
            .sdk(.pushStatus, PushStatusRequest.self) { request, caller, _ in
                try request.validate()
                return try await service.status(request, caller: caller)
            },
            .sdk(.pushUnsuspend, PushTokenRequest.self) { request, caller, key in
                try request.validate()
                return try await service.unsuspend(request, caller: caller, idempotency: key)
            },
        ]
    }
}
