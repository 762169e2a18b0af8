import Foundation
import TernHTTP
import Testing

@testable import TernServer

/// Sign-in, the session cookie, CSRF and the console's files, through the same gate and router
/// `tern serve` uses, without sockets.
@Suite struct DashboardSessionTests {
    static let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Sources/TernServer/Dashboard/Web"
        ).path

    /// The console in front of an in-process server, with a clock the test moves.
    struct Console {
        let server: InProcessServer
        let gate: DashboardGate
        let clock: ManualClock

        static func make(assets: DashboardAssets? = nil) async throws -> Console {
            let server = try await InProcessServer()
            let clock = ManualClock()
            let sessions = DashboardSessions(idle: 60_000, lifetime: 3_600_000, clock: clock.function)
            let dashboard = DashboardRoutes(
                assets: assets ?? DashboardAssets(environment: ["TERN_DASHBOARD_DIR": web]), sessions: sessions,
                admin: AdminService(store: server.store, verifier: CryptoTokenVerifier()))
            let router = Router(
                routes: TernServerApp.routes(store: server.store, metrics: Metrics(), benchRoutes: false)
                    + dashboard.all, metrics: Metrics(), logger: Logger(minimum: .error, sink: { _ in }))
            return Console(server: server, gate: DashboardGate(next: router, sessions: sessions), clock: clock)
        }

        func send(_ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:]) async
            -> HTTPResponse
        {
            var all = headers
            if json != nil { all["Content-Type"] = "application/json" }
            return await gate.handle(
                HTTPRequest(method: method, path: path, headers: all, body: Data((json ?? "").utf8)))
        }

        /// Signs in with the admin key: the cookie header to send back, and the CSRF token.
        func signIn() async throws -> (cookie: String, csrf: String) {
            let reply = await send("POST", "/dashboard/session", json: "{\"key\":\"\(server.bootstrap.adminKey)\"}")
            try #require(reply.status == 201, "\(String(decoding: reply.body, as: UTF8.self))")
            let setCookie = try #require(reply.header("Set-Cookie"))
            let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
            let json = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
            return (cookie, try #require(json["csrf_token"] as? String))
        }
    }

    @Test func signingInSetsAnHttpOnlyStrictCookieAndSecureOnlyBehindTLS() async throws {
        let console = try await Console.make()
        defer { Task { await console.server.finish() } }
        let key = console.server.bootstrap.adminKey
        let plain = await console.send("POST", "/dashboard/session", json: "{\"key\":\"\(key)\"}")
        #expect(plain.status == 201)
        let cookie = try #require(plain.header("Set-Cookie"))
        #expect(cookie.hasPrefix("tern_session="))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
        #expect(!cookie.contains("Secure"))
        #expect(!String(decoding: plain.body, as: UTF8.self).contains(key), "the answer carries the key")
        let tls = await console.send(
            "POST", "/dashboard/session", json: "{\"key\":\"\(key)\"}", headers: ["X-Forwarded-Proto": "https"])
        #expect(tls.header("Set-Cookie")?.contains("; Secure") == true)
    }

    @Test func aWrongKeyIsRefusedWithoutACookie() async throws {
        let console = try await Console.make()
        defer { Task { await console.server.finish() } }
        let reply = await console.send("POST", "/dashboard/session", json: "{\"key\":\"ak_wrong\"}")
        #expect(reply.status == 401)
        #expect(reply.header("Set-Cookie") == nil)
        #expect(String(decoding: reply.body, as: UTF8.self).contains("not a key of this server"))
        let empty = await console.send("POST", "/dashboard/session", json: "{\"key\":\"  \"}")
        #expect(empty.status == 400)
    }

    @Test func theSessionReadsTheAPIAndAChangeNeedsItsCSRFToken() async throws {
        let console = try await Console.make()
        defer { Task { await console.server.finish() } }
        let (cookie, csrf) = try await console.signIn()
        let project = console.server.bootstrap.projectId
        let read = await console.send("GET", "/api/v1/admin/overview", headers: ["Cookie": "a=b; \(cookie)"])
        #expect(read.status == 200)
        let pixels = "/api/v1/admin/projects/\(project)/pixels"
        let missing = await console.send("POST", pixels, json: "{\"sid\":\"p1\"}", headers: ["Cookie": cookie])
        #expect(missing.status == 403)
        #expect(String(decoding: missing.body, as: UTF8.self).contains("CSRF token missing"))
        let forged = await console.send(
            "POST", pixels, json: "{\"sid\":\"p1\"}", headers: ["Cookie": cookie, "X-CSRF-Token": "forged"])
        #expect(forged.status == 403)
        let crossOrigin = await console.send(
            "POST", pixels, json: "{\"sid\":\"p1\"}",
            headers: ["Cookie": cookie, "X-CSRF-Token": csrf, "Origin": "https://evil.example", "Host": "tern:8080"])
        #expect(crossOrigin.status == 403)
        let good = await console.send(
            "POST", pixels, json: "{\"sid\":\"p1\"}",
            headers: ["Cookie": cookie, "X-CSRF-Token": csrf, "Origin": "http://tern:8080", "Host": "tern:8080"])
        #expect(good.status == 201)
        let proxied = await console.send(
            "POST", pixels, json: "{\"sid\":\"p2\"}",
            headers: [
                "Cookie": cookie, "X-CSRF-Token": csrf, "Origin": "https://tern.example.com", "Host": "127.0.0.1:8080",
                "X-Forwarded-Host": "tern.example.com",
            ])
        #expect(proxied.status == 201, "a proxy's X-Forwarded-Host")
        let listed = try await console.server.admin("GET", "/projects/\(project)/pixels")
        #expect(Set(listed.array.compactMap { $0["sid"] as? String }) == ["p1", "p2"])
    }

    @Test func anIdleSessionExpiresAndSignOutEndsIt() async throws {
        let console = try await Console.make()
        defer { Task { await console.server.finish() } }
        let first = try await console.signIn()
        console.clock.advance(seconds: 61)
        let expired = await console.send("GET", "/api/v1/admin/overview", headers: ["Cookie": first.cookie])
        #expect(expired.status == 401)
        #expect(String(decoding: expired.body, as: UTF8.self).contains("expired"))

        let second = try await console.signIn()
        let refused = await console.send("DELETE", "/dashboard/session", headers: ["Cookie": second.cookie])
        #expect(refused.status == 403, "sign-out without the CSRF token")
        let out = await console.send(
            "DELETE", "/dashboard/session", headers: ["Cookie": second.cookie, "X-CSRF-Token": second.csrf])
        #expect(out.status == 204)
        #expect(out.header("Set-Cookie")?.contains("Max-Age=0") == true)
        let after = await console.send("GET", "/dashboard/session", headers: ["Cookie": second.cookie])
        #expect(after.status == 401)
    }

    @Test func aSessionInUseStillEndsAtItsLifetime() async throws {
        let console = try await Console.make()
        defer { Task { await console.server.finish() } }
        let (cookie, _) = try await console.signIn()
        var statuses: [Int] = []
        for _ in 0..<80 {  // a request every 50 s: never idle, past the hour's lifetime
            console.clock.advance(seconds: 50)
            statuses.append(await console.send("GET", "/dashboard/session", headers: ["Cookie": cookie]).status)
        }
        #expect(statuses.prefix(71).allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(statuses.suffix(8).allSatisfy { $0 == 401 }, "\(statuses)")
    }

    @Test func aBearerRequestPassesUntouchedAndACookieNeverBecomesAnotherKey() async throws {
        let console = try await Console.make()
        defer { Task { await console.server.finish() } }
        let (cookie, _) = try await console.signIn()
        let wrongBearer = await console.send(
            "GET", "/api/v1/admin/overview", headers: ["Cookie": cookie, "Authorization": "Bearer ak_wrong"])
        #expect(wrongBearer.status == 401, "the cookie overrode the request's own key")
        let unknown = await console.send("GET", "/api/v1/admin/overview", headers: ["Cookie": "tern_session=made-up"])
        #expect(unknown.status == 401)
    }

    @Test func theConsoleIsServedWithAStrictPolicyAndNoInlineScript() async throws {
        let console = try await Console.make()
        defer { Task { await console.server.finish() } }
        let page = await console.send("GET", "/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.contains("script-src 'self'") && policy.contains("default-src 'none'"))
        #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(!html.contains("<script>"), "inline script in index.html")
        #expect(html.range(of: #" on[a-z]+="#, options: .regularExpression) == nil, "an inline handler in index.html")
        let script = await console.send("GET", "/assets/app.js")
        #expect(script.header("Content-Type")?.hasPrefix("text/javascript") == true)
        #expect(await console.send("GET", "/assets/../bootstrap.json").status == 404)
        #expect(await console.send("GET", "/assets/nothing.js").status == 404)
    }

    @Test func withoutItsFilesTheConsoleSaysWhereToPutThem() async throws {
        let console = try await Console.make(
            assets: DashboardAssets(environment: ["TERN_DASHBOARD_DIR": "/nonexistent"], searchBesideBinary: false))
        defer { Task { await console.server.finish() } }
        let page = await console.send("GET", "/")
        #expect(page.status == 503)
        #expect(String(decoding: page.body, as: UTF8.self).contains("TERN_DASHBOARD_DIR"))
    }

    @Test func theBuiltBundleBesideTheTestBinaryIsFound() {
        let assets = DashboardAssets(environment: [:])
        #expect(assets.directory?.hasSuffix("Tern_TernServer.resources/Web") == true, "\(assets.directory ?? "none")")
    }
}
