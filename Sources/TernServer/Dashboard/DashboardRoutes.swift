import Foundation
import TernHTTP
import TernProtocol

/// The web console at `/`: its files under `/assets/`, and sign-in at `/dashboard/session`.
///
/// - `GET /dashboard/session`: the signed-in browser's CSRF token and expiry, or 401
/// - `POST /dashboard/session` `{"key": "<server or project key>"}`: signs in, sets the `HttpOnly`,
///   `SameSite=Strict` session cookie (`Secure` behind TLS), answers the CSRF token and the key's
///   id, project and role (the pages show that project only; a `read` session has no compose).
///   Failed sign-ins are limited per address (``SignInThrottle``): then 429 with `Retry-After`.
/// - `DELETE /dashboard/session` (with `X-CSRF-Token`): signs out
struct DashboardRoutes: Sendable {
    let assets: DashboardAssets
    let sessions: DashboardSessions
    let admin: AdminService
    let throttle: SignInThrottle

    init(
        assets: DashboardAssets, sessions: DashboardSessions, admin: AdminService,
        throttle: SignInThrottle = SignInThrottle()
    ) {
        self.assets = assets
        self.sessions = sessions
        self.admin = admin
        self.throttle = throttle
    }

    /// A strict policy: scripts and styles only from the server's own files, nothing inline.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; "
        + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    var all: [Route] {
        let assets = assets
        let sessions = sessions
        let keys = admin.keys
        let throttle = throttle
        return [
            Route("GET", "/") { _ in Self.asset(assets, "index.html") },
            Route("GET", "/assets/{file}") { request in Self.asset(assets, request.parameters["file"] ?? "") },
            Route("GET", DashboardGate.sessionPath) { request in
                guard let id = DashboardGate.cookie(request.http), let session = await sessions.use(id) else {
                    throw APIError.unauthorized("not signed in: sign in with a server key or a project key")
                }
                return Self.sessionAnswer(200, session)
            },
            Route("POST", DashboardGate.sessionPath) { request in
                try await Self.signIn(request, sessions: sessions, keys: keys, throttle: throttle)
            },
            Route("DELETE", DashboardGate.sessionPath) { request in
                try await Self.signOut(request, sessions: sessions)
            },
        ]
    }

    struct SignIn: Decodable {
        var key: String
    }

    /// `DELETE /dashboard/session`. A function of its own rather than the route's closure: this
    /// toolchain's optimizer crashed (signal 11, splitting the async closure) on it in release builds.
    static func signOut(_ request: RouteRequest, sessions: DashboardSessions) async throws -> HTTPResponse {
        guard let id = DashboardGate.cookie(request.http), let session = await sessions.use(id) else {
            throw APIError.unauthorized("not signed in")
        }
        try checkCSRF(request, session)
        await sessions.remove(id)
        var response = HTTPResponse(status: 204, headers: [("Cache-Control", "no-store")])
        response.headers.append(
            ("Set-Cookie", DashboardGate.cookieHeader("", maxAge: 0, secure: DashboardGate.isTLS(request.http))))
        return response
    }

    /// The typed-throwing CSRF check, called through an untyped, never-inlined function: a
    /// typed-throws call after an `await` is what the optimizer crashed on.
    @inline(never)
    static func checkCSRF(_ request: RouteRequest, _ session: DashboardSessions.Session) throws {
        try DashboardGate.checkCSRF(request.http, session)
    }

    /// `POST /dashboard/session` (a function of its own, as `signOut`).
    static func signIn(
        _ request: RouteRequest, sessions: DashboardSessions, keys: KeyService, throttle: SignInThrottle
    ) async throws -> HTTPResponse {
        try DashboardGate.checkOrigin(request.http)
        let address = request.http.remoteAddress ?? "unknown"
        if let seconds = await throttle.wait(address) {
            var refused = HTTPResponse.envelope(
                429, "too many failed sign-ins from this address: wait \(seconds) s, then sign in with the right key")
            refused.headers.append(("Retry-After", String(seconds)))
            return refused
        }
        let body = try JSONBody.decode(SignIn.self, from: request.http)
        let key = body.key.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !key.isEmpty else {
            throw APIError.badRequest("key is empty: paste a server key or a project key")
        }
        guard let holder = try await keys.authenticate(key) else {
            await throttle.failed(address)
            throw APIError.unauthorized(
                "that key is not a key of this server, or it was revoked or rotated (bootstrap.json has "
                    + "the server key; tern keys create makes project keys)")
        }
        let (id, session) = await sessions.create(
            key: key, keyId: holder.keyId, projectId: holder.projectId, role: holder.role)
        var response = Self.sessionAnswer(201, session)
        let seconds = max(1, sessions.lifetime / 1000)
        response.headers.append(
            ("Set-Cookie", DashboardGate.cookieHeader(id, maxAge: seconds, secure: DashboardGate.isTLS(request.http))))
        return response
    }

    static func sessionAnswer(_ status: Int, _ session: DashboardSessions.Session) -> HTTPResponse {
        let project = session.projectId.map(String.init) ?? "null"
        let body =
            "{\"csrf_token\":\"\(session.csrfToken)\",\"expires_at\":\(session.expiresAt),\"key_id\":\(session.keyId),"
            + "\"project_id\":\(project),\"role\":\"\(session.role.rawValue)\"}"
        return HTTPResponse(
            status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
            body: Data(body.utf8))
    }

    static func asset(_ assets: DashboardAssets, _ name: String) -> HTTPResponse {
        guard let file = assets.file(name) else {
            if assets.directory == nil {
                return .text(
                    503,
                    "the dashboard's files were not found: keep Tern_TernServer.resources beside the tern binary, "
                        + "or set TERN_DASHBOARD_DIR to Sources/TernServer/Dashboard/Web")
            }
            return .text(404, "no dashboard file named \(name.prefix(100))")
        }
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", file.contentType), ("Content-Security-Policy", contentSecurityPolicy),
                ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
                ("X-Frame-Options", "DENY"), ("Cache-Control", "no-cache"),
            ], body: file.body)
    }
}
