import Foundation
import TernProtocol

extension EventService {
    /// `event` (goals) and `event/push`; in the SDK group.
    var routes: [Route] {
        let service = self
        return [
            .sdk(.eventPost, GoalEventRequest.self) { request, caller, key in
                try await service.goals(request, caller: caller, idempotency: key)
            },
            .sdk(.eventPush, PushEventRequest.self) { request, caller, key in
                try request.validate()
                return try await service.pushEvents(request, caller: caller, idempotency: key)
            },
        ]
    }
}
