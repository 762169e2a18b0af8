import Foundation
import TernProtocol

/// A message sent with `test: true`: it goes to the test devices of its project (subscriptions
/// marked `is_test`, and the push subscriptions of profiles marked `is_test`), in the audience's
/// resource when the audience names one, and to nobody else; the audience's other filters do not
/// apply, push's own rules do (subscribed, a valid token, the message's category not turned off).
/// A test send that would reach no device is refused, and nothing is stored.
enum TestSend {
    /// The most test devices one test send goes to.
    static let maxDevices = 1000

    /// The test devices a test send of `request` admits, before preferences.
    static func candidates(_ tx: any StoreTransaction, projectId: Int64, request: MessageRequest) throws
        -> [AudienceCandidate]
    {
        let resourceId = request.audience.resourceId
        let filter = AudienceFilter(
            MessageAudience(type: .resource, resourceId: resourceId), category: request.category)
        return try tx.testPushCandidates(projectId: projectId, resourceId: resourceId, limit: maxDevices).filter {
            filter.admits($0, tags: nil)
        }
    }

    /// The whole fan-out of a test send, in one step; throws ``refusal(projectId:resourceId:)`` when
    /// it queues nothing.
    static func step(
        _ tx: any StoreTransaction, message: StoredMessage, request: MessageRequest, now: Int64, _ fanOut: FanOut
    ) throws -> Int {
        let admitted = try candidates(tx, projectId: message.projectId, request: request)
        let added = try fanOut.queue(
            tx, message: message, request: request, admitted: admitted, cursor: 0, done: true, now: now
        ).added
        guard added > 0 else { throw refusal(projectId: message.projectId, resourceId: request.audience.resourceId) }
        return added
    }

    /// Why a test send went nowhere, and how to mark a test device.
    static func refusal(projectId: Int64, resourceId: Int64?) -> APIError {
        let place = resourceId.map { "resource \($0) of project \(projectId)" } ?? "project \(projectId)"
        return .unprocessable(
            "test: true, but \(place) has no test device that can get this message (subscribed, with a valid "
                + "token, its category on): mark one with tern subscriptions test RESOURCE TOKEN or tern profiles "
                + "test PROFILE_ID (PUT /api/v1/admin/resources/{resource_id}/test-devices or "
                + "PUT /api/v1/admin/profiles/{profile_id}/test), or send without test")
    }
}
