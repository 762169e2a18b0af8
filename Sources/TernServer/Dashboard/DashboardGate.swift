import Foundation
import TernCrypto
import TernHTTP
import TernProtocol

/// Sits in front of the router: a management-API request that carries the dashboard's session
/// cookie (and no `Authorization`) goes on with the session's key as its bearer, once the session
/// is live and, for a change (anything but GET and HEAD), its `X-CSRF-Token` matches.
struct DashboardGate: HTTPHandler {
    let next: any HTTPHandler
    let sessions: DashboardSessions

    static let cookieName = "tern_session"
    static let csrfHeader = "X-CSRF-Token"
    static let sessionPath = "/dashboard/session"

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard request.path.hasPrefix(AdminRoutes.prefix + "/"), request.header(Wire.authorizationHeader) == nil,
            let id = Self.cookie(request)
        else { return await next.handle(request) }
        guard let session = await sessions.use(id) else {
            return .envelope(401, "your dashboard session expired or was signed out: sign in again")
        }
        do {
            try Self.checkOrigin(request)
            try Self.checkCSRF(request, session)
        } catch {
            return .envelope(error.status, error.reason)
        }
        var forwarded = request
        forwarded.headers[Wire.authorizationHeader.lowercased()] = "Bearer " + session.key
        return await next.handle(forwarded)
    }

    /// The session cookie's value, if the request has one.
    static func cookie(_ request: HTTPRequest) -> String? {
        guard let header = request.header("Cookie") else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    static func cookieHeader(_ value: String, maxAge: Int64, secure: Bool) -> String {
        "\(cookieName)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// Behind a TLS-terminating proxy that says so.
    static func isTLS(_ request: HTTPRequest) -> Bool {
        request.header("X-Forwarded-Proto")?.lowercased() == "https"
    }

    /// A change needs the session's CSRF token in `X-CSRF-Token`.
    static func checkCSRF(_ request: HTTPRequest, _ session: DashboardSessions.Session) throws(APIError) {
        guard request.method != "GET", request.method != "HEAD" else { return }
        guard let sent = request.header(csrfHeader), !sent.isEmpty else {
            throw APIError(status: 403, reason: "CSRF token missing: send the session's token in X-CSRF-Token")
        }
        guard Digest.sha256Hex(sent) == Digest.sha256Hex(session.csrfToken) else {
            throw APIError(status: 403, reason: "CSRF token does not match this session: reload the page")
        }
    }

    /// A browser's `Origin`, when it sends one with a change, must be this server: the `Host` it
    /// asked for, or the `X-Forwarded-Host` a proxy in front says it asked for.
    static func checkOrigin(_ request: HTTPRequest) throws(APIError) {
        guard request.method != "GET", request.method != "HEAD", let origin = request.header("Origin") else { return }
        let hosts = [request.header("Host"), request.header("X-Forwarded-Host")].compactMap { $0?.lowercased() }
        guard let url = URL(string: origin), let originHost = url.host?.lowercased(),
            hosts.contains(originHost + (url.port.map { ":\($0)" } ?? ""))
        else {
            throw APIError(
                status: 403, reason: "cross-origin request refused: the dashboard only accepts its own pages")
        }
    }
}
