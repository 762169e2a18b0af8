import Foundation
import TernProtocol

/// `Tern.shared.profile.tags`: string tags of the install's current binding — the device's push
/// subscription in the profile it is bound to now (the anonymous one, or the signed-in user's). They
/// need no definition on the server, and a binding change (log-in, log-out with `unSuspend`) clears
/// them: set tags after the device subscribed and after each change of user.
///
/// ```swift
/// Tern.shared.profile.tags.setTags(["interest": "travel", "tier": "gold"])
/// Tern.shared.profile.tags.removeTags(["tier"])
/// ```
public struct TagsAPI: Sendable {
    let core: CoreServices

    /// Adds or overwrites these tags; other tags keep their values. Sent in order with the device's
    /// other changes, with its token (waiting for one). Events: `setTagsRequestSuccessful` or
    /// `setTagsRequestFailed` (e.g. 404 when the device has no subscription in the profile yet).
    /// Refused at once (`invalidTagsRequestData`, with the `reason`): no tags, more than
    /// `TagLimits.maxPerRequest`, an empty or too long key, a too long value.
    @discardableResult
    public func setTags(_ tags: [String: String]) -> QueuedRequest {
        let function = "setTags"
        var problem = TagLimits.problem(count: tags.count, field: "tags")
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) where problem == nil {
            problem = TagLimits.problem(key: key) ?? TagLimits.problem(key: key, value: value)
        }
        if let problem { return reject(function, problem) }
        return enqueue(function, .profileTagsSet, TagsEvents.setTagsRequestSuccessful, TagsEvents.setTagsRequestFailed)
        {
            token in
            try JSONEncoder().encode(
                TagsSetRequest(provider: token?.provider ?? "", subscriptionId: token?.token ?? "", tags: tags))
        }
    }

    /// Removes tags by key (unknown keys are ignored). Events: `removeTagsRequestSuccessful` or
    /// `removeTagsRequestFailed`; refused at once like ``setTags(_:)``.
    @discardableResult
    public func removeTags(_ keys: [String]) -> QueuedRequest {
        let function = "removeTags"
        var seen: Set<String> = []
        let unique = keys.filter { seen.insert($0).inserted }
        if let problem = TagLimits.problem(count: unique.count, field: "keys")
            ?? unique.lazy.compactMap({ TagLimits.problem(key: $0) }).first
        {
            return reject(function, problem)
        }
        return enqueue(
            function, .profileTagsRemove, TagsEvents.removeTagsRequestSuccessful, TagsEvents.removeTagsRequestFailed
        ) { token in
            try JSONEncoder().encode(
                TagsRemoveRequest(provider: token?.provider ?? "", subscriptionId: token?.token ?? "", keys: unique))
        }
    }

    private func reject(_ function: String, _ reason: String) -> QueuedRequest {
        core.emit(.error(function, TagsEvents.invalidTagsRequestData, value: ["reason": reason]))
        return .rejected(reason)
    }

    /// Queues the request in the ordered lane; without a token yet, the sender fills it in when one arrives.
    private func enqueue(
        _ function: String, _ endpoint: Endpoint, _ success: TagsEvents, _ failure: TagsEvents,
        body: @escaping @Sendable (TokenData?) throws -> Data
    ) -> QueuedRequest {
        let requestId = RequestKey.make()
        core.perform(function, requestId: requestId) { ready in
            let token = await ready.token()
            guard let data = try? body(token) else {
                ready.emit(
                    .error(
                        function, TagsEvents.invalidTagsRequestData, value: ["reason": "the tags could not be encoded"])
                )
                return
            }
            let entry = OutboxEntry(
                endpoint: endpoint, lane: .ordered, body: data,
                meta: OutboxMeta(function: function, success: success, failure: failure), needsToken: token == nil,
                idempotencyKey: requestId)
            await ready.enqueue(entry)
        }
        return QueuedRequest(id: requestId, state: .queued)
    }
}
