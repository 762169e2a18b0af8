import Foundation
import TernHTTP
import TernProtocol

/// The SDK's endpoints: each decodes its body, checks it, calls one service, and answers the envelope.
public struct SDKRoutes: Sendable {
    let authenticator: Authenticator
    let subscriptions: SubscriptionService
    let profiles: ProfileService
    let events: EventService
    let tags: TagService
    let metrics: Metrics

    public init(
        authenticator: Authenticator, subscriptions: SubscriptionService, profiles: ProfileService,
        events: EventService, tags: TagService, metrics: Metrics
    ) {
        self.authenticator = authenticator
        self.subscriptions = subscriptions
        self.profiles = profiles
        self.events = events
        self.tags = tags
        self.metrics = metrics
    }

    /// One route per ``Endpoint``.
    public var all: [Route] { Endpoint.allCases.map(route(for:)) }

    func route(for endpoint: Endpoint) -> Route {
        let subscriptions = subscriptions
        let profiles = profiles
        let events = events
        let tags = tags
        switch endpoint {
        case .pushSubscribe, .pushSuspend, .pushUnsubscribe:
            let status = endpoint.subscriptionStatus ?? .subscribed
            return sdk(endpoint, PushSubscriptionRequest.self) { request, caller, key in
                try request.validate()
                return try await subscriptions.change(request, to: status, caller: caller, idempotency: key)
            }
        case .pushUpdate:
            return sdk(endpoint, PushUpdateRequest.self) { request, caller, key in
                try request.validate()
                return try await subscriptions.update(request, caller: caller, idempotency: key)
            }
        case .pushStatus:
            return sdk(endpoint, PushStatusRequest.self) { request, caller, _ in
                try request.validate()
                return try await subscriptions.status(request, caller: caller)
            }
        case .pushUnsuspend:
            return sdk(endpoint, PushTokenRequest.self) { request, caller, key in
                try request.validate()
                return try await subscriptions.unsuspend(request, caller: caller, idempotency: key)
            }
        case .profileAuthenticate:
            return sdk(endpoint, PushTokenRequest.self) { request, caller, key in
                try request.validate()
                return try await profiles.authenticate(request, caller: caller, idempotency: key)
            }
        case .profileUpdate:
            return sdk(endpoint, ProfileUpdateRequest.self) { request, caller, key in
                try await profiles.update(request, caller: caller, idempotency: key)
            }
        case .eventPost:
            return sdk(endpoint, GoalEventRequest.self) { request, caller, key in
                try await events.goals(request, caller: caller, idempotency: key)
            }
        case .eventPush:
            return sdk(endpoint, PushEventRequest.self) { request, caller, key in
                try request.validate()
                return try await events.pushEvents(request, caller: caller, idempotency: key)
            }
        case .profileTagsSet:
            return sdk(endpoint, TagsSetRequest.self) { request, caller, key in
                try await tags.set(request, caller: caller, idempotency: key)
            }
        case .profileTagsRemove:
            return sdk(endpoint, TagsRemoveRequest.self) { request, caller, key in
                try await tags.remove(request, caller: caller, idempotency: key)
            }
        }
    }

    /// Authenticates, decodes the body, reads the idempotency key, runs `body`, and answers.
    private func sdk<Body: Decodable & Sendable>(
        _ endpoint: Endpoint, _ type: Body.Type,
        _ body: @escaping @Sendable (Body, Caller, IdempotencyToken) async throws -> Answer
    ) -> Route {
        let authenticator = authenticator
        let metrics = metrics
        return Route(endpoint.method, endpoint.path) { request in
            let http = request.http
            let caller = try await authenticator.caller(
                rToken: http.header(Wire.rTokenHeader), authorization: http.header(Wire.authorizationHeader))
            let decoded = try JSONBody.decode(Body.self, from: http)
            let key = try IdempotencyToken(
                projectId: caller.project.id, key: http.header(Wire.idempotencyKeyHeader),
                endpoint: endpoint.rawValue, body: http.body)
            let answer = try await body(decoded, caller, key)
            var response = HTTPResponse.json(answer.status, answer.body)
            if answer.replayed {
                metrics.recordReplay()
                response.headers.append(("Idempotent-Replayed", "true"))
            }
            return response
        }
    }
}
