import Foundation
import TernHTTP
import TernProtocol

/// The web console at `/`: its files under `/assets/`, and sign-in at `/dashboard/session`.
///
/// - `GET /dashboard/session`: the signed-in browser's CSRF token and expiry, or 401
/// - `POST /dashboard/session` `{"key": "<admin key>"}`: signs in, sets the `HttpOnly`,
///   `SameSite=Strict` session cookie (`Secure` behind TLS), answers the CSRF token
/// - `DELETE /dashboard/session` (with `X-CSRF-Token`): signs out
public struct DashboardRoutes: Sendable {
    let assets: DashboardAssets
    let sessions: DashboardSessions
    let admin: AdminService

    public init(assets: DashboardAssets, sessions: DashboardSessions, admin: AdminService) {
        self.assets = assets
        self.sessions = sessions
        self.admin = admin
    }

    /// A strict policy: scripts and styles only from the server's own files, nothing inline.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; "
        + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    public var all: [Route] {
        let assets = assets
        let sessions = sessions
        let admin = admin
        return [
            Route("GET", "/") { _ in Self.asset(assets, "index.html") },
            Route("GET", "/assets/{file}") { request in Self.asset(assets, request.parameters["file"] ?? "") },
            Route("GET", DashboardGate.sessionPath) { request in
                guard let id = DashboardGate.cookie(request.http), let session = await sessions.use(id) else {
                    throw APIError.unauthorized("not signed in: sign in with an admin key")
                }
                return Self.sessionAnswer(200, session)
            },
            Route("POST", DashboardGate.sessionPath) { request in
                try await Self.signIn(request, sessions: sessions, admin: admin)
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
    static func signIn(_ request: RouteRequest, sessions: DashboardSessions, admin: AdminService) async throws
        -> HTTPResponse
    {
        try DashboardGate.checkOrigin(request.http)
        let body = try JSONBody.decode(SignIn.self, from: request.http)
        let key = body.key.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !key.isEmpty else { throw APIError.badRequest("key is empty: paste the admin key") }
        guard try await admin.isAdminKey(key) else {
            throw APIError.unauthorized(
                "that key is not an admin key of this server (bootstrap.json has the first one)")
        }
        let (id, session) = await sessions.create(key: key)
        var response = Self.sessionAnswer(201, session)
        let seconds = max(1, sessions.lifetime / 1000)
        response.headers.append(
            ("Set-Cookie", DashboardGate.cookieHeader(id, maxAge: seconds, secure: DashboardGate.isTLS(request.http))))
        return response
    }

    static func sessionAnswer(_ status: Int, _ session: DashboardSessions.Session) -> HTTPResponse {
        let body = "{\"csrf_token\":\"\(session.csrfToken)\",\"expires_at\":\(session.expiresAt)}"
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
