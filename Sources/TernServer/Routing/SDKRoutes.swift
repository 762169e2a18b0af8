import Foundation
import TernHTTP
import TernProtocol

/// The SDK's endpoints, one group: each request is authenticated (`CallerAuthentication`), gets
/// its idempotency token (`IdempotencyKeys`), and answers the envelope. The routes themselves sit
/// beside their features: `SubscriptionService/routes`, `ProfileService/routes`,
/// `TagService/routes`, `EventService/routes`.
struct SDKRoutes: Sendable {
    let authenticator: Authenticator
    let subscriptions: SubscriptionService
    let profiles: ProfileService
    let events: EventService
    let tags: TagService
    let metrics: Metrics

    /// One route per `Endpoint`.
    var all: [Route] {
        RouteGroup(
            [CallerAuthentication(authenticator: authenticator), IdempotencyKeys(metrics: metrics)],
            routes: subscriptions.routes + profiles.routes + tags.routes
                + DeviceReportService(store: tags.store, clock: tags.clock).routes + events.routes
                + LiveActivityService(store: tags.store, clock: tags.clock).routes
        ).all
    }
}

extension Route {
    /// An SDK endpoint: decodes `Body`, runs `body` with the caller and the idempotency token, and
    /// answers what it returns. Its group supplies the caller and the token.
    static func sdk<Body: Decodable & Sendable>(
        _ endpoint: Endpoint, _ type: Body.Type,
        _ body: @escaping @Sendable (Body, Caller, IdempotencyToken) async throws -> Answer
    ) -> Route {
        Route(endpoint.method, endpoint.path, name: endpoint.rawValue) { request in
            let caller = try request.authenticated()
            let limits: BodyLimits = endpoint == .eventPush || endpoint == .eventPost ? .eventBatch : .standard
            let decoded = try JSONBody.decode(Body.self, from: request.http, limits: limits)
            return try await body(decoded, caller, try request.idempotencyToken()).response
        }
    }
}
